"""Hand-computed checks for sv_shared.metrics."""

from __future__ import annotations

import math

import pytest

from sv_shared.metrics import (
    abstain_rate,
    accuracy,
    aurc,
    bootstrap_ci,
    brier_score,
    classification_metrics,
    confusion_counts,
    cost_weighted_score,
    coverage,
    expected_calibration_error,
    fpr_fnr,
    invalid_rate,
    precision_recall_f1,
    risk_coverage_curve,
    selective_accuracy,
)
from sv_shared.rewards import Payoffs

M, B, A = "Malicious", "Benign", "Abstain"

# idx:      0    1    2    3    4     5     6    7
GOLDS = [M, M, M, B, B, B, M, B]
PREDS = [M, B, A, M, B, None, M, B]
CONFS = [0.9, 0.8, 0.5, 0.7, 0.95, None, 0.6, 0.75]
# answered: 0 (TP, right), 1 (FN, wrong), 3 (FP, wrong), 4 (TN, right), 6 (TP, right),
# 7 (TN, right); 2 abstained; 5 invalid.


def test_counts_and_rates_by_hand() -> None:
    assert confusion_counts(GOLDS, PREDS) == {"tp": 2, "fp": 1, "fn": 1, "tn": 2}
    assert accuracy(GOLDS, PREDS) == pytest.approx(4 / 8)
    assert selective_accuracy(GOLDS, PREDS) == pytest.approx(4 / 6)
    assert coverage(PREDS) == pytest.approx(6 / 8)
    assert abstain_rate(PREDS) == pytest.approx(1 / 8)
    assert invalid_rate(PREDS) == pytest.approx(1 / 8)
    precision, recall, f1 = precision_recall_f1(GOLDS, PREDS, answered_only=True)
    assert precision == pytest.approx(2 / 3)  # TP / (TP + FP) = 2 / 3
    assert recall == pytest.approx(2 / 3)  # TP / (TP + FN) = 2 / 3
    assert f1 == pytest.approx(2 / 3)
    fpr, fnr = fpr_fnr(GOLDS, PREDS, answered_only=True)
    assert fpr == pytest.approx(1 / 3)  # FP / (FP + TN) = 1 / 3
    assert fnr == pytest.approx(1 / 3)  # FN / (FN + TP) = 1 / 3


def test_abstained_positive_is_not_detected() -> None:
    # 4 gold positives: 2 TP, 1 FN, 1 abstained (idx 2) -> recall 2/4 over all examples.
    precision, recall, f1 = precision_recall_f1(GOLDS, PREDS)
    assert precision == pytest.approx(2 / 3)
    assert recall == pytest.approx(2 / 4)
    assert f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    fpr, fnr = fpr_fnr(GOLDS, PREDS)
    assert fpr == pytest.approx(1 / 3)  # an abstention is not a false alarm
    assert fnr == pytest.approx(2 / 4)


def test_unequal_precision_recall_by_hand() -> None:
    golds = [M, M, M, B, B]
    preds = [M, B, B, M, M]
    # TP=1, FN=2, FP=2, TN=0
    precision, recall, f1 = precision_recall_f1(golds, preds)
    assert precision == pytest.approx(1 / 3)
    assert recall == pytest.approx(1 / 3)
    assert f1 == pytest.approx(1 / 3)
    golds, preds = [M, M, B, B], [M, B, B, B]  # TP=1, FN=1, TN=2
    precision, recall, f1 = precision_recall_f1(golds, preds)
    assert (precision, recall) == (1.0, 0.5)
    assert f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert fpr_fnr(golds, preds) == (0.0, 0.5)


def test_brier_by_hand() -> None:
    # (0.9-1)^2 + (0.8-0)^2 + (0.7-0)^2 + (0.95-1)^2 + (0.6-1)^2 + (0.75-1)^2
    # = 0.01 + 0.64 + 0.49 + 0.0025 + 0.16 + 0.0625 = 1.365 over 6 answered
    assert brier_score(GOLDS, PREDS, CONFS) == pytest.approx(1.365 / 6)


def test_ece_two_filled_bins_by_hand() -> None:
    golds = [M, M, B, B, B, B]
    preds = [M, B, B, M, M, M]
    confs = [0.9, 0.9, 0.3, 0.3, 0.3, 0.3]
    # bin [0.9, 1]: acc 1/2, conf 0.9 -> gap 0.4, weight 2/6
    # bin [0.3, 0.4): acc 1/4, conf 0.3 -> gap 0.05, weight 4/6
    expected = (2 * 0.4 + 4 * 0.05) / 6
    assert expected == pytest.approx(1 / 6)
    assert expected_calibration_error(golds, preds, confs) == pytest.approx(expected)


def test_ece_full_example_by_hand() -> None:
    # bins: 9 -> {0.9 ok, 0.95 ok} gap |1 - 0.925| = 0.075 (x2)
    #       8 -> {0.8 wrong}       gap 0.8 (x1)
    #       7 -> {0.7 wrong, 0.75 ok} gap |0.5 - 0.725| = 0.225 (x2)
    #       6 -> {0.6 ok}          gap 0.4 (x1)
    expected = (2 * 0.075 + 0.8 + 2 * 0.225 + 0.4) / 6
    assert expected == pytest.approx(0.3)
    assert expected_calibration_error(GOLDS, PREDS, CONFS) == pytest.approx(expected)


def test_ece_perfect_and_edges() -> None:
    assert expected_calibration_error([M, B], [M, B], [1.0, 1.0]) == 0.0
    assert expected_calibration_error([M, B], [B, M], [0.0, 0.0]) == 0.0
    with pytest.raises(ValueError):
        expected_calibration_error([M], [M], [1.0], n_bins=0)


def test_aurc_four_answered_by_hand() -> None:
    golds = [M, M, B, B]
    preds = [M, B, B, M]
    confs = [0.9, 0.8, 0.7, 0.6]  # right, wrong, right, wrong
    # risks of the top-k: 0/1, 1/2, 1/3, 2/4 -> mean = (0 + 1/2 + 1/3 + 1/2) / 4 = 1/3
    assert aurc(golds, preds, confs) == pytest.approx(1 / 3)
    curve = risk_coverage_curve(golds, preds, confs)
    assert [c for c, _ in curve] == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert [r for _, r in curve] == pytest.approx([0.0, 0.5, 1 / 3, 0.5])
    # order of the input does not matter
    assert aurc(golds[::-1], preds[::-1], confs[::-1]) == pytest.approx(1 / 3)


def test_aurc_excludes_abstain_and_invalid() -> None:
    # sorted: 0.95 ok, 0.9 ok, 0.8 wrong, 0.75 ok, 0.7 wrong, 0.6 ok
    # risks: 0, 0, 1/3, 1/4, 2/5, 2/6
    expected = (0 + 0 + 1 / 3 + 1 / 4 + 2 / 5 + 2 / 6) / 6
    assert aurc(GOLDS, PREDS, CONFS) == pytest.approx(expected)
    curve = risk_coverage_curve(GOLDS, PREDS, CONFS)
    assert len(curve) == 6
    assert curve[-1][0] == pytest.approx(6 / 8)  # coverage is relative to all examples


def test_aurc_ties_are_order_invariant() -> None:
    # two tied predictions, one right and one wrong: expected risk 1/2 at k = 1 and k = 2
    assert aurc([M, B], [M, M], [0.5, 0.5]) == pytest.approx(0.5)
    assert aurc([B, M], [M, M], [0.5, 0.5]) == pytest.approx(0.5)
    # a constant confidence cannot buy a lucky ordering
    golds, preds = [M, M, B, B], [M, M, M, M]
    assert aurc(golds, preds, [0.7] * 4) == pytest.approx(0.5)
    assert aurc(golds[::-1], preds, [0.7] * 4) == pytest.approx(0.5)


def test_cost_weighted_score_by_hand() -> None:
    # +1, -2 (missed attack), 0 (abstain), -1 (false alarm), +1, -2 (invalid), +1, +1
    assert cost_weighted_score(GOLDS, PREDS) == pytest.approx(-1 / 8)
    payoffs = Payoffs(cost_matrix={M: {B: 10.0}, B: {M: 1.0}})
    # +1, -10, 0, -1, +1, -10, +1, +1
    assert cost_weighted_score(GOLDS, PREDS, payoffs=payoffs) == pytest.approx(-17 / 8)


def test_classification_metrics_bundle() -> None:
    m = classification_metrics(GOLDS, PREDS, CONFS)
    expected = {
        "n": 8,
        "n_answered": 6,
        "n_abstain": 1,
        "n_invalid": 1,
        "accuracy": 0.5,
        "selective_accuracy": 4 / 6,
        "coverage": 0.75,
        "abstain_rate": 0.125,
        "invalid_rate": 0.125,
        "tp": 2,
        "fp": 1,
        "fn": 1,
        "tn": 2,
        "fn_unanswered": 1,
        "precision": 2 / 3,
        "recall": 2 / 4,
        "f1": 2 * (2 / 3) * 0.5 / (2 / 3 + 0.5),
        "fpr": 1 / 3,
        "fnr": 2 / 4,
        "recall_answered": 2 / 3,
        "f1_answered": 2 / 3,
        "fnr_answered": 1 / 3,
        "brier": 1.365 / 6,
        "ece": 0.3,
        "aurc": (1 / 3 + 1 / 4 + 2 / 5 + 2 / 6) / 6,
        "cost_weighted_score": -1 / 8,
    }
    assert set(m) == set(expected)
    for key, value in expected.items():
        assert m[key] == pytest.approx(value), key


def test_custom_labels() -> None:
    m = classification_metrics(
        ["attack", "normal"],
        ["attack", "skip"],
        [0.8, 0.1],
        positive_label="attack",
        abstain_label="skip",
    )
    assert m["tp"] == 1 and m["n_abstain"] == 1 and m["recall"] == 1.0
    assert m["fpr"] is None  # the only negative abstained


def test_undefined_metrics_are_none() -> None:
    empty = classification_metrics([], [], [])
    assert empty["n"] == 0
    for key, value in empty.items():
        if key not in {
            "n",
            "n_answered",
            "n_abstain",
            "n_invalid",
            "tp",
            "fp",
            "fn",
            "tn",
            "fn_unanswered",
        }:
            assert value is None, key

    all_abstain = classification_metrics([M, B], [A, A], [0.5, 0.5])
    assert all_abstain["accuracy"] == 0.0
    assert all_abstain["coverage"] == 0.0
    for key in ("selective_accuracy", "precision", "recall_answered", "f1", "brier", "ece", "aurc"):
        assert all_abstain[key] is None, key
    assert all_abstain["recall"] == 0.0 and all_abstain["fnr"] == 1.0  # nothing was detected
    assert all_abstain["fn_unanswered"] == 1

    no_positives = classification_metrics([B, B], [B, M], [0.9, 0.6])
    assert no_positives["recall"] is None and no_positives["fnr"] is None
    assert no_positives["precision"] == 0.0 and no_positives["f1"] is None
    assert no_positives["fpr"] == 0.5

    no_predicted_positives = precision_recall_f1([M, B], [B, B])
    assert no_predicted_positives == (None, 0.0, None)

    all_invalid = classification_metrics([M], [None], [None])
    assert all_invalid["invalid_rate"] == 1.0 and all_invalid["brier"] is None

    for value in classification_metrics([M, B], [A, None], [0.5, None]).values():
        assert value is None or not (isinstance(value, float) and math.isnan(value))


def test_missing_confidence_is_ranked_last_and_excluded_from_calibration() -> None:
    golds, preds, confs = [M, B, M], [M, M, M], [0.9, None, 0.8]
    assert brier_score(golds, preds, confs) == pytest.approx((0.01 + 0.04) / 2)
    # sorted: 0.9 ok, 0.8 ok, None wrong -> risks 0, 0, 1/3
    assert aurc(golds, preds, confs) == pytest.approx(1 / 9)


def test_input_validation() -> None:
    with pytest.raises(ValueError):
        classification_metrics([M, B], [M], [0.5])
    with pytest.raises(ValueError):
        brier_score([M], [M], [1.5])
    with pytest.raises(ValueError):
        brier_score([M], [M], [math.nan])


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_constant_array() -> None:
    assert bootstrap_ci([0.1] * 7) == (0.1, 0.1)
    assert bootstrap_ci([3.0]) == (3.0, 3.0)


def test_bootstrap_reproducible_and_sensible() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0] * 5
    first = bootstrap_ci(values, seed=7)
    assert first == bootstrap_ci(values, seed=7)
    low, high = first
    mean = sum(values) / len(values)
    assert 0.0 <= low < mean < high <= 1.0
    wide = bootstrap_ci(values, alpha=0.01, seed=7)
    assert wide[0] <= low and wide[1] >= high


@pytest.mark.parametrize(
    "kwargs",
    [{"values": []}, {"values": [1.0, math.nan]}, {"values": [1.0, 2.0], "alpha": 1.5}],
)
def test_bootstrap_validation(kwargs: dict) -> None:
    values = kwargs.pop("values")
    with pytest.raises(ValueError):
        bootstrap_ci(values, **kwargs)
