"""Built-in E4 reference policies, exposed by the harness as models.

Each sees only the prompt text (the rendered email), like a model does.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .heuristic import heuristic_answer
from .learned import learned_answer
from .records import ABSTAIN, LEGITIMATE, PHISHING
from .rendered import parse_rendered_email

PromptPolicy = Callable[[str, "int | None"], str]


def heuristic(prompt: str, seed: int | None = None) -> str:
    """Indicator rules on the rendered email."""
    return json.dumps(heuristic_answer(parse_rendered_email(prompt)))


def learned(prompt: str, seed: int | None = None) -> str:
    """TF-IDF + logistic regression fit on the synthetic train split (`learned.py`)."""
    return json.dumps(learned_answer(parse_rendered_email(prompt)))


def always_legitimate(prompt: str, seed: int | None = None) -> str:
    return json.dumps({"label": LEGITIMATE, "confidence": 1.0, "evidence": []})


def always_phishing(prompt: str, seed: int | None = None) -> str:
    return json.dumps({"label": PHISHING, "confidence": 1.0, "evidence": []})


def always_abstain(prompt: str, seed: int | None = None) -> str:
    return json.dumps({"label": ABSTAIN, "confidence": 0.5, "evidence": []})


def baseline_policies() -> dict[str, PromptPolicy]:
    return {
        "heuristic": heuristic,
        "learned": learned,
        "always-legitimate": always_legitimate,
        "always-phishing": always_phishing,
        "always-abstain": always_abstain,
    }
