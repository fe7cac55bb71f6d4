"""Reading row files (JSONL objects, CSV with required columns) with one-line errors.

Every error is raised as the caller's error class, with a message that names the file and,
where there is one, the line: ``<path>:<line>: invalid JSON (...)``. Opening the file is left
to :func:`open`, so a missing or unreadable file raises the usual :class:`OSError`; callers
that want their own message for that check or catch it themselves.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import IO, Any

_UTF8 = {"utf-8", "utf8", "utf-8-sig", "utf_8", "utf_8_sig"}
_HEADER_SHOWN = 12


def iter_json_objects(
    path: str | Path,
    error: type[Exception] = ValueError,
    *,
    encoding: str = "utf-8",
    errors: str = "strict",
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSONL file (lines count from 1).

    A line that is not JSON, or not a JSON object, raises ``error("<path>:<line>: ...")``;
    undecodable text raises ``error("<path>: not UTF-8 text (...)")``.
    """
    file = Path(path)
    with file.open(encoding=encoding, errors=errors) as handle:
        try:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise error(f"{file}:{line_no}: invalid JSON ({exc.msg})") from None
                if not isinstance(row, dict):
                    raise error(
                        f"{file}:{line_no}: expected a JSON object, got {type(row).__name__}"
                    )
                yield line_no, row
        except UnicodeDecodeError as exc:
            name = "UTF-8" if encoding.lower() in _UTF8 else encoding
            raise error(f"{file}: not {name} text ({exc.reason})") from None


def csv_dict_reader(
    handle: IO[str],
    required: Collection[str],
    source: str | Path,
    error: type[Exception] = ValueError,
    *,
    hint: str = "",
) -> csv.DictReader[str]:
    """A :class:`csv.DictReader` over ``handle`` whose header has every ``required`` column.

    A missing column raises ``error("<source>:1: missing column(s) [...]<hint>; the header has
    [...]")`` (``hint`` follows the list of missing columns).
    """
    reader = csv.DictReader(handle)
    header = list(reader.fieldnames or [])
    missing = [column for column in required if column not in header]
    if missing:
        shown = str(header[:_HEADER_SHOWN])
        if len(header) > _HEADER_SHOWN:
            shown = f"{shown[:-1]}, ...] ({len(header)} columns)"
        raise error(f"{source}:1: missing column(s) {missing}{hint}; the header has {shown}")
    return reader
