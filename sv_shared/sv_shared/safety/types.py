"""Shared types of the safety judges: messages, verdicts, the judge protocol, errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

Message = dict[str, str]
"""One chat message: ``{"role": "system"|"user"|"assistant", "content": str}``."""


class JudgeError(ValueError):
    """A judge cannot give a verdict (bad spec, bad conversation, endpoint failure)."""


@dataclass(frozen=True)
class Verdict:
    """A judge's decision about the last message of a conversation."""

    unsafe: bool
    p_unsafe: float
    categories: tuple[str, ...]
    backend: str

    def __post_init__(self) -> None:
        if not 0.0 <= self.p_unsafe <= 1.0:
            raise JudgeError(f"p_unsafe must be in [0, 1], got {self.p_unsafe!r}")

    def to_dict(self) -> dict:
        """JSON-ready form (categories as a list)."""
        return {
            "unsafe": self.unsafe,
            "p_unsafe": self.p_unsafe,
            "categories": list(self.categories),
            "backend": self.backend,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        """Inverse of :meth:`to_dict`."""
        return cls(
            unsafe=bool(data["unsafe"]),
            p_unsafe=float(data["p_unsafe"]),
            categories=tuple(data.get("categories", ())),
            backend=str(data["backend"]),
        )


@runtime_checkable
class SafetyJudge(Protocol):
    """Judges the LAST message of a conversation; earlier messages are context.

    An assistant message: is this reply unsafe content? A user message: is this request harmful?
    """

    name: str

    def verdict(self, conversation: Sequence[Message]) -> Verdict: ...


def check_conversation(conversation: Sequence[Message]) -> list[Message]:
    """A validated copy of ``conversation``; raises :class:`JudgeError` naming the bad message."""
    if isinstance(conversation, str | bytes) or not conversation:
        raise JudgeError("conversation must be a non-empty list of {role, content} messages")
    checked: list[Message] = []
    for index, message in enumerate(conversation):
        if not isinstance(message, dict):
            raise JudgeError(f"conversation[{index}] is {type(message).__name__}, not a dict")
        role, content = message.get("role"), message.get("content")
        if role not in ("system", "user", "assistant"):
            raise JudgeError(
                f"conversation[{index}]: role must be system/user/assistant, got {role!r}"
            )
        if not isinstance(content, str):
            raise JudgeError(f"conversation[{index}]: content must be a string")
        checked.append({"role": role, "content": content})
    return checked
