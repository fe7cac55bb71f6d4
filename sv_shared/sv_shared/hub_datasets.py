"""Open tabular datasets with Hugging Face ``datasets``: a Hub id or a local file/directory.

Shared by the environments' loaders so that every source goes through one code path and
fails with one kind of clear error (:class:`HubDatasetError`, naming the file or Hub id).
``datasets`` is imported lazily: it is heavy and only these loaders need it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

LOCAL_BUILDERS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".json": "json",
    ".jsonl": "json",
    ".arrow": "arrow",
}
"""File suffix -> ``datasets`` builder used for local data files."""

_HUB_ID = re.compile(r"[\w.-]+/[\w.-]+")


class HubDatasetError(ValueError):
    """A dataset that cannot be opened; the message names the file or Hub id."""


def load_local_dataset(local: Path, split: str, cache_dir: str | None = None) -> Any:
    """A ``datasets.Dataset`` from a local data file or directory.

    A ``save_to_disk`` dataset dict gives its ``split``; a saved single dataset is returned
    whole; otherwise every csv/tsv/parquet/json(l)/arrow file (one kind only) is read as one
    table (``split`` does not apply).
    """
    import datasets

    if local.is_dir() and (local / "dataset_dict.json").exists():
        saved = datasets.load_from_disk(str(local))
        if split not in saved:
            raise HubDatasetError(f"{local.name}: no split {split!r} (have {sorted(saved)})")
        return saved[split]
    if local.is_dir() and (local / "dataset_info.json").exists():
        return datasets.load_from_disk(str(local))
    files = [local] if local.is_file() else sorted(p for p in local.rglob("*") if p.is_file())
    data_files = [str(p) for p in files if p.suffix.lower() in LOCAL_BUILDERS]
    kinds = {LOCAL_BUILDERS[Path(f).suffix.lower()] for f in data_files}
    if len(kinds) != 1:
        raise HubDatasetError(f"{local.name}: expected csv/tsv/parquet/json(l)/arrow data files")
    extra = {"delimiter": "\t"} if all(f.endswith(".tsv") for f in data_files) else {}
    try:
        return datasets.load_dataset(
            kinds.pop(), data_files=data_files, split="train", cache_dir=cache_dir, **extra
        )
    except Exception as exc:
        if _without_rows(data_files):
            raise HubDatasetError(
                f"{local.name}: no rows (the file is empty or holds only a header)"
            ) from None
        raise HubDatasetError(f"{local.name}: cannot read local data: {exc}") from exc


def _without_rows(data_files: Sequence[str]) -> bool:
    """Every text data file is empty or (csv/tsv) a header line alone."""
    for name in data_files:
        kind = LOCAL_BUILDERS[Path(name).suffix.lower()]
        if kind not in ("csv", "json"):
            return False
        try:
            with open(name, "rb") as handle:
                lines = [line for line in handle.read(1 << 20).splitlines() if line.strip()]
        except OSError:
            return False
        if len(lines) > (1 if kind == "csv" else 0):
            return False
    return True


def open_dataset(
    name_or_path: str,
    split: str,
    cache_dir: str | None = None,
    revision: str | None = None,
    data_files: str | Sequence[str] | None = None,
) -> Any:
    """A ``datasets.Dataset`` from a local file/directory or a Hub dataset id.

    An existing path is read with :func:`load_local_dataset`. Otherwise ``name_or_path`` must
    look like ``owner/name``; ``data_files`` then picks files inside the Hub repository. Any
    failure (absent file, offline hub, unknown split) is a :class:`HubDatasetError`.
    """
    import datasets

    local = Path(name_or_path)
    if local.exists():
        return load_local_dataset(local, split, cache_dir)
    if not _HUB_ID.fullmatch(name_or_path) or local.suffix in LOCAL_BUILDERS:
        raise HubDatasetError(f"{name_or_path}: file not found (and not a Hugging Face Hub id)")
    extra = {"data_files": data_files} if data_files is not None else {}
    try:
        return datasets.load_dataset(
            name_or_path, split=split, cache_dir=cache_dir, revision=revision, **extra
        )
    except Exception as exc:
        raise HubDatasetError(
            f"{name_or_path}: cannot load from the Hugging Face Hub - the hub is offline or "
            f"unreachable, or the dataset/split is unavailable ({type(exc).__name__}: {exc}). "
            "Download it while online or pass a local csv/parquet/json file or directory."
        ) from exc


def iter_rows(ds: Any, batch_size: int = 10_000) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row_no, row)`` for every row of ``ds``, 1-based, read in batches (fast)."""
    row_no = 0
    for batch in ds.iter(batch_size=batch_size):
        columns = list(batch)
        for values in zip(*(batch[c] for c in columns), strict=True):
            row_no += 1
            yield row_no, dict(zip(columns, values, strict=True))


__all__ = [
    "LOCAL_BUILDERS",
    "HubDatasetError",
    "iter_rows",
    "load_local_dataset",
    "open_dataset",
]
