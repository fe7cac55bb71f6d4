"""On-disk cache for built-in datasets that are generated (and labelled) on load.

A generated dataset is a pure function of the generator's code and data files, the versions of
the tools that label it, and the load's arguments. `cached_rows` keys an entry by the sha256 of
all of them (`tree_hash` of the generator's package directory, plus whatever the caller adds)
and stores the rows as JSON under the cache directory:

* ``$SV_CACHE_DIR/datasets`` if ``SV_CACHE_DIR`` is set, else
  ``$XDG_CACHE_HOME/security-verifiers/datasets`` (default ``~/.cache/...``);
* ``SV_DATASET_CACHE=0`` turns the cache off (always rebuild, write nothing).

Writers are safe under concurrency: each writes a private temp file in the entry's directory
and renames it into place (atomic on POSIX), so readers see a complete entry or none, and two
processes building the same entry at once both succeed (last rename wins; the contents are
equal). An unreadable entry (truncated by a crash, edited by hand) is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

CACHE_DIR_ENV = "SV_CACHE_DIR"
DISABLE_ENV = "SV_DATASET_CACHE"
FORMAT = 1
"""Bumped when the entry layout changes (part of every key)."""
log = logging.getLogger(__name__)


def cache_root() -> Path:
    """The user cache directory of the project (see the module docstring)."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "security-verifiers"


def enabled() -> bool:
    return os.environ.get(DISABLE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def tree_hash(*roots: Path, suffixes: Iterable[str] | None = None) -> str:
    """sha256 over the relative paths and bytes of every file under `roots` (sorted;
    ``__pycache__`` and dot-files left out; only `suffixes` when given)."""
    wanted = tuple(suffixes) if suffixes is not None else None
    digest = hashlib.sha256()
    for root in roots:
        root = Path(root)
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            rel = path.name if path == root else path.relative_to(root).as_posix()
            if "__pycache__" in rel.split("/") or any(p.startswith(".") for p in rel.split("/")):
                continue
            if wanted is not None and not rel.endswith(wanted):
                continue
            digest.update(rel.encode())
            digest.update(b"\x00")
            digest.update(path.read_bytes())
            digest.update(b"\x00")
    return digest.hexdigest()


def entry_key(key: Mapping[str, Any]) -> str:
    """The sha256 naming an entry: canonical JSON of `key` (and the cache format)."""
    text = json.dumps({"format": FORMAT, **key}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def entry_path(name: str, key: Mapping[str, Any]) -> Path:
    return cache_root() / "datasets" / name / f"{entry_key(key)}.json"


def _read(path: Path) -> list[Any] | None:
    try:
        with path.open(encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("dataset cache entry %s is unreadable (%s); rebuilding", path, exc)
        return None
    rows = data.get("rows") if isinstance(data, dict) else None
    return rows if isinstance(rows, list) else None


def _write(path: Path, key: Mapping[str, Any], rows: list[Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "rows": rows}, fh, default=str)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:  # a read-only or full disk costs speed, never the load
        log.warning("cannot write dataset cache entry %s: %s", path, exc)


def cached_rows(
    name: str, key: Mapping[str, Any], build: Callable[[], list[Any]]
) -> tuple[list[Any], bool]:
    """(rows, read from the cache): the entry for `key` if present, else `build()` stored.

    `key` must hold everything the rows depend on (JSON-able); `build` returns JSON-able rows.
    """
    if not enabled():
        return build(), False
    path = entry_path(name, key)
    rows = _read(path)
    if rows is not None:
        return rows, True
    rows = build()
    _write(path, key, rows)
    return rows, False
