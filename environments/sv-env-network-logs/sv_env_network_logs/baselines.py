"""Built-in reference policies for E1, exposed by the harness as models.

Each policy sees only what a model sees — the prompt text — and returns the assistant's text.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable

from sv_env_network_logs.heuristic import heuristic_predict
from sv_env_network_logs.learned import predict as learned_predict
from sv_env_network_logs.prompts import parse_rendered_flow

PromptPolicy = Callable[[str, "int | None"], str]


def _answer(label: str, confidence: float, rationale: str) -> str:
    return json.dumps({"label": label, "confidence": round(confidence, 4), "rationale": rationale})


def heuristic(prompt: str, seed: int | None = None) -> str:
    flow = parse_rendered_flow(prompt)
    if flow is None:
        return _answer("Abstain", 0.5, "no flow record found in the prompt")
    label, confidence, rationale = heuristic_predict(flow)
    return _answer(label, confidence, rationale)


def learned(prompt: str, seed: int | None = None) -> str:
    """Gradient boosting fit on the synthetic train split (:mod:`sv_env_network_logs.learned`)."""
    flow = parse_rendered_flow(prompt)
    if flow is None:
        return _answer("Abstain", 0.5, "no flow record found in the prompt")
    label, confidence, p = learned_predict(flow)
    return _answer(label, confidence, f"P(malicious) = {p:.3f} from the conn fields")


def always(label: str) -> PromptPolicy:
    def policy(prompt: str, seed: int | None = None) -> str:
        return _answer(label, 1.0, f"always answers {label}")

    return policy


def uniform_random(prompt: str, seed: int | None = None) -> str:
    """A coin flip seeded by (seed, prompt): reproducible, independent of request order."""
    digest = hashlib.sha256(f"{seed}\n{prompt}".encode()).digest()
    rng = random.Random(digest)
    return _answer(rng.choice(["Benign", "Malicious"]), 0.5, "random guess")


def baseline_policies() -> dict[str, PromptPolicy]:
    return {
        "heuristic": heuristic,
        "learned": learned,
        "always-benign": always("Benign"),
        "always-malicious": always("Malicious"),
        "always-abstain": always("Abstain"),
        "random": uniform_random,
    }
