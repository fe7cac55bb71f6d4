"""Built-in E4 reference policies, exposed by the harness as models.

Each sees only the prompt text (the rendered email), like a model does.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .heuristic import heuristic_answer
from .records import LEGITIMATE
from .rendered import parse_rendered_email

PromptPolicy = Callable[[str, "int | None"], str]


def heuristic(prompt: str, seed: int | None = None) -> str:
    """Indicator rules on the rendered email."""
    return json.dumps(heuristic_answer(parse_rendered_email(prompt)))


def always_legitimate(prompt: str, seed: int | None = None) -> str:
    return json.dumps({"label": LEGITIMATE, "confidence": 1.0, "evidence": []})


def baseline_policies() -> dict[str, PromptPolicy]:
    return {"heuristic": heuristic, "always-legitimate": always_legitimate}
