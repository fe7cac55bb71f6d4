"""E1 reward: `sv_shared` components wired into a verifiers Rubric with configurable weights."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sv_shared.parsers import JsonClassificationParser, ParseResult
from sv_shared.rewards import Payoffs, RewardWeights, classification_reward_components
from sv_shared.vf_compat import vf

LABELS = ("Benign", "Malicious", "Abstain")
ABSTAIN = "Abstain"


def build_payoffs(
    cost_matrix: Mapping[str, Mapping[str, float]] | None = None,
    correct_payoff: float = 1.0,
    abstain_payoff: float = 0.0,
    invalid_payoff: float | None = None,
) -> Payoffs:
    """E1 payoffs; by default a missed attack costs 2 and a false alarm 1."""
    kwargs: dict[str, Any] = {
        "correct": correct_payoff,
        "abstain": abstain_payoff,
        "invalid": invalid_payoff,
    }
    if cost_matrix is not None:
        kwargs["cost_matrix"] = {g: dict(row) for g, row in cost_matrix.items()}
    return Payoffs(**kwargs)


def build_rubric(
    parser: JsonClassificationParser, payoffs: Payoffs, weights: RewardWeights
) -> vf.Rubric:
    """One reward function per component; the Rubric's weighted sum is the total reward."""
    names = ("decision", "calibration", "format", "accuracy")

    def make(name: str):
        def reward(completion: Any, answer: str, **_: Any) -> float:
            result: ParseResult = parser.parse_completion(completion)
            parts = classification_reward_components(result, answer, payoffs, abstain_label=ABSTAIN)
            return float(parts[name])

        reward.__name__ = name
        return reward

    weight_map = weights.as_dict()
    funcs = [make(n) for n in names]
    return vf.Rubric(funcs=funcs, weights=[weight_map[n] for n in names], parser=parser)
