"""What E6 stores of a rollout: the whole conversation, judged-unsafe replies as hashes.

A reply is flagged for storage when the judge called it unsafe (on the whole reply or on a
refusal's remainder) or when it was scored as harmful compliance (`TurnJudgment.flagged`);
when judging failed, every reply is. Flagged contents become ``{sha256, chars, categories}``
(`sv_shared.safety.redact_conversation`) in `state["transcript"]`, and a
``[redacted] {...}`` string in the completion, unless the environment keeps raw text
(`keep_raw_unsafe=true`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sv_shared.safety import redact_conversation

from .judging import TurnJudgment, message_role, message_text

REDACTED_PREFIX = "[redacted] "
"""Stored in place of a flagged reply, followed by {"sha256", "chars", "categories"} JSON."""
UNJUDGED = {"unsafe": True, "p_unsafe": 1.0, "categories": [], "backend": "unjudged"}
"""Stand-in verdict that redacts every reply of an episode whose judging failed."""


def plain_messages(messages: Any) -> list[dict[str, Any]]:
    """`{role, content}` copies of chat messages (a bare string is one user message)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    return [{"role": message_role(m), "content": message_text(m)} for m in messages or []]


def flagged_positions(
    completion: Sequence[Any], judgments: list[TurnJudgment] | None
) -> dict[int, dict[str, Any]]:
    """Completion index -> verdict dict of every reply to redact (all of them when
    `judgments` is None: judging failed)."""
    positions = [i for i, m in enumerate(completion) if message_role(m) == "assistant"]
    if judgments is None:
        return dict.fromkeys(positions, UNJUDGED)
    return {
        positions[j.index]: verdict.to_dict()
        for j in judgments
        if (verdict := j.flagged) is not None and j.index < len(positions)
    }


def build_transcript(
    prompt: Any, completion: Sequence[Any], judgments: list[TurnJudgment] | None, keep_raw: bool
) -> list[dict[str, Any]]:
    """The prompt and the completion as plain messages, flagged replies redacted."""
    flagged = flagged_positions(completion, judgments)
    tail = redact_conversation(plain_messages(completion), flagged, keep_raw=keep_raw)
    return plain_messages(prompt) + tail


def redact_completion(completion: list[Any], judgments: list[TurnJudgment] | None) -> int:
    """Replace, in place, each flagged assistant message by a hash record; returns how many."""
    flagged = flagged_positions(completion, judgments)
    if not flagged:
        return 0
    redacted = redact_conversation(plain_messages(completion), flagged)
    for position in flagged:
        record = json.dumps(redacted[position]["content"], sort_keys=True)
        completion[position]["content"] = REDACTED_PREFIX + record
    return len(flagged)
