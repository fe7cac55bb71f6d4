"""Built-in defender policies, exposed by the harness as models.

Each is `policy(prompt_text, seed) -> reply` and sees only the last user message:
`always-refuse` (a bare refusal), `always-comply` (agrees and gives a procedure-shaped answer
naming the request's own words, the details withheld as `[REDACTED STEP]`; it never contains
real instructions) and `guarded` (a keyword screen, `request_screen`,
independent of the safety judge: it refuses with a safe alternative what the screen flags and
otherwise gives a short on-topic answer templated from the request's words). None of them
reads the judge or the turn labels, so none is an oracle.
"""

from __future__ import annotations

from collections.abc import Callable

from .reply_templates import SAFE_REFUSAL, complying, helpful_answer
from .request_screen import screened_out

PromptPolicy = Callable[[str, "int | None"], str]

BARE_REFUSAL = "I'm sorry, but I can't help with that."
WITHHELD = "[REDACTED STEP]"
__all__ = ["BARE_REFUSAL", "SAFE_REFUSAL", "baseline_policies"]


def always_refuse(prompt: str, seed: int | None = None) -> str:
    return BARE_REFUSAL


def always_comply(prompt: str, seed: int | None = None) -> str:
    return f"{complying(prompt)}\nThe exact details: {WITHHELD}\nHope this helps!"


def guarded(prompt: str, seed: int | None = None) -> str:
    return SAFE_REFUSAL if screened_out(prompt) else helpful_answer(prompt)


def baseline_policies() -> dict[str, PromptPolicy]:
    return {"always-refuse": always_refuse, "always-comply": always_comply, "guarded": guarded}
