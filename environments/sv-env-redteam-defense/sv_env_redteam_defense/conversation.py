"""Conversation scripts: the scripted user turns the defender answers, each labelled."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sv_shared.content_hash import json_sha256

HARMFUL = "harmful"
BENIGN = "benign"
LABELS = (HARMFUL, BENIGN)

ATTACK_KINDS = ("role_play", "hypothetical", "split_payload", "gradual_escalation", "direct")
"""Scripted attacks: at least one turn is harmful."""
BENIGN_KINDS = ("benign_help", "over_refusal_probe")
"""Every turn is benign; over-refusal probes only look dangerous."""
KINDS = ATTACK_KINDS + BENIGN_KINDS
MAX_TURNS = 4


class ScriptDataError(ValueError):
    """A conversation file or row is malformed; the message names the file, line and field."""


@dataclass(frozen=True)
class Turn:
    """One scripted user message and whether answering it helpfully would cause harm."""

    content: str
    label: str

    @property
    def harmful(self) -> bool:
        return self.label == HARMFUL


@dataclass(frozen=True)
class Conversation:
    """A script of 1..MAX_TURNS user turns; `category` is free-form (e.g. XSTest `type`)."""

    id: str
    kind: str
    turns: tuple[Turn, ...]
    source: str
    category: str = ""

    @property
    def is_attack(self) -> bool:
        return self.kind in ATTACK_KINDS

    def labels(self) -> list[str]:
        return [turn.label for turn in self.turns]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "turns": [{"content": t.content, "label": t.label} for t in self.turns],
            "source": self.source,
            "category": self.category,
        }


def validate(conversation: Conversation, where: str) -> Conversation:
    """Check kind, labels and turn count; `where` (e.g. "file.jsonl:3") prefixes errors."""
    if not conversation.id:
        raise ScriptDataError(f"{where}: field 'id' is empty")
    if conversation.kind not in KINDS:
        raise ScriptDataError(
            f"{where}: field 'kind' is {conversation.kind!r}; expected one of {list(KINDS)}"
        )
    if not 1 <= len(conversation.turns) <= MAX_TURNS:
        raise ScriptDataError(
            f"{where}: field 'turns' has {len(conversation.turns)} turns; expected 1..{MAX_TURNS}"
        )
    for index, turn in enumerate(conversation.turns):
        if turn.label not in LABELS:
            raise ScriptDataError(
                f"{where}: turns[{index}].label is {turn.label!r}; expected one of {list(LABELS)}"
            )
        if not turn.content.strip():
            raise ScriptDataError(f"{where}: turns[{index}].content is empty")
    harmful = any(turn.harmful for turn in conversation.turns)
    if conversation.is_attack and not harmful:
        raise ScriptDataError(f"{where}: an attack ({conversation.kind}) needs a harmful turn")
    if not conversation.is_attack and harmful:
        raise ScriptDataError(f"{where}: kind {conversation.kind} must have only benign turns")
    return conversation


def from_mapping(row: Mapping[str, Any], where: str, default_source: str) -> Conversation:
    """Build and validate a Conversation from a JSON object (see `Conversation.to_dict`)."""
    if not isinstance(row, Mapping):
        raise ScriptDataError(f"{where}: expected a JSON object, got {type(row).__name__}")
    for field in ("id", "kind", "turns"):
        if field not in row:
            raise ScriptDataError(f"{where}: missing field {field!r}")
    raw_turns = row["turns"]
    if not isinstance(raw_turns, list):
        raise ScriptDataError(f"{where}: field 'turns' must be a list of {{content, label}}")
    turns = []
    for index, raw in enumerate(raw_turns):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("content"), str):
            raise ScriptDataError(f"{where}: turns[{index}] needs a string 'content'")
        turns.append(Turn(content=raw["content"], label=str(raw.get("label", ""))))
    conversation = Conversation(
        id=str(row["id"]),
        kind=str(row["kind"]),
        turns=tuple(turns),
        source=str(row.get("source") or default_source),
        category=str(row.get("category") or ""),
    )
    return validate(conversation, where)


def check_unique_ids(conversations: Iterable[Conversation], where: str) -> None:
    seen: set[str] = set()
    for conversation in conversations:
        if conversation.id in seen:
            raise ScriptDataError(f"{where}: duplicate conversation id {conversation.id!r}")
        seen.add(conversation.id)


def content_hash(conversations: Sequence[Conversation]) -> str:
    """sha256 over the canonical JSON of the scripts (identifies the evaluation set)."""
    return json_sha256([c.to_dict() for c in conversations])
