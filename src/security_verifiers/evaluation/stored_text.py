"""How much of a model's reply a results.jsonl record keeps.

Scoring always sees the whole reply; only the stored copy is cut. A record whose reply was cut
has `completion_truncated: true`, `completion_chars` (the whole reply's length) and
`completion_sha256` (of the whole reply, UTF-8); other fields cut (the parsed answer, state
columns such as `transcript`) are listed in `truncated_fields`. Records of replies within the
cap are unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from typing import Any

STORED_TEXT_CAP_CHARS = 64 * 1024
"""The most characters of one text (the reply, or a string of the parsed answer or a state
column) a results.jsonl record stores. Run metadata records it as `stored_reply_cap_chars`."""


def cap_text(value: Any, cap: int = STORED_TEXT_CAP_CHARS) -> tuple[Any, bool]:
    """`value` with every string in it (through dicts, lists and tuples) cut to `cap`
    characters, and whether anything was cut."""
    if isinstance(value, str):
        return (value[:cap], True) if len(value) > cap else (value, False)
    if isinstance(value, Mapping):
        items = [(key, *cap_text(item, cap)) for key, item in value.items()]
        if not any(cut for _, _, cut in items):
            return value, False
        return {key: item for key, item, _ in items}, True
    if isinstance(value, list | tuple):
        parts = [cap_text(item, cap) for item in value]
        if not any(cut for _, cut in parts):
            return value, False
        return [item for item, _ in parts], True
    return value, False


def cap_stored_text(
    row: dict[str, Any], state_columns: Collection[str] = (), cap: int = STORED_TEXT_CAP_CHARS
) -> dict[str, Any]:
    """`row` (a results.jsonl record) with its reply, parsed answer, parse error and state
    columns cut to `cap` characters per string (module docstring)."""
    text = row.get("completion")
    if isinstance(text, str) and len(text) > cap:
        row["completion"] = text[:cap]
        row["completion_truncated"] = True
        row["completion_chars"] = len(text)
        row["completion_sha256"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    cut_fields = []
    for name in ("parsed", "parse_error", *state_columns):
        if name in row:
            row[name], cut = cap_text(row[name], cap)
            if cut:
                cut_fields.append(name)
    if cut_fields:
        row["truncated_fields"] = cut_fields
    return row
