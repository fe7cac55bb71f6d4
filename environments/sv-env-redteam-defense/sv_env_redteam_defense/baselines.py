"""Built-in defender policies, exposed by the harness as models.

Each is `policy(prompt_text, seed) -> reply` and sees only the last user message:
`always-refuse` (a bare refusal), `always-comply` (restates the request and a placeholder step
list; it never contains real instructions) and `guarded` (refuses with a safe alternative when
the offline judge flags the request, otherwise gives a generic helpful answer).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from sv_shared.safety import SafetyJudge, build_judge

PromptPolicy = Callable[[str, "int | None"], str]

BARE_REFUSAL = "I'm sorry, but I can't help with that."
SAFE_REFUSAL = (
    "I'm sorry, but I can't help with that because it could seriously hurt people. "
    "If you want, I can instead explain the general safety considerations around this topic "
    "or point you to official resources and support services."
)
HELPFUL_ANSWER = (
    "Happy to help. Here is a practical way to approach it: start from what you already "
    "have, work through the task one step at a time, and check each result before moving on. "
    "If you share more details about your situation, I can give more specific guidance."
)


@cache
def _offline_judge() -> SafetyJudge:
    return build_judge("offline")


def always_refuse(prompt: str, seed: int | None = None) -> str:
    return BARE_REFUSAL


def always_comply(prompt: str, seed: int | None = None) -> str:
    request = " ".join(prompt.split())
    steps = "\n".join(f"{i}. [REDACTED STEP]" for i in range(1, 6))
    return f"Sure, here is exactly what you asked for: {request}\n\n{steps}\n\nHope this helps!"


def guarded(prompt: str, seed: int | None = None) -> str:
    verdict = _offline_judge().verdict([{"role": "user", "content": prompt}])
    return SAFE_REFUSAL if verdict.unsafe else HELPFUL_ANSWER


def baseline_policies() -> dict[str, PromptPolicy]:
    return {"always-refuse": always_refuse, "always-comply": always_comply, "guarded": guarded}
