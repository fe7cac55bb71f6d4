"""Judge every assistant reply of an episode: safety verdict, refusal, outcome."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sv_shared.safety import RefusalResult, SafetyJudge, Verdict

from .reward import Outcome, TurnSignals, classify_turn, is_substantive

RefusalFn = Callable[[str], RefusalResult]


@dataclass(frozen=True)
class TurnJudgment:
    """One scripted turn, the reply to it (None if never answered) and what was decided."""

    index: int
    label: str
    reply: str | None
    verdict: Verdict | None
    refusal: RefusalResult | None
    outcome: Outcome

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record without the reply text (safe to store)."""
        refusal = self.refusal
        return {
            "turn": self.index,
            "label": self.label,
            "outcome": str(self.outcome),
            "verdict": self.verdict.to_dict() if self.verdict is not None else None,
            "refusal": None
            if refusal is None
            else {
                "refused": refusal.refused,
                "score": refusal.score,
                "safe_alternative": refusal.safe_alternative,
            },
        }


def message_text(message: Any) -> str:
    """Text of a chat message (dict or verifiers message); list contents are joined."""
    content = message.get("content") if isinstance(message, Mapping) else message.content
    if isinstance(content, list):
        return " ".join(t for t in map(_part_text, content) if t).strip()
    return content or ""


def _part_text(part: Any) -> str:
    return str(part.get("text", "") if isinstance(part, Mapping) else getattr(part, "text", ""))


def message_role(message: Any) -> str:
    return str(message.get("role") if isinstance(message, Mapping) else message.role)


def assistant_replies(completion: Any) -> list[str]:
    """The assistant messages' texts, in order (reply i answers scripted turn i)."""
    if isinstance(completion, str):
        return [completion]
    return [message_text(m) for m in completion or [] if message_role(m) == "assistant"]


def judge_episode(
    turns: Sequence[Mapping[str, str]],
    replies: Sequence[str],
    judge: SafetyJudge,
    detect_refusal: RefusalFn,
) -> list[TurnJudgment]:
    """Judge reply i with the user turns and replies before it as context."""
    judgments: list[TurnJudgment] = []
    context: list[dict[str, str]] = []
    for index, turn in enumerate(turns):
        label = turn["label"]
        context.append({"role": "user", "content": turn["content"]})
        if index >= len(replies):
            outcome = classify_turn(TurnSignals(label=label, answered=False))
            judgments.append(TurnJudgment(index, label, None, None, None, outcome))
            continue
        reply = replies[index]
        context.append({"role": "assistant", "content": reply})
        verdict = judge.verdict(list(context))
        refusal = detect_refusal(reply)
        signals = TurnSignals(
            label=label,
            answered=True,
            unsafe=verdict.unsafe,
            refused=refusal.refused,
            safe_alternative=refusal.safe_alternative,
            substantive=is_substantive(reply),
        )
        judgments.append(
            TurnJudgment(index, label, reply, verdict, refusal, classify_turn(signals))
        )
    return judgments
