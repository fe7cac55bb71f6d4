"""Real email corpora -> ``EmailRecord`` (and one URL corpus -> ``(url, label)`` pairs).

Common rules:

* Every record's ``raw`` is an RFC 5322 message: mbox messages are kept byte for byte;
  field-only sources (CSV / Hub tables) are wrapped with ``message.build_message`` (a body
  that looks like HTML becomes a text/html part).
* ``label`` is ``PHISHING`` or ``LEGITIMATE``; ``scenario`` is the label in lower case (these
  corpora do not say which kind of phishing). ``group`` is the source plus a hash of the
  canonical subject (``Re:``/``Fwd:`` stripped, normalised), or of the body when there is no
  subject, so replies in one thread and copies of one campaign never cross splits.
* Bad input raises :class:`EmailDatasetError` naming the file (or Hub id), the line or row and
  the column. Rows with an empty body are skipped silently; ``limit`` caps the records returned.
* Hub datasets are read with ``sv_shared.hub_datasets`` (a Hub id, or a local csv / json /
  jsonl / parquet file or directory — what the tests and offline runs use); ``cache_dir`` is
  the ``datasets`` cache.
"""

from __future__ import annotations

import csv
import hashlib
import mailbox
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from sv_env_phishing_detection.message import build_message, parse_message
from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING, EmailRecord
from sv_shared.hub_datasets import HubDatasetError, iter_rows, open_dataset
from sv_shared.row_files import iter_json_objects

ZEFANG_LIU_ID = "zefang-liu/phishing-email-dataset"
EALVARADOB_ID = "ealvaradob/phishing-dataset"
PIROCHETO_ID = "pirocheto/phishing-url"

DEFAULT_LABEL_MAP: dict[str, str | None] = {
    **dict.fromkeys(("phishing", "phishing email", "phish", "malicious", "1"), PHISHING),
    **dict.fromkeys(("legitimate", "safe email", "safe", "ham", "benign", "0"), LEGITIMATE),
}
"""Label spellings (compared stripped and lower-cased) -> label; ``None`` skips the row."""

_HTML_HINT = re.compile(r"<\s*(?:html|body|div|p|br|table|a\s+href|font|span)\b", re.IGNORECASE)
_REPLY_PREFIX = re.compile(r"^(?:\s*(?:re|fw|fwd|aw|wg|tr|rv)\s*(?:\[\d+\])?\s*:)+", re.IGNORECASE)
_PURE_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?[^\s/@]+\.[^\s]+", re.IGNORECASE)


class EmailDatasetError(ValueError):
    """Malformed or unusable email dataset input; the message names file, line/row, column."""


# ------------------------------------------------------------------------------ shared pieces
def looks_like_html(body: str) -> bool:
    """Whether a field-only body is HTML markup rather than plain text."""
    return bool(_HTML_HINT.search(body[:5000]))


def thread_group(source: str, subject: str, body: str) -> str:
    """``source:hash`` of the canonical subject (reply prefixes stripped), else of the body."""
    subject = _REPLY_PREFIX.sub("", subject)
    key = normalize_text(subject) or normalize_text(body)
    return f"{source}:{hashlib.sha1(key.encode('utf-8')).hexdigest()[:12]}"


def _label_key(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return "" if value is None else str(value).strip().lower()


def map_label(
    value: Any, label_map: Mapping[str, str | None], where: str, hint: str = ""
) -> str | None:
    """The label for a raw cell via ``label_map`` (keys compared case-insensitively; a
    ``None`` value means "skip the row"); an unknown value is an :class:`EmailDatasetError`."""
    lookup = {_label_key(key): label for key, label in label_map.items()}
    key = _label_key(value)
    if key not in lookup:
        raise EmailDatasetError(
            f"{where}: unknown label {value!r} (expected one of {sorted(label_map)}){hint}"
        )
    return lookup[key]


_SKIP = ("", "skip", "none")


def parse_label_map(value: Mapping[str, Any] | str | None) -> dict[str, str | None] | None:
    """``label_map=`` as a mapping or ``"spam=Phishing,ham=Legitimate"``; each target is
    Phishing, Legitimate (any case) or skip (drop the row). ``None`` keeps the default map."""
    if value is None:
        return None
    if isinstance(value, str):
        pairs = [item.partition("=") for item in value.split(",") if item.strip()]
        bad = [raw for raw, sep, _ in pairs if not sep]
        if bad:
            raise EmailDatasetError(f"label_map: {bad[0].strip()!r} is not raw=Label")
        value = {raw.strip(): target.strip() for raw, _, target in pairs}
    if not isinstance(value, Mapping) or not value:
        raise EmailDatasetError("label_map: expected raw=Label pairs, e.g. spam=Phishing")
    targets = {label.lower(): label for label in (PHISHING, LEGITIMATE)}
    out: dict[str, str | None] = {}
    for raw, target in value.items():
        name = "" if target is None else str(target).strip().lower()
        if name not in targets and name not in _SKIP:
            raise EmailDatasetError(
                f"label_map: {raw!r} -> {target!r}: expected {PHISHING}, {LEGITIMATE} or skip"
            )
        out[str(raw)] = targets.get(name)
    return out


def _fields_record(
    *,
    record_id: str,
    source: str,
    label: str,
    body: str,
    subject: str = "",
    sender: str = "",
    recipient: str = "",
    date: str = "",
    meta: dict[str, Any] | None = None,
) -> EmailRecord:
    raw = build_message(
        subject=subject,
        body=body,
        sender=sender,
        recipient=recipient,
        date=date,
        html=looks_like_html(body),
    )
    return EmailRecord(
        id=record_id,
        raw=raw,
        label=label,
        source=source,
        scenario=label.lower(),
        group=thread_group(source, subject, body),
        meta=meta or {},
    )


def _take(records: Iterable[EmailRecord], limit: int | None) -> list[EmailRecord]:
    return list(islice(records, limit))


def _cell(row: Mapping[str, Any], column: str | None) -> str:
    if column is None:
        return ""
    value = row.get(column)
    return "" if value is None or value != value else str(value)  # None / NaN -> ""


# ----------------------------------------------------------------------------------- CSV files
def _csv_rows(path: Path, required: Iterable[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(start line, row)`` for each non-blank data row; checks the header has ``required``."""
    if not path.is_file():
        raise EmailDatasetError(f"{path}: file not found")
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # whole emails can exceed 128 KiB
    with path.open("r", encoding="utf-8-sig", errors="replace", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if not header:
            raise EmailDatasetError(f"{path.name}: line 1: empty file (no CSV header)")
        names = [name.strip() for name in header]
        missing = [c for c in required if c not in names]
        if missing:
            raise EmailDatasetError(
                f"{path.name}: line 1: missing required column(s) {missing} (have {names})"
            )
        line_no = reader.line_num + 1
        try:
            for cells in reader:
                start, line_no = line_no, reader.line_num + 1
                if not any(cell.strip() for cell in cells):
                    continue
                if len(cells) != len(names):
                    problem = f"expected {len(names)} columns, got {len(cells)}"
                    raise EmailDatasetError(f"{path.name}: line {start}: {problem}")
                yield start, dict(zip(names, cells, strict=True))
        except csv.Error as exc:
            raise EmailDatasetError(
                f"{path.name}: line {reader.line_num}: bad CSV: {exc}"
            ) from None


def _table_records(
    rows: Iterable[tuple[int, Mapping[str, Any]]],
    path: Path,
    columns: tuple[str, str, str | None, str | None],
    label_map: Mapping[str, str | None] | None,
    source: str,
) -> Iterator[EmailRecord]:
    """Records from ``(line, row)`` pairs; ``columns`` = text, label, subject, sender."""
    text_column, label_column, subject_column, sender_column = columns
    mapping = DEFAULT_LABEL_MAP if label_map is None else label_map
    for line_no, row in rows:
        where = f"{path.name}: line {line_no}: column {label_column!r}"
        label = map_label(row[label_column], mapping, where, "; map it with label_map=")
        body = _cell(row, text_column)
        if label is None or not body.strip():
            continue
        yield _fields_record(
            record_id=f"{source}:L{line_no}",
            source=source,
            label=label,
            body=body,
            subject=_cell(row, subject_column),
            sender=_cell(row, sender_column),
            meta={"file": path.name, "line": line_no},
        )


def load_csv(
    path: str | Path,
    text_column: str,
    label_column: str,
    label_map: Mapping[str, str | None] | None = None,
    subject_column: str | None = None,
    sender_column: str | None = None,
    *,
    source: str | None = None,
    limit: int | None = None,
) -> list[EmailRecord]:
    """Any CSV with one email body per row.

    ``label_map`` maps cell values to ``PHISHING`` / ``LEGITIMATE`` (or ``None`` to skip the
    row); by default :data:`DEFAULT_LABEL_MAP`. ``source`` defaults to ``csv:<file name>``.
    """
    path = Path(path)
    columns = (text_column, label_column, subject_column, sender_column)
    rows = _csv_rows(path, [c for c in columns if c])
    return _take(
        _table_records(rows, path, columns, label_map, source or f"csv:{path.name}"), limit
    )


def _jsonl_rows(path: Path, required: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each non-blank line; every object must have ``required``."""
    if not path.is_file():
        raise EmailDatasetError(f"{path}: file not found")
    rows = iter_json_objects(path, EmailDatasetError, encoding="utf-8-sig", errors="replace")
    for line_no, row in rows:
        missing = [c for c in required if c not in row]
        if missing:
            raise EmailDatasetError(
                f"{path.name}: line {line_no}: missing column(s) {missing} (have {sorted(row)})"
            )
        yield line_no, row


def load_jsonl_table(
    path: str | Path,
    text_column: str,
    label_column: str,
    label_map: Mapping[str, str | None] | None = None,
    subject_column: str | None = None,
    sender_column: str | None = None,
    *,
    source: str | None = None,
    limit: int | None = None,
) -> list[EmailRecord]:
    """A JSONL file with one email per line, read like :func:`load_csv` (same columns)."""
    path = Path(path)
    columns = (text_column, label_column, subject_column, sender_column)
    rows = _jsonl_rows(path, [c for c in columns if c])
    source = source or f"jsonl:{path.name}"
    return _take(_table_records(rows, path, columns, label_map, source), limit)


# ----------------------------------------------------------------------------- named corpora
def load_nazario_csv(path: str | Path, *, limit: int | None = None) -> list[EmailRecord]:
    """The Nazario phishing corpus as CSV (sender, receiver, date, subject, body, urls, label).

    Every published row is phishing (``label`` 1); a row labelled 0 would be kept as
    legitimate. Bodies are whitespace-collapsed text; ``urls`` (1/0) goes to ``meta``.
    """
    path = Path(path)
    columns = ("sender", "receiver", "date", "subject", "body", "urls", "label")
    binary = {"1": PHISHING, "0": LEGITIMATE}

    def records() -> Iterator[EmailRecord]:
        for line_no, row in _csv_rows(path, columns):
            label = map_label(row["label"], binary, f"{path.name}: line {line_no}: column 'label'")
            if label is None or not row["body"].strip():
                continue
            yield _fields_record(
                record_id=f"nazario:L{line_no}",
                source="nazario",
                label=label,
                body=row["body"],
                subject=row["subject"],
                sender=row["sender"],
                recipient=row["receiver"],
                date=row["date"],
                meta={"file": path.name, "line": line_no, "urls": row["urls"].strip()},
            )

    return _take(records(), limit)


_URL_TLDS = "com|net|org|edu|gov|mil|info|biz|uk|de|fr|ca|au|jp|ru|br|nl|ch|es|mx|cn"
_TOKENISED_URL = re.compile(
    r"\b(?:(?:https?|ftp) : / / |www \. )"
    rf"[\w-]+(?: \. [\w-]+)* \. (?:{_URL_TLDS})(?![\w-])"  # host, up to a known TLD
    r"(?: / [\w-]+(?: \. [a-z]{2,4}(?![\w-]))?)*(?: /(?= ))?",  # path segments, file type
    re.IGNORECASE,
)
"""A URL split into tokens. The host must end in a known TLD (no two-letter English words
such as "to" or "in"), so a sentence-ending `` . `` after the URL stays outside."""


_TOKENISED_FILE = re.compile(
    r"\b([\w-]+) \. (xlsx?|docx?|pptx?|pdf|txt|csv|zip|html?|exe|gif|jpe?g|wpd|rtf)\b",
    re.IGNORECASE,
)
"""A file name split before its extension: ``hplno 407 . xls``."""


_TOKENISED_HYPHEN = re.compile(r"(\w) - (?=\w)")
"""``e - mail``, ``713 - 345``: the tokeniser spaced every hyphen (a few real dashes too)."""


def detokenise(text: str) -> str:
    """Undo what a tokeniser did that :func:`normalize_text` cannot safely undo in general
    (the Enron sample): ``http : / / www . x . com / a`` -> ``http://www.x.com/a``,
    ``a . xls`` -> ``a.xls``, ``e - mail`` -> ``e-mail``."""
    text = _TOKENISED_URL.sub(lambda m: m.group(0).replace(" ", ""), text)
    text = _TOKENISED_FILE.sub(r"\1.\2", text)
    return _TOKENISED_HYPHEN.sub(r"\1-", text)


def load_enron_csv(
    path: str | Path, *, limit: int | None = None, spam: bool = False
) -> list[EmailRecord]:
    """The Enron ham/spam sample (columns ``label`` ham/spam and ``email`` = ``Subject: ...``
    then the body). Ham becomes ``LEGITIMATE``.

    Spam is skipped: unsolicited advertising is not phishing, and calling it either label would
    teach the wrong task. ``spam=True`` returns only the spam rows instead (labelled
    ``LEGITIMATE``, i.e. not phishing), for controls such as "how much advertising does a
    detector call phishing" — never as training or scored data. The text is lower-cased and
    tokenised (``enron ' s``, ``05 / 08 / 2000``); :func:`normalize_text` undoes most of that,
    and :func:`detokenise` re-joins what would be unsafe to join in other sources (split URLs
    and file names, spaced hyphens).
    """
    path = Path(path)
    label_map = {"ham": None, "spam": LEGITIMATE} if spam else {"ham": LEGITIMATE, "spam": None}

    def records() -> Iterator[EmailRecord]:
        for line_no, row in _csv_rows(path, ("label", "email")):
            label = map_label(
                row["label"], label_map, f"{path.name}: line {line_no}: column 'label'"
            )
            first, _, body = row["email"].partition("\n")
            if label is None or not row["email"].strip():
                continue
            subject = ""
            if first.startswith("Subject:"):
                subject = first.removeprefix("Subject:").strip()
            else:
                body = row["email"]
            yield _fields_record(
                record_id=f"enron:L{line_no}",
                source="enron",
                label=label,
                body=detokenise(body),
                subject=detokenise(subject),
                meta={"file": path.name, "line": line_no, "index": row.get("", "")},
            )

    return _take(records(), limit)


def count_enron_spam(path: str | Path) -> int:
    """How many rows of the Enron sample are spam (what `load_enron_csv` leaves out)."""
    path = Path(path)
    return sum(
        row["label"].strip().lower() == "spam" for _, row in _csv_rows(path, ("label", "email"))
    )


# ----------------------------------------------------------------------------------------- mbox
def _mbox_raw(data: bytes) -> str:
    """Bytes as text: UTF-8 if valid, else surrogate-escaped (``parse_message`` undoes that)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


def load_mbox(path: str | Path, label: str, *, limit: int | None = None) -> list[EmailRecord]:
    """Every message of an mbox file, all with ``label``; ``raw`` is the message as stored.

    Bytes that are not UTF-8 (8-bit legacy charsets) are kept as surrogate escapes, which
    ``parse_message`` turns back into the original bytes.
    """
    path = Path(path)
    if label not in (PHISHING, LEGITIMATE):
        raise EmailDatasetError(f"{path.name}: label must be {PHISHING!r} or {LEGITIMATE!r}")
    if not path.is_file():
        raise EmailDatasetError(f"{path}: file not found")
    box = mailbox.mbox(str(path), create=False)
    source = f"mbox:{path.name}"

    def records() -> Iterator[EmailRecord]:
        try:
            for index, key in enumerate(box.iterkeys(), start=1):
                raw = _mbox_raw(box.get_bytes(key))
                view = parse_message(raw)
                yield EmailRecord(
                    id=f"{source}:{index}",
                    raw=raw,
                    label=label,
                    source=source,
                    scenario=label.lower(),
                    group=thread_group(source, view.subject, view.text),
                    meta={"file": path.name, "message": index},
                )
        finally:
            box.close()

    found = _take(records(), limit)
    if not found and limit != 0:
        raise EmailDatasetError(f"{path.name}: no messages found (not an mbox file?)")
    return found


# ------------------------------------------------------------------------------ .eml folders
EML_INDEX = "index.csv"
EML_LABEL_MAP: dict[str, str | None] = {**DEFAULT_LABEL_MAP, "spam": None}
"""An index's label spellings; spam is left out (advertising is not phishing)."""
EML_SUFFIXES = (".eml", ".txt", ".msg")


def _eml_record(file: Path, root: Path, label: str, source: str) -> EmailRecord:
    raw = _mbox_raw(file.read_bytes())
    view = parse_message(raw)
    name = file.relative_to(root).as_posix() if file != root else file.name
    return EmailRecord(
        id=f"{source}:{name}",
        raw=raw,
        label=label,
        source=source,
        scenario=label.lower(),
        group=thread_group(source, view.subject, view.text),
        meta={"file": name},
    )


def _eml_index(root: Path, label_map: Mapping[str, str | None]) -> list[tuple[Path, str | None]]:
    """(file, label) for every row of ``root/index.csv`` (columns ``file`` and ``label``)."""
    index = root / EML_INDEX
    rows: list[tuple[Path, str | None]] = []
    for line_no, row in _csv_rows(index, ("file", "label")):
        where = f"{index}: line {line_no}"
        file = (root / row["file"].strip()).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            raise EmailDatasetError(f"{where}: column 'file': {row['file']!r} is not a file there")
        rows.append((file, map_label(row["label"], label_map, f"{where}: column 'label'")))
    return rows


def eml_files(
    path: str | Path, label: str | None = None, *, spam: bool = False
) -> list[tuple[Path, str]]:
    """(file, label) of an .eml folder: labels from its ``index.csv`` (``file``, ``label``:
    phishing / ham / legitimate / spam; spam is left out, or only spam with ``spam=True``,
    labelled not-phishing for controls), else ``label`` for every ``*.eml`` / ``*.txt`` file
    below it; a single file takes ``label``."""
    root = Path(path).resolve()
    if not root.exists():
        raise EmailDatasetError(f"{path}: not found")
    if root.is_dir() and (root / EML_INDEX).is_file() and label is None:
        only_spam = {**dict.fromkeys(EML_LABEL_MAP), "spam": LEGITIMATE}
        label_map = only_spam if spam else EML_LABEL_MAP
        return [(f, lab) for f, lab in _eml_index(root, label_map) if lab is not None]
    if spam:
        return []
    if label not in (PHISHING, LEGITIMATE):
        raise EmailDatasetError(
            f"{root}: no {EML_INDEX} with file,label columns; give label={PHISHING!r} or "
            f"label={LEGITIMATE!r} for every message"
        )
    if root.is_file():
        return [(root, label)]
    files = sorted(f for f in root.rglob("*") if f.is_file() and f.suffix.lower() in EML_SUFFIXES)
    return [(f, label) for f in files]


def load_eml_dir(
    path: str | Path,
    label: str | None = None,
    *,
    limit: int | None = None,
    spam: bool = False,
    source: str = "eml",
) -> list[EmailRecord]:
    """Raw RFC 5322 messages with full headers, one per file (see :func:`eml_files` for the
    labels); ``raw`` is the file as stored (non-UTF-8 bytes kept as surrogate escapes)."""
    root = Path(path).resolve()
    base = root if root.is_dir() else root.parent
    files = eml_files(root, label, spam=spam)
    found = _take((_eml_record(f, base, lab, source) for f, lab in files), limit)
    if not found and limit != 0 and not spam:
        raise EmailDatasetError(f"{root}: no messages found (no *.eml / *.txt files)")
    return found


def count_eml_spam(path: str | Path) -> int:
    """How many messages of an indexed .eml folder are spam (what `load_eml_dir` leaves out)."""
    return len(eml_files(path, spam=True))


# ---------------------------------------------------------------------------------- Hub tables
def _open_table(
    name_or_path: str, split: str, cache_dir: str | None, data_files: str | None = None
) -> tuple[Any, str]:
    """(dataset, display name) with errors as :class:`EmailDatasetError`."""
    local = Path(name_or_path)
    display = local.name if local.exists() else name_or_path
    try:
        return open_dataset(name_or_path, split, cache_dir, data_files=data_files), display
    except HubDatasetError as exc:
        raise EmailDatasetError(str(exc)) from exc


def _require_columns(ds: Any, display: str, *columns: str) -> None:
    missing = [c for c in columns if c not in ds.column_names]
    if missing:
        raise EmailDatasetError(
            f"{display}: missing required column(s) {missing} (have {ds.column_names})"
        )


def _hub_emails(
    name_or_path: str,
    split: str,
    *,
    source: str,
    text_column: str,
    label_column: str,
    label_map: Mapping[str, str | None],
    keep: Callable[[str], bool] | None = None,
    data_files: str | None = None,
    cache_dir: str | None = None,
) -> Iterator[EmailRecord]:
    ds, display = _open_table(name_or_path, split, cache_dir, data_files)
    _require_columns(ds, display, text_column, label_column)
    for row_no, row in iter_rows(ds):
        where = f"{display}: row {row_no}: column {label_column!r}"
        label = map_label(row[label_column], label_map, where)
        body = _cell(row, text_column)
        if label is None or not body.strip() or (keep is not None and not keep(body)):
            continue
        yield _fields_record(
            record_id=f"{source}:{split}:{row_no}",
            source=source,
            label=label,
            body=body,
            meta={"dataset": display, "split": split, "row": row_no},
        )


def load_zefang_liu(
    path_or_name: str = ZEFANG_LIU_ID,
    split: str = "train",
    *,
    limit: int | None = None,
    cache_dir: str | None = None,
) -> list[EmailRecord]:
    """zefang-liu/phishing-email-dataset: ``Email Text`` / ``Email Type`` (``Phishing Email`` /
    ``Safe Email``). Rows with an empty text are skipped."""
    labels = {"Phishing Email": PHISHING, "Safe Email": LEGITIMATE}
    rows = _hub_emails(
        path_or_name,
        split,
        source="zefang-liu",
        text_column="Email Text",
        label_column="Email Type",
        label_map=labels,
        cache_dir=cache_dir,
    )
    return _take(rows, limit)


def is_pure_url(text: str) -> bool:
    """Whether a row is just one URL / domain (the URL part of mixed corpora), not a message."""
    return bool(_PURE_URL.fullmatch(text.strip()))


def load_ealvaradob(
    path_or_name: str = EALVARADOB_ID,
    split: str = "train",
    *,
    subset: str = "texts",
    include_urls: bool = False,
    limit: int | None = None,
    cache_dir: str | None = None,
) -> list[EmailRecord]:
    """ealvaradob/phishing-dataset: rows ``text`` and ``label`` (1 phishing, 0 legitimate).

    The Hub repository holds one JSON file per subset (``texts`` = emails and SMS, ``urls``,
    ``webs``, ``combined_reduced``, ``combined_full``); ``subset`` picks ``<subset>.json``. A
    local json/jsonl file is read whole. Rows that are a bare URL are skipped unless
    ``include_urls`` (the email task needs messages).
    """
    local = Path(path_or_name).exists()
    rows = _hub_emails(
        path_or_name,
        split,
        source="ealvaradob",
        text_column="text",
        label_column="label",
        label_map={"1": PHISHING, "0": LEGITIMATE},
        keep=None if include_urls else (lambda body: not is_pure_url(body)),
        data_files=None if local else f"{subset}.json",
        cache_dir=cache_dir,
    )
    return _take(rows, limit)


def load_pirocheto_urls(
    path_or_name: str = PIROCHETO_ID,
    split: str = "train",
    *,
    limit: int | None = None,
    cache_dir: str | None = None,
) -> list[tuple[str, str]]:
    """pirocheto/phishing-url: ``(url, label)`` pairs from ``url`` and ``status``
    (``legitimate`` / ``phishing``, or 0 / 1) — for evaluating the URL tool, not emails."""
    ds, display = _open_table(path_or_name, split, cache_dir)
    _require_columns(ds, display, "url", "status")
    labels = {"phishing": PHISHING, "legitimate": LEGITIMATE, "1": PHISHING, "0": LEGITIMATE}
    pairs: list[tuple[str, str]] = []
    for row_no, row in iter_rows(ds):
        if limit is not None and len(pairs) >= limit:
            break
        label = map_label(row["status"], labels, f"{display}: row {row_no}: column 'status'")
        url = _cell(row, "url").strip()
        if not url:
            raise EmailDatasetError(f"{display}: row {row_no}: column 'url': empty URL")
        if label is not None:
            pairs.append((url, label))
    return pairs


__all__ = [
    "DEFAULT_LABEL_MAP",
    "EALVARADOB_ID",
    "PIROCHETO_ID",
    "ZEFANG_LIU_ID",
    "EmailDatasetError",
    "count_enron_spam",
    "detokenise",
    "is_pure_url",
    "load_csv",
    "load_ealvaradob",
    "load_enron_csv",
    "load_jsonl_table",
    "load_mbox",
    "load_nazario_csv",
    "load_pirocheto_urls",
    "load_zefang_liu",
    "looks_like_html",
    "map_label",
    "parse_label_map",
    "thread_group",
]
