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
    """Non-negative component weights; 0 switches a component off.

    Evidence (a score in [-1, 0], `evidence.py`) weighs half the decision: on a phishing
    email with confirmed indicators the right label without evidence earns 0.8 of the 1.3
    available (62%), so citing what makes the email phishing is clearly worth doing, and a
    right uncited Phishing call still beats abstaining when P(phishing) > 2/3. Evidence
    cannot raise any call above its bare decision payoff, so it cannot make a label-blind
    policy beat abstaining, and citations on a wrong call cost on top of the decision.
    """

    decision: float = 1.0
    calibration: float = 0.2
    evidence: float = 0.5
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
    return {
        "decision": parts["decision"],
        "calibration": parts["calibration"],
        "format": parts["format"],
        "evidence": evidence_score(checks, label=answer.label, gold=gold, fired=len(set(fired))),
        "checks": checks,
    }
