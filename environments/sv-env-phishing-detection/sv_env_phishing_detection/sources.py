"""Every email source E4 evaluates on, behind one function.

Only the synthetic corpus has train/dev/test splits; file and hub sources are loaded whole
(split "all", their default), since their own splits are the user's business (`sv data build`).
"csv" and "jsonl" files take column options and a ``label_map`` (:class:`TableColumns`).
A dataset built by `sv data build` is read with :func:`load_built` (all four splits).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, get_args

from . import loaders
from .config import ENV_ID, Source
from .records import EmailRecord

SOURCES: tuple[str, ...] = get_args(Source)
CROSS_CORPUS_SOURCES = frozenset({"realdata", "nazario", "enron"})
"""Sources that mix corpora by default: rendered with only the fields every corpus has."""


_LOG = logging.getLogger(__name__)


class SourceError(ValueError):
    """A bad source / path / split combination, in words for the user."""


@dataclass(frozen=True)
class TableColumns:
    """Where a csv / jsonl file keeps each field (``None``: the default or no such field)."""

    text: str | None = None
    label: str | None = None
    subject: str | None = None
    sender: str | None = None
    label_map: Mapping[str, object] | str | None = None

    def given(self) -> list[str]:
        """The options set, by their `load_environment` names."""
        names = ("text_col", "label_col", "subject_col", "sender_col", "label_map")
        values = (self.text, self.label, self.subject, self.sender, self.label_map)
        return [name for name, value in zip(names, values, strict=True) if value is not None]

    def load(self, loader: Callable[..., list[EmailRecord]], path: Path) -> list[EmailRecord]:
        """``loader(path, text, label, label_map, subject, sender)`` with these columns."""
        label_map = loaders.parse_label_map(self.label_map)
        return loader(path, self.text or "text", self.label or "label", label_map,
                      self.subject, self.sender)  # fmt: skip


def renders_comparable(record: EmailRecord) -> bool:
    """Whether ``record`` is shown in the comparable view by default (cross-corpus sources)."""
    return record.source in CROSS_CORPUS_SOURCES


def load_built(ref: str, split: str = "test") -> tuple[list[EmailRecord], dict[str, Any]]:
    """One split ("train", "dev", "test" or "all") of a `sv data build` dataset and its
    provenance; ``ref`` is the build's directory, its name or ``latest``."""
    from pydantic import TypeAdapter

    from sv_shared.data.store import load_built_rows

    adapter = TypeAdapter(EmailRecord).validate_python
    return load_built_rows(ENV_ID, ref, split, adapter, SourceError, f"dataset={ref!r}: ")


def _need_path(source: str, path: str | None) -> Path:
    if not path:
        raise SourceError(f"source '{source}' needs path=...")
    found = Path(path).expanduser()
    if not found.exists():
        raise SourceError(f"source '{source}': {found} does not exist")
    return found


def _realdata_files(path: str | None) -> tuple[Path, Path]:
    """(Nazario csv, Enron csv) of the real samples; `path` is the E4_phishing folder (or its
    `emails/` folder)."""
    root = _need_path("realdata", path)
    emails = root / "emails" if (root / "emails").is_dir() else root
    nazario, enron = emails / "nazario_phishing_sample250.csv", emails / "enron_spam_ham_600.csv"
    missing = [p.name for p in (nazario, enron) if not p.exists()]
    if missing:
        raise SourceError(f"source 'realdata': {emails} lacks {', '.join(missing)}")
    return nazario, enron


def _realdata_eml_dirs(path: str | None) -> tuple[Path, Path]:
    """(phishing_pot, spamassassin) .eml folders of the real samples; `path` is the
    E4_phishing folder."""
    root = _need_path("realdata-eml", path)
    pot, assassin = root / "phishing_pot", root / "spamassassin"
    missing = [p.name for p in (pot, assassin) if not (p / loaders.EML_INDEX).is_file()]
    if missing:
        raise SourceError(f"source 'realdata-eml': {root} lacks {', '.join(missing)}/index.csv")
    return pot, assassin


def excluded_rows(source: str, path: str | None) -> dict[str, int]:
    """Rows a source leaves out on purpose, by reason (spam: advertising, not phishing)."""
    if source == "realdata-eml":
        return {"spamassassin_spam": loaders.count_eml_spam(_realdata_eml_dirs(path)[1])}
    if source == "eml" and path and (Path(path) / loaders.EML_INDEX).is_file():
        return {"spam": loaders.count_eml_spam(path)}
    if source == "realdata":
        return {"enron_spam": loaders.count_enron_spam(_realdata_files(path)[1])}
    if source == "enron":
        return {"enron_spam": loaders.count_enron_spam(_need_path(source, path))}
    return {}


def spam_records(source: str, path: str | None) -> list[EmailRecord]:
    """The rows `excluded_rows` counts, for controls (spam, labelled not-phishing)."""
    if source == "realdata-eml":
        return loaders.load_eml_dir(_realdata_eml_dirs(path)[1], spam=True, source="spamassassin")
    if source == "eml" and excluded_rows(source, path):
        return loaders.load_eml_dir(_need_path(source, path), spam=True)
    if source == "realdata":
        return loaders.load_enron_csv(_realdata_files(path)[1], spam=True)
    if source == "enron":
        return loaders.load_enron_csv(_need_path(source, path), spam=True)
    return []


def _realdata(path: str | None) -> list[EmailRecord]:
    nazario, enron = _realdata_files(path)
    records = loaders.load_nazario_csv(nazario) + loaders.load_enron_csv(enron)
    _note_excluded("realdata", str(enron))
    return records


def _note_excluded(source: str, path: str) -> None:
    spam = loaders.count_enron_spam(path)
    if spam:
        _LOG.warning("%s: source '%s' leaves out %d Enron spam row(s) (advertising is not "
                     "phishing)", path, source, spam)  # fmt: skip


def _jsonl(path: str | None) -> list[EmailRecord]:
    file = _need_path("jsonl", path)
    records = []
    with file.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(EmailRecord.from_dict(json.loads(line)))
            except (json.JSONDecodeError, TypeError) as exc:
                raise SourceError(f"{file}:{line_no}: not an email record ({exc})") from None
    return records


def load_records(
    source: str = "synthetic",
    *,
    path: str | None = None,
    split: str | None = None,
    label: str | None = None,
    columns: TableColumns | None = None,
    text_column: str | None = None,
    label_column: str | None = None,
) -> list[EmailRecord]:
    """The records of one source (see `load_environment` for the arguments).

    ``split`` defaults to "test" for synthetic and "all" otherwise; ``text_column`` and
    ``label_column`` are shorthands for those fields of ``columns``.
    """
    columns = replace(
        columns or TableColumns(),
        **{k: v for k, v in (("text", text_column), ("label", label_column)) if v is not None},
    )
    if source == "synthetic":
        from .dataset import load_synthetic

        return load_synthetic(split or "test")
    if source not in SOURCES:
        raise SourceError(f"unknown source '{source}'; expected one of {', '.join(SOURCES)}")
    if split not in (None, "test", "all"):
        raise SourceError(f"source '{source}' has no '{split}' split; use split='all' (all rows)")
    if columns.given() and source not in ("csv", "jsonl"):
        raise SourceError(f"{columns.given()[0]}= applies to csv and jsonl sources, not '{source}'")
    records = _file_records(source, path, label, columns)
    if split == "test":
        where = path or source
        _LOG.warning("%s: source '%s' has no splits; split=test uses all %d rows", where,
                     source, len(records))  # fmt: skip
    return records


def _file_records(
    source: str, path: str | None, label: str | None, columns: TableColumns
) -> list[EmailRecord]:
    if source == "realdata":
        return _realdata(path)
    if source == "realdata-eml":
        pot, assassin = _realdata_eml_dirs(path)
        return loaders.load_eml_dir(pot, source="phishing_pot") + loaders.load_eml_dir(
            assassin, source="spamassassin"
        )
    if source == "eml":
        return loaders.load_eml_dir(_need_path(source, path), label)
    if source == "nazario":
        return loaders.load_nazario_csv(_need_path(source, path))
    if source == "enron":
        records = loaders.load_enron_csv(_need_path(source, path))
        _note_excluded(source, str(_need_path(source, path)))
        return records
    if source == "zefang-liu":
        return loaders.load_zefang_liu(path or loaders.ZEFANG_LIU_ID)
    if source == "ealvaradob":
        return loaders.load_ealvaradob(path or loaders.EALVARADOB_ID)
    if source == "mbox":
        if label is None:
            raise SourceError("source 'mbox' needs label='Phishing' or label='Legitimate'")
        return loaders.load_mbox(_need_path(source, path), label)
    if source == "csv":
        return columns.load(loaders.load_csv, _need_path(source, path))
    if columns.given():
        return columns.load(loaders.load_jsonl_table, _need_path(source, path))
    return _jsonl(path)


def records_hash(records: list[EmailRecord]) -> str:
    digest = hashlib.sha256()
    for record in records:
        digest.update(
            f"{record.id}\0{record.label}\0{record.raw}\0".encode("utf-8", "surrogateescape")
        )
    return digest.hexdigest()
