"""JSONL writing with one canonical form (sorted keys), so file hashes are reproducible."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def canonical_line(row: Mapping[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(canonical_line(row) + "\n")
            count += 1
    return count


def append_jsonl(path: Path, row: Mapping[str, Any]) -> None:
    """Append one row and flush, so an interrupted run keeps everything written so far."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(canonical_line(row) + "\n")
        handle.flush()
