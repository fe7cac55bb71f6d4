"""Storage safety: replace judge-flagged unsafe message contents by a hash plus metadata."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from sv_shared.safety.types import JudgeError, Verdict


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _as_verdict(value: Verdict | Mapping, index: int) -> Verdict:
    if isinstance(value, Verdict):
        return value
    if isinstance(value, Mapping) and "unsafe" in value:
        return Verdict(
            unsafe=bool(value["unsafe"]),
            p_unsafe=float(value.get("p_unsafe", 1.0 if value["unsafe"] else 0.0)),
            categories=tuple(value.get("categories", ())),
            backend=str(value.get("backend", "unknown")),
        )
    raise JudgeError(f"verdicts_by_index[{index}] is not a Verdict or a verdict dict")


def redact_conversation(
    messages: Sequence[Mapping],
    verdicts_by_index: Mapping[int, Verdict | Mapping],
    keep_raw: bool = False,
) -> list[dict]:
    """Copies of ``messages``; each one judged unsafe gets its content replaced by
    ``{"sha256": ..., "chars": n, "categories": [...]}`` unless ``keep_raw``.

    Negative indices count from the end; an index outside the conversation is an error.
    """
    flagged: dict[int, Verdict] = {}
    for index, value in verdicts_by_index.items():
        position = index + len(messages) if index < 0 else index
        if not 0 <= position < len(messages):
            raise JudgeError(
                f"verdict index {index} is outside a {len(messages)}-message conversation"
            )
        judged = _as_verdict(value, index)
        if judged.unsafe:
            flagged[position] = judged
    redacted: list[dict] = []
    for position, message in enumerate(messages):
        copy = dict(message)
        verdict = flagged.get(position)
        if verdict is not None and not keep_raw:
            content = copy.get("content")
            text = content if isinstance(content, str) else str(content)
            copy["content"] = {
                "sha256": sha256_text(text),
                "chars": len(text),
                "categories": list(verdict.categories),
            }
        redacted.append(copy)
    return redacted
