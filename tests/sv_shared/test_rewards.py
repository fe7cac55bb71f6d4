"""Behavioural tests for sv_shared.rewards: properness, thresholds, hack resistance."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sv_shared.parsers import ClassificationAnswer, JsonClassificationParser, ParseResult
from sv_shared.rewards import (
    COMPONENTS,
    Payoffs,
    RewardWeights,
    abstention_threshold,
    classification_reward_components,
    combine,
    reward_accuracy,
    reward_asymmetric_cost,
    reward_calibration,
    reward_format,
)

MAL, BEN, ABS = "Malicious", "Benign", "Abstain"
DECISION_LABELS = (BEN, MAL)
PARSER = JsonClassificationParser((BEN, MAL, ABS))
DEFAULT = Payoffs()
DEFAULT_WEIGHTS = RewardWeights()
GRID = np.round(np.linspace(0.0, 1.0, 101), 10)


def _ok(label: str, confidence: float) -> ParseResult:
    return ParseResult(ClassificationAnswer(label=label, confidence=confidence), None)


def _other(label: str) -> str:
    return BEN if label == MAL else MAL


def _expected_decision(payoffs: Payoffs, predicted: str, p: float) -> float:
    """Expected decision payoff of answering ``predicted`` when it is right w.p. ``p``."""
    right = reward_asymmetric_cost(predicted, predicted, payoffs)
    wrong = reward_asymmetric_cost(predicted, _other(predicted), payoffs)
    return p * right + (1 - p) * wrong


# --------------------------------------------------------------------------- simple components


def test_reward_accuracy() -> None:
    assert reward_accuracy(MAL, MAL) == 1.0
    assert reward_accuracy(BEN, MAL) == 0.0
    assert reward_accuracy(ABS, MAL) == 0.0
    assert reward_accuracy(None, MAL) == 0.0


def test_reward_format() -> None:
    assert reward_format(True) == 1.0
    assert reward_format(False) == 0.0


def test_asymmetric_cost_defaults() -> None:
    assert reward_asymmetric_cost(MAL, MAL, DEFAULT) == 1.0
    assert reward_asymmetric_cost(BEN, BEN, DEFAULT) == 1.0
    assert reward_asymmetric_cost(ABS, MAL, DEFAULT) == 0.0
    missed_attack = reward_asymmetric_cost(BEN, MAL, DEFAULT)
    false_alarm = reward_asymmetric_cost(MAL, BEN, DEFAULT)
    assert missed_attack == -2.0
    assert false_alarm == -1.0
    assert missed_attack < false_alarm  # a missed attack costs more than a false alarm
    assert reward_asymmetric_cost(None, MAL, DEFAULT) == -2.0  # invalid = worst wrong answer
    assert reward_asymmetric_cost("Unknown", MAL, DEFAULT) == -1.0  # missing entry costs 1


def test_invalid_is_never_cheaper_than_any_wrong_answer() -> None:
    payoffs = Payoffs(cost_matrix={MAL: {BEN: 0.5}, BEN: {MAL: 0.25}})
    assert payoffs.invalid_payoff == -1.0  # the default cost of unlisted pairs is 1
    big = Payoffs(cost_matrix={MAL: {BEN: 5.0}})
    assert big.invalid_payoff == -5.0
    assert Payoffs(invalid=-3.0).invalid_payoff == -3.0


def test_custom_abstain_label() -> None:
    assert reward_asymmetric_cost("Unsure", MAL, DEFAULT, abstain_label="Unsure") == 0.0


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [
        ({"correct": 0.0, "abstain": 0.0}, "abstain"),
        ({"correct": 1.0, "abstain": 2.0}, "abstain"),
        ({"correct": math.nan}, "correct"),
        ({"abstain": math.inf}, "abstain"),
        ({"cost_matrix": {MAL: {BEN: -1.0}}}, "cost_matrix"),
        ({"cost_matrix": {MAL: {BEN: math.nan}}}, "cost_matrix"),
        ({"cost_matrix": {MAL: 2.0}}, "cost_matrix"),
        ({"cost_matrix": [1, 2]}, "cost_matrix"),
        ({"invalid": 0.5}, "invalid"),
        ({"invalid": math.nan}, "invalid"),
        ({"correct": True}, "correct"),
    ],
)
def test_payoffs_validation(kwargs: dict, field_name: str) -> None:
    with pytest.raises(ValueError, match=field_name):
        Payoffs(**kwargs)


def test_payoffs_cost_matrix_is_frozen_copy() -> None:
    source = {MAL: {BEN: 3.0}}
    payoffs = Payoffs(cost_matrix=source)
    source[MAL][BEN] = 0.0
    assert payoffs.cost(MAL, BEN) == 3.0
    with pytest.raises(TypeError):
        payoffs.cost_matrix[MAL][BEN] = 0.0  # type: ignore[index]


def test_default_payoff_instances_do_not_share_state() -> None:
    assert Payoffs() == Payoffs()
    assert Payoffs().cost_matrix is not Payoffs().cost_matrix


# --------------------------------------------------------------------------- calibration


def test_calibration_values() -> None:
    assert reward_calibration(1.0, True) == 1.0
    assert reward_calibration(1.0, False) == 0.0
    assert reward_calibration(0.0, False) == 1.0
    assert reward_calibration(0.8, True) == pytest.approx(0.96)
    assert reward_calibration(0.8, False) == pytest.approx(0.36)
    assert reward_calibration(0.3, None) == 0.75  # abstention
    assert reward_calibration(None, None, abstain_score=0.6) == 0.6
    assert reward_calibration(None, True) == 0.0  # invalid
    for bad in (math.nan, math.inf, -0.1, 1.1, True):
        assert reward_calibration(bad, True) == 0.0  # type: ignore[arg-type]


def test_abstain_score_equals_uninformative_forecast() -> None:
    uninformative = 0.5 * reward_calibration(0.5, True) + 0.5 * reward_calibration(0.5, False)
    assert uninformative == pytest.approx(reward_calibration(0.7, None))


def test_brier_score_is_strictly_proper_on_grid() -> None:
    right = np.array([reward_calibration(float(q), True) for q in GRID])
    wrong = np.array([reward_calibration(float(q), False) for q in GRID])
    for i, p in enumerate(GRID):
        expected = p * right + (1 - p) * wrong
        best = int(np.argmax(expected))
        assert best == i, f"p={p}: best report {GRID[best]}"
        others = np.delete(expected, i)
        assert np.all(others < expected[i] - 1e-12), f"p={p}: not strictly proper"


# --------------------------------------------------------------------------- abstention


def test_default_thresholds() -> None:
    assert abstention_threshold(DEFAULT, BEN, DECISION_LABELS) == pytest.approx(2 / 3)
    assert abstention_threshold(DEFAULT, MAL, DECISION_LABELS) == pytest.approx(1 / 2)
    # the abstain label may be passed along with the decision labels
    assert abstention_threshold(DEFAULT, BEN, (BEN, MAL, ABS)) == pytest.approx(2 / 3)


def test_threshold_argument_validation() -> None:
    with pytest.raises(ValueError):
        abstention_threshold(DEFAULT, BEN, (BEN, MAL, "Other"))
    with pytest.raises(ValueError):
        abstention_threshold(DEFAULT, "Other", DECISION_LABELS)


def test_threshold_can_mean_always_answer() -> None:
    payoffs = Payoffs(correct=1.0, abstain=-5.0)
    assert abstention_threshold(payoffs, MAL, DECISION_LABELS) < 0
    zero_cost = Payoffs(correct=0.0, abstain=-1.0, cost_matrix={MAL: {BEN: 0.0}})
    assert abstention_threshold(zero_cost, BEN, DECISION_LABELS) == -math.inf


def _check_threshold(payoffs: Payoffs, predicted: str, eps: float = 1e-6) -> None:
    t = abstention_threshold(payoffs, predicted, DECISION_LABELS)
    assert t < 1.0
    for p in (t + eps, t + 0.1, 1.0):
        if 0.0 <= p <= 1.0 and p > t:
            assert _expected_decision(payoffs, predicted, p) > payoffs.abstain, p
    for p in (t - eps, t - 0.1, 0.0):
        if 0.0 <= p <= 1.0 and p < t:
            assert _expected_decision(payoffs, predicted, p) < payoffs.abstain, p


@pytest.mark.parametrize("predicted", DECISION_LABELS)
def test_threshold_separates_answer_and_abstain_defaults(predicted: str) -> None:
    _check_threshold(DEFAULT, predicted)


@settings(max_examples=150, deadline=None)
@given(
    correct=st.floats(0.1, 5.0),
    abstain_gap=st.floats(0.01, 5.0),
    cost_mb=st.floats(0.0, 10.0),
    cost_bm=st.floats(0.0, 10.0),
    predicted=st.sampled_from(DECISION_LABELS),
)
def test_threshold_separates_answer_and_abstain_random(
    correct: float, abstain_gap: float, cost_mb: float, cost_bm: float, predicted: str
) -> None:
    payoffs = Payoffs(
        correct=correct,
        abstain=correct - abstain_gap,
        cost_matrix={MAL: {BEN: cost_mb}, BEN: {MAL: cost_bm}},
    )
    _check_threshold(payoffs, predicted)


def _total(result: ParseResult, gold: str, weights: RewardWeights = DEFAULT_WEIGHTS) -> float:
    return combine(classification_reward_components(result, gold, DEFAULT), weights)


def _expected_total(predicted: str, p: float, weights: RewardWeights = DEFAULT_WEIGHTS) -> float:
    """Expected total reward of honestly answering ``predicted`` (right w.p. ``p``)."""
    answer = _ok(predicted, p)
    return p * _total(answer, predicted, weights) + (1 - p) * _total(answer, _other(predicted))


def test_calibration_term_keeps_symmetric_threshold_and_barely_moves_others() -> None:
    weights = RewardWeights()
    abstain = _total(_ok(ABS, 0.5), MAL)
    assert abstain == _total(_ok(ABS, 0.5), BEN)
    # answering Malicious: p* = 1/2 is unchanged for the total reward
    assert _expected_total(MAL, 0.5) == pytest.approx(abstain)
    assert _expected_total(MAL, 0.5 + 1e-6) > abstain > _expected_total(MAL, 0.5 - 1e-6)
    # answering Benign: p* = 2/3 moves down by at most w_cal (p*-1/2)^2 / (w_d (c+lam))
    p_star, lam = 2 / 3, 2.0
    bound = weights.calibration * (p_star - 0.5) ** 2 / (weights.decision * (1.0 + lam))
    assert _expected_total(BEN, p_star + 1e-9) > abstain
    assert _expected_total(BEN, p_star - bound - 1e-6) < abstain
    gap_at_threshold = _expected_total(BEN, p_star) - abstain
    assert 0 < gap_at_threshold <= weights.calibration * (p_star - 0.5) ** 2 + 1e-12


# --------------------------------------------------------------------------- weights & combine


def test_reward_weights_defaults_and_as_dict() -> None:
    assert RewardWeights().as_dict() == {
        "decision": 1.0,
        "calibration": 0.2,
        "format": 0.1,
        "accuracy": 0.0,
    }
    assert tuple(RewardWeights().as_dict()) == COMPONENTS


def test_reward_weights_from_mapping_partial() -> None:
    weights = RewardWeights.from_mapping({"calibration": 0.5, "accuracy": 1})
    assert weights == RewardWeights(calibration=0.5, accuracy=1.0)
    assert RewardWeights.from_mapping({}) == RewardWeights()


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"calibraton": 0.5}, "calibraton"),
        ({"decision": -0.1}, "decision"),
        ({"format": math.nan}, "format"),
        ({"accuracy": math.inf}, "accuracy"),
        ({"decision": "1"}, "decision"),
    ],
)
def test_reward_weights_validation(mapping: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RewardWeights.from_mapping(mapping)


def test_combine_is_weighted_sum() -> None:
    components = {"decision": -2.0, "calibration": 0.5, "format": 1.0, "accuracy": 0.0}
    assert combine(components, RewardWeights()) == pytest.approx(-2.0 + 0.1 + 0.1)
    weights = RewardWeights(decision=2.0, calibration=1.0, format=0.5, accuracy=3.0)
    assert combine(components, weights) == pytest.approx(-4.0 + 0.5 + 0.5 + 0.0)


@pytest.mark.parametrize("name", COMPONENTS)
def test_zero_weight_removes_component(name: str) -> None:
    base = {"decision": 0.7, "calibration": 0.3, "format": 1.0, "accuracy": 1.0}
    weights = RewardWeights.from_mapping({c: 1.0 for c in COMPONENTS} | {name: 0.0})
    expected = sum(v for k, v in base.items() if k != name)
    assert combine(base, weights) == pytest.approx(expected)
    for replacement in (123.0, math.nan):
        assert combine(base | {name: replacement}, weights) == pytest.approx(expected)
    without = {k: v for k, v in base.items() if k != name}
    assert combine(without, weights) == pytest.approx(expected)


def test_combine_rejects_bad_components() -> None:
    full = {"decision": 1.0, "calibration": 1.0, "format": 1.0, "accuracy": 1.0}
    with pytest.raises(ValueError, match="bonus"):
        combine(full | {"bonus": 100.0}, RewardWeights())
    with pytest.raises(ValueError, match="calibration"):
        combine({"decision": 1.0, "format": 1.0}, RewardWeights())
    with pytest.raises(ValueError, match="decision"):
        combine(full | {"decision": math.inf}, RewardWeights())


# --------------------------------------------------------------------------- components


def test_components_for_valid_answers() -> None:
    assert classification_reward_components(_ok(MAL, 0.8), MAL, DEFAULT) == pytest.approx(
        {"decision": 1.0, "calibration": 0.96, "format": 1.0, "accuracy": 1.0}
    )
    assert classification_reward_components(_ok(BEN, 0.8), MAL, DEFAULT) == pytest.approx(
        {"decision": -2.0, "calibration": 0.36, "format": 1.0, "accuracy": 0.0}
    )
    assert classification_reward_components(_ok(ABS, 0.9), MAL, DEFAULT) == pytest.approx(
        {"decision": 0.0, "calibration": 0.75, "format": 1.0, "accuracy": 0.0}
    )
    custom = classification_reward_components(_ok(ABS, 0.9), MAL, DEFAULT, abstain_calibration=0.5)
    assert custom["calibration"] == 0.5


def test_components_for_invalid_answer() -> None:
    invalid = ParseResult(answer=None, error="no JSON object found")
    assert classification_reward_components(invalid, MAL, DEFAULT) == {
        "decision": -2.0,
        "calibration": 0.0,
        "format": 0.0,
        "accuracy": 0.0,
    }
    payoffs = Payoffs(invalid=-10.0)
    assert classification_reward_components(invalid, BEN, payoffs)["decision"] == -10.0


def test_lenient_answer_without_confidence_gets_no_calibration_credit() -> None:
    lenient = JsonClassificationParser((BEN, MAL, ABS), require_confidence=False)
    result = lenient.parse('{"label": "Malicious"}')
    components = classification_reward_components(result, MAL, DEFAULT)
    assert components == {"decision": 1.0, "calibration": 0.0, "format": 1.0, "accuracy": 1.0}


def test_invalid_output_is_worse_than_every_valid_output() -> None:
    invalid = ParseResult(answer=None, error="x")
    for gold in DECISION_LABELS:
        worst_valid = min(
            _total(_ok(label, float(q)), gold) for label in (BEN, MAL, ABS) for q in GRID
        )
        assert _total(invalid, gold) < worst_valid


# --------------------------------------------------------------------------- adversarial policies
#
# Synthetic population: example i is Malicious with probability q_i, and a calibrated model
# knows q_i. The expected reward of a policy (a function q -> output text) is computed
# exactly as q * R(text, Malicious) + (1 - q) * R(text, Benign), end to end through the parser.

Policy = Callable[[float], str]


def _answer(label: str, confidence: float) -> str:
    return json.dumps({"label": label, "confidence": confidence, "rationale": "synthetic"})


def _honest_choice(q: float) -> tuple[str, float]:
    """Decision-theoretic choice: the label whose threshold its probability exceeds."""
    best_label, best_p, best_value = ABS, 0.5, DEFAULT.abstain
    for label, p in ((MAL, q), (BEN, 1.0 - q)):
        if p > abstention_threshold(DEFAULT, label, DECISION_LABELS):
            value = _expected_decision(DEFAULT, label, p)
            if value > best_value:
                best_label, best_p, best_value = label, p, value
    return best_label, best_p


def honest(q: float) -> str:
    label, p = _honest_choice(q)
    return f"<think>weighing evidence</think>\n```json\n{_answer(label, p)}\n```"


def overconfident(q: float) -> str:
    label, _ = _honest_choice(q)
    return _answer(label, 0.5 if label == ABS else 1.0)


def missing_confidence(q: float) -> str:
    label, _ = _honest_choice(q)
    return json.dumps({"label": label})


POLICIES: dict[str, Policy] = {
    "always-abstain": lambda q: _answer(ABS, 0.5),
    "always-malicious-calibrated": lambda q: _answer(MAL, q),
    "always-malicious-certain": lambda q: _answer(MAL, 1.0),
    "always-benign-calibrated": lambda q: _answer(BEN, 1.0 - q),
    "always-benign-certain": lambda q: _answer(BEN, 1.0),
    "overconfident": overconfident,
    "underconfident-0.5": lambda q: _answer(_honest_choice(q)[0], 0.5),
    "missing-confidence": missing_confidence,
    "keyword-stuffing": lambda q: "Malicious Benign Abstain",
    "both-labels-one-object": lambda q: _answer("Malicious Benign", 0.5),
    "decoy-then-abstain": lambda q: _answer(MAL, 1.0) + " actually " + _answer(ABS, 0.5),
    "empty": lambda q: "",
}


def _population(n: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.beta(0.7, 0.7, size=n), 0.001, 0.999)


def _expected_reward(policy: Policy, q: float, weights: RewardWeights) -> float:
    completion = [{"role": "assistant", "content": policy(q)}]
    result = PARSER.parse_completion(completion)
    return q * _total(result, MAL, weights) + (1 - q) * _total(result, BEN, weights)


def _mean_reward(policy: Policy, weights: RewardWeights = DEFAULT_WEIGHTS) -> float:
    return float(np.mean([_expected_reward(policy, float(q), weights) for q in _population()]))


def test_honest_policy_is_valid_and_mixed() -> None:
    labels = [_honest_choice(float(q))[0] for q in _population()]
    assert {MAL, BEN, ABS} <= set(labels)
    assert all(PARSER.parse(honest(float(q))).ok for q in _population())


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_adversarial_policy_scores_below_honest(name: str) -> None:
    honest_mean = _mean_reward(honest)
    adversary_mean = _mean_reward(POLICIES[name])
    assert adversary_mean < honest_mean - 1e-3, (name, adversary_mean, honest_mean)


def test_overconfidence_only_loses_through_calibration() -> None:
    no_cal = RewardWeights(calibration=0.0)
    assert _mean_reward(overconfident, no_cal) == pytest.approx(_mean_reward(honest, no_cal))
    assert _mean_reward(overconfident) < _mean_reward(honest)


def test_payoffs_as_config_is_json_and_rebuilds_the_same_payoffs() -> None:
    payoffs = Payoffs(cost_matrix={"Malicious": {"Benign": 2.0}, "Benign": {"Malicious": 1.0}})
    config = json.loads(json.dumps(payoffs.as_config()))
    assert config["invalid"] == payoffs.invalid_payoff == -2.0  # None resolved
    rebuilt = Payoffs(**config)
    for gold in ("Malicious", "Benign"):
        for predicted in ("Malicious", "Benign", "Other"):
            assert rebuilt.cost(gold, predicted) == payoffs.cost(gold, predicted)
    assert (rebuilt.correct, rebuilt.abstain, rebuilt.invalid_payoff) == (1.0, 0.0, -2.0)
