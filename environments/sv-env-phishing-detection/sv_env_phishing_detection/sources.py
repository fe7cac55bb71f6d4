"""Every email source E4 evaluates on, behind one function.

Only the synthetic corpus has train/dev/test splits; file and hub sources are loaded whole
(split "test" or "all"), since their own splits are the user's business (`sv data build`).
A dataset built by `sv data build` is read with :func:`load_built` (all four splits).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from . import ENV_ID, loaders
from .records import EmailRecord

SOURCES = ("synthetic", "realdata", "nazario", "enron", "zefang-liu", "ealvaradob", "mbox",
           "csv", "jsonl")  # fmt: skip
CROSS_CORPUS_SOURCES = frozenset({"realdata", "nazario", "enron"})
"""Sources that mix corpora by default: rendered with only the fields every corpus has."""


class SourceError(ValueError):
    """A bad source / path / split combination, in words for the user."""


def renders_comparable(record: EmailRecord) -> bool:
    """Whether ``record`` is shown in the comparable view by default (cross-corpus sources)."""
    return record.source in CROSS_CORPUS_SOURCES


def load_built(ref: str, split: str = "test") -> tuple[list[EmailRecord], dict[str, Any]]:
    """One split ("train", "dev", "test" or "all") of a `sv data build` dataset and its
    provenance; ``ref`` is the build's directory, its name or ``latest``."""
    from pydantic import TypeAdapter

    from sv_shared.data.store import DatasetStoreError, load_built_split

    try:
        built = load_built_split(ENV_ID, ref, split, TypeAdapter(EmailRecord).validate_python)
    except DatasetStoreError as exc:
        raise SourceError(f"dataset={ref!r}: {exc}") from None
    return list(built.rows), built.info


def _need_path(source: str, path: str | None) -> Path:
    if not path:
        raise SourceError(f"source '{source}' needs path=...")
    found = Path(path).expanduser()
    if not found.exists():
        raise SourceError(f"source '{source}': {found} does not exist")
    return found


def _realdata(path: str | None) -> list[EmailRecord]:
    """`path` is the E4_phishing folder (or its `emails/` folder) of the real samples."""
    root = _need_path("realdata", path)
    emails = root / "emails" if (root / "emails").is_dir() else root
    nazario, enron = emails / "nazario_phishing_sample250.csv", emails / "enron_spam_ham_600.csv"
    missing = [p.name for p in (nazario, enron) if not p.exists()]
    if missing:
        raise SourceError(f"source 'realdata': {emails} lacks {', '.join(missing)}")
    return loaders.load_nazario_csv(nazario) + loaders.load_enron_csv(enron)


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
    split: str = "test",
    label: str | None = None,
    text_column: str = "text",
    label_column: str = "label",
) -> list[EmailRecord]:
    """The records of one source (see `load_environment` for the arguments)."""
    if source == "synthetic":
        from .dataset import load_synthetic

        return load_synthetic(split)
    if source not in SOURCES:
        raise SourceError(f"unknown source '{source}'; expected one of {', '.join(SOURCES)}")
    if split not in ("test", "all"):
        raise SourceError(f"source '{source}' has no '{split}' split; use split='test' (all rows)")
    if source == "realdata":
        return _realdata(path)
    if source == "nazario":
        return loaders.load_nazario_csv(_need_path(source, path))
    if source == "enron":
        return loaders.load_enron_csv(_need_path(source, path))
    if source == "zefang-liu":
        return loaders.load_zefang_liu(path or loaders.ZEFANG_LIU_ID)
    if source == "ealvaradob":
        return loaders.load_ealvaradob(path or loaders.EALVARADOB_ID)
    if source == "mbox":
        if label is None:
            raise SourceError("source 'mbox' needs label='Phishing' or label='Legitimate'")
        return loaders.load_mbox(_need_path(source, path), label)
    if source == "csv":
        return loaders.load_csv(_need_path(source, path), text_column, label_column)
    return _jsonl(path)


def records_hash(records: list[EmailRecord]) -> str:
    digest = hashlib.sha256()
    for record in records:
        digest.update(f"{record.id}\0{record.label}\0{record.raw}\0".encode())
    return digest.hexdigest()
