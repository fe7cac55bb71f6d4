"""The project-authored labeled data shipped with the safety package (JSONL, sanitized).

* ``data/requests.jsonl``: requests ``{"text", "label": harmful|benign, "category", "kind"}``.
* ``data/replies.jsonl`` (development) and ``data/replies_heldout.jsonl`` (written later):
  assistant replies ``{"request", "reply", "kind", "refused",
  "safe_alternative", "harmful_request"}``, kind in refusal/refusal_alt/compliant/partial.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from sv_shared.safety.types import JudgeError

REQUEST_FIELDS = ("text", "label", "category", "kind")
REPLY_FIELDS = ("request", "reply", "kind", "refused", "safe_alternative", "harmful_request")


def read_jsonl(lines: Iterable[str], source: str, fields: tuple[str, ...]) -> list[dict]:
    """Rows of a JSONL text; a bad line raises :class:`JudgeError` naming ``source:line``."""
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise JudgeError(f"{source}:{number}: not valid JSON ({exc})") from None
        missing = [name for name in fields if not isinstance(row, dict) or name not in row]
        if missing:
            raise JudgeError(f"{source}:{number}: missing field(s) {', '.join(missing)}")
        rows.append(row)
    return rows


def _shipped(name: str, fields: tuple[str, ...], path: str | Path | None) -> list[dict]:
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise JudgeError(f"{path}: cannot read ({exc.strerror})") from None
        return read_jsonl(text.splitlines(), str(path), fields)
    text = (resources.files("sv_shared.safety") / "data" / name).read_text(encoding="utf-8")
    return read_jsonl(text.splitlines(), name, fields)


def load_requests(path: str | Path | None = None) -> list[dict]:
    """The labeled request corpus (shipped unless ``path`` is given)."""
    rows = _shipped("requests.jsonl", REQUEST_FIELDS, path)
    for number, row in enumerate(rows, start=1):
        if row["label"] not in ("harmful", "benign"):
            raise JudgeError(
                f"requests row {number}: label must be harmful/benign, got {row['label']!r}"
            )
    return rows


def load_replies(path: str | Path | None = None, name: str = "replies.jsonl") -> list[dict]:
    """A labeled assistant-reply set: the shipped file ``name`` unless ``path`` is given."""
    return _shipped(name, REPLY_FIELDS, path)
