"""E4 reward: decision (asymmetric cost, abstention), calibration, evidence support, format.

Decision, calibration and format are the shared `sv_shared` classification components; the
evidence component is E4's own: evidence must be in the email and show a confirmed indicator
(see `evidence.py`). All functions here are pure.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sv_shared.parsers import ParseResult
from sv_shared.rewards import (
    ComponentWeights,
    Payoffs,
    classification_reward_components,
)

from .evidence import check_evidence, evidence_score
from .records import ABSTAIN, LEGITIMATE, PHISHING

COMPONENTS = ("decision", "calibration", "evidence", "format")


@dataclass(frozen=True)
class TriageWeights(ComponentWeights):
    """Non-negative component weights; 0 switches a component off."""

    decision: float = 1.0
    calibration: float = 0.2
    evidence: float = 0.3
    format: float = 0.1


def default_payoffs(
    missed_phish_cost: float = 2.0,
    false_alarm_cost: float = 1.0,
    abstain_payoff: float = 0.0,
    cost_matrix: Mapping[str, Mapping[str, float]] | None = None,
) -> Payoffs:
    """A missed phish costs more than a false alarm (2 vs 1 by default)."""
    matrix = cost_matrix or {
        PHISHING: {LEGITIMATE: missed_phish_cost},
        LEGITIMATE: {PHISHING: false_alarm_cost},
    }
    return Payoffs(abstain=abstain_payoff, cost_matrix={g: dict(r) for g, r in matrix.items()})


def triage_components(
    result: ParseResult,
    gold: str,
    email_text: str,
    fired: Collection[str],
    catalogue: Collection[str],
    payoffs: Payoffs,
) -> dict[str, Any]:
    """Every component for one answer, plus the evidence checks (key `checks`)."""
    parts = classification_reward_components(result, gold, payoffs, abstain_label=ABSTAIN)
    answer = result.answer
    if not result.ok or answer is None:
        return {**{k: parts[k] for k in ("decision", "calibration", "format")}, "evidence": 0.0,
                "checks": []}  # fmt: skip
    checks = check_evidence(answer.evidence, email_text, fired, catalogue)  # type: ignore[attr-defined]
    correct = None if answer.label == ABSTAIN else answer.label == gold
    return {
        "decision": parts["decision"],
        "calibration": parts["calibration"],
        "format": parts["format"],
        "evidence": evidence_score(
            checks, correct, fired=len(set(fired)), label_is_phishing=answer.label == PHISHING
        ),
        "checks": checks,
    }
