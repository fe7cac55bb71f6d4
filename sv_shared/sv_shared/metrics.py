"""Pure evaluation metrics over example-level classification records.

Each example has a gold label, a prediction and a confidence. A prediction is one of:

* *invalid*: ``None`` (the output did not parse);
* *abstained*: equal to ``abstain_label``;
* *answered*: any other label.

Definitions (``n`` = all examples):

* ``accuracy`` = correct / n (abstentions and invalid answers count as not correct);
  ``selective_accuracy`` = correct / answered.
* ``coverage`` = answered / n, ``abstain_rate`` = abstained / n, ``invalid_rate`` = invalid / n.
* Confusion counts (``tp``/``fp``/``fn``/``tn``) are for ``positive_label`` over *answered*
  predictions; every gold/predicted label other than ``positive_label`` is a negative.
  ``fn_unanswered`` counts gold positives that were abstained on or invalid.
* ``recall``, ``fnr`` and ``f1`` are over *all* examples: an abstained or invalid positive is
  not detected (recall = TP / all gold positives, FNR = 1 - recall). ``recall_answered``,
  ``fnr_answered`` and ``f1_answered`` are the same over answered predictions only.
  ``precision`` (TP / predicted positives) and ``fpr`` (FP / answered negatives) do not depend
  on this choice: an abstention is neither a detection nor a false alarm.
* ``brier`` = mean over answered predictions of ``(confidence - 1[correct])**2``.
* ``ece``: answered predictions are put in ``n_bins`` equal-width confidence bins
  (``[0, .1), ..., [.9, 1]``); ECE = sum over bins of ``(n_bin / N) * |acc_bin - conf_bin|``.
* Risk-coverage: answered predictions sorted by confidence (descending); for k = 1..answered
  the risk is the error rate among the top k and the coverage is k / n. Ties in confidence
  use the expected risk under a uniformly random order of the tied items, so the curve does
  not depend on input order. ``aurc`` = mean risk over k = 1..answered. Abstained and
  invalid examples are excluded (they contribute through ``coverage``).
* ``cost_weighted_score`` = mean of :func:`~sv_shared.rewards.reward_asymmetric_cost`.

Answered predictions without a confidence (only possible with a lenient parser) are left
out of ``brier`` and ``ece`` and ranked last on the risk-coverage curve.

A metric that is undefined (empty denominator) is ``None``, never NaN or an exception.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from sv_shared.rewards import Payoffs, reward_asymmetric_cost

__all__ = [
    "abstain_rate",
    "accuracy",
    "aurc",
    "bootstrap_ci",
    "brier_score",
    "classification_metrics",
    "confusion_counts",
    "cost_weighted_score",
    "coverage",
    "expected_calibration_error",
    "fpr_fnr",
    "invalid_rate",
    "precision_recall_f1",
    "risk_coverage_curve",
    "selective_accuracy",
    "unanswered_positives",
]

Labels = Sequence[str]
Preds = Sequence[str | None]
Confs = Sequence[float | None]


class _LabelArgs(TypedDict):
    """The label keywords :func:`classification_metrics` passes on to each metric."""

    positive_label: str
    abstain_label: str


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _check_lengths(*seqs: Sequence[object]) -> int:
    lengths = {len(s) for s in seqs}
    if len(lengths) > 1:
        raise ValueError(f"sequences must have equal lengths, got {[len(s) for s in seqs]}")
    return lengths.pop() if lengths else 0


def _is_answered(pred: str | None, abstain_label: str) -> bool:
    return pred is not None and pred != abstain_label


def _scored(
    golds: Labels, preds: Preds, confidences: Confs, abstain_label: str
) -> list[tuple[float, bool]]:
    """(confidence, correct) for answered predictions that carry a confidence."""
    _check_lengths(golds, preds, confidences)
    out: list[tuple[float, bool]] = []
    for gold, pred, conf in zip(golds, preds, confidences, strict=True):
        if not _is_answered(pred, abstain_label) or conf is None:
            continue
        if (
            isinstance(conf, bool)
            or not isinstance(conf, int | float)
            or not math.isfinite(conf)
            or not 0.0 <= conf <= 1.0
        ):
            raise ValueError(f"confidence must be a finite number in [0, 1], got {conf!r}")
        out.append((float(conf), pred == gold))
    return out


def accuracy(golds: Labels, preds: Preds) -> float | None:
    """Correct / all examples (abstain and invalid count as not correct)."""
    n = _check_lengths(golds, preds)
    return _ratio(sum(p is not None and p == g for g, p in zip(golds, preds, strict=True)), n)


def selective_accuracy(
    golds: Labels, preds: Preds, *, abstain_label: str = "Abstain"
) -> float | None:
    """Correct / answered examples."""
    _check_lengths(golds, preds)
    pairs = [(g, p) for g, p in zip(golds, preds, strict=True) if _is_answered(p, abstain_label)]
    return _ratio(sum(p == g for g, p in pairs), len(pairs))


def abstain_rate(preds: Preds, *, abstain_label: str = "Abstain") -> float | None:
    """Abstained / all examples."""
    return _ratio(sum(p == abstain_label for p in preds), len(preds))


def invalid_rate(preds: Preds) -> float | None:
    """Invalid (None) / all examples."""
    return _ratio(sum(p is None for p in preds), len(preds))


def coverage(preds: Preds, *, abstain_label: str = "Abstain") -> float | None:
    """Answered / all examples."""
    return _ratio(sum(_is_answered(p, abstain_label) for p in preds), len(preds))


def confusion_counts(
    golds: Labels,
    preds: Preds,
    *,
    positive_label: str = "Malicious",
    abstain_label: str = "Abstain",
) -> dict[str, int]:
    """TP/FP/FN/TN for ``positive_label`` over answered predictions."""
    _check_lengths(golds, preds)
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for gold, pred in zip(golds, preds, strict=True):
        if not _is_answered(pred, abstain_label):
            continue
        gold_pos, pred_pos = gold == positive_label, pred == positive_label
        key = ("tp" if gold_pos else "fp") if pred_pos else ("fn" if gold_pos else "tn")
        counts[key] += 1
    return counts


def unanswered_positives(
    golds: Labels,
    preds: Preds,
    *,
    positive_label: str = "Malicious",
    abstain_label: str = "Abstain",
) -> int:
    """Gold positives whose prediction was abstained or invalid (never detected)."""
    _check_lengths(golds, preds)
    return sum(
        g == positive_label and not _is_answered(p, abstain_label)
        for g, p in zip(golds, preds, strict=True)
    )


def _missed(
    golds: Labels, preds: Preds, positive_label: str, abstain_label: str, answered_only: bool
) -> int:
    c = confusion_counts(golds, preds, positive_label=positive_label, abstain_label=abstain_label)
    extra = (
        0
        if answered_only
        else unanswered_positives(
            golds, preds, positive_label=positive_label, abstain_label=abstain_label
        )
    )
    return c["fn"] + extra


def precision_recall_f1(
    golds: Labels,
    preds: Preds,
    *,
    positive_label: str = "Malicious",
    abstain_label: str = "Abstain",
    answered_only: bool = False,
) -> tuple[float | None, float | None, float | None]:
    """Precision, recall and F1 of ``positive_label``.

    Recall (and so F1) is over all examples unless ``answered_only``; precision is the same
    either way.
    """
    c = confusion_counts(golds, preds, positive_label=positive_label, abstain_label=abstain_label)
    fn = _missed(golds, preds, positive_label, abstain_label, answered_only)
    precision = _ratio(c["tp"], c["tp"] + c["fp"])
    recall = _ratio(c["tp"], c["tp"] + fn)
    if precision is None or recall is None:
        return precision, recall, None
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def fpr_fnr(
    golds: Labels,
    preds: Preds,
    *,
    positive_label: str = "Malicious",
    abstain_label: str = "Abstain",
    answered_only: bool = False,
) -> tuple[float | None, float | None]:
    """FPR = FP / answered negatives; FNR = missed / gold positives (all, or answered only)."""
    c = confusion_counts(golds, preds, positive_label=positive_label, abstain_label=abstain_label)
    fn = _missed(golds, preds, positive_label, abstain_label, answered_only)
    return _ratio(c["fp"], c["fp"] + c["tn"]), _ratio(fn, fn + c["tp"])


def brier_score(
    golds: Labels, preds: Preds, confidences: Confs, *, abstain_label: str = "Abstain"
) -> float | None:
    """Mean ``(confidence - 1[correct])**2`` over answered predictions."""
    scored = _scored(golds, preds, confidences, abstain_label)
    return _ratio(sum((c - float(ok)) ** 2 for c, ok in scored), len(scored))


def expected_calibration_error(
    golds: Labels,
    preds: Preds,
    confidences: Confs,
    *,
    abstain_label: str = "Abstain",
    n_bins: int = 10,
) -> float | None:
    """Count-weighted mean |accuracy - confidence| over equal-width confidence bins."""
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    scored = _scored(golds, preds, confidences, abstain_label)
    if not scored:
        return None
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for conf, ok in scored:
        bins[min(int(conf * n_bins), n_bins - 1)].append((conf, ok))
    total = 0.0
    for members in bins:
        if members:
            acc = sum(ok for _, ok in members) / len(members)
            conf = sum(c for c, _ in members) / len(members)
            total += len(members) * abs(acc - conf)
    return total / len(scored)


def risk_coverage_curve(
    golds: Labels, preds: Preds, confidences: Confs, *, abstain_label: str = "Abstain"
) -> list[tuple[float, float]]:
    """``(coverage, risk)`` for k = 1..answered, most confident first (ties averaged)."""
    n = _check_lengths(golds, preds, confidences)
    scored = _scored(golds, preds, confidences, abstain_label)
    unscored_errors = [
        g != p
        for g, p, c in zip(golds, preds, confidences, strict=True)
        if _is_answered(p, abstain_label) and c is None
    ]
    groups: dict[float, list[bool]] = {}
    for conf, ok in scored:
        groups.setdefault(conf, []).append(not ok)
    ordered = [groups[c] for c in sorted(groups, reverse=True)]
    if unscored_errors:
        ordered.append(unscored_errors)
    curve: list[tuple[float, float]] = []
    seen, errors_before = 0, 0.0
    for group in ordered:
        size, group_errors = len(group), sum(group)
        for j in range(1, size + 1):
            k = seen + j
            curve.append((k / n, (errors_before + j * group_errors / size) / k))
        seen += size
        errors_before += group_errors
    return curve


def aurc(
    golds: Labels, preds: Preds, confidences: Confs, *, abstain_label: str = "Abstain"
) -> float | None:
    """Area under the risk-coverage curve: mean risk over k = 1..answered."""
    curve = risk_coverage_curve(golds, preds, confidences, abstain_label=abstain_label)
    return _ratio(sum(risk for _, risk in curve), len(curve))


def cost_weighted_score(
    golds: Labels,
    preds: Preds,
    *,
    payoffs: Payoffs | None = None,
    abstain_label: str = "Abstain",
) -> float | None:
    """Mean decision payoff (:func:`reward_asymmetric_cost`); default :class:`Payoffs`."""
    n = _check_lengths(golds, preds)
    pay = payoffs if payoffs is not None else Payoffs()
    total = sum(
        reward_asymmetric_cost(p, g, pay, abstain_label) for g, p in zip(golds, preds, strict=True)
    )
    return _ratio(total, n)


def classification_metrics(
    golds: Labels,
    preds: Preds,
    confidences: Confs,
    *,
    positive_label: str = "Malicious",
    abstain_label: str = "Abstain",
    payoffs: Payoffs | None = None,
    n_bins: int = 10,
) -> dict[str, float | int | None]:
    """All metrics above in one flat dict (see the module docstring for definitions)."""
    n = _check_lengths(golds, preds, confidences)
    kw: _LabelArgs = {"positive_label": positive_label, "abstain_label": abstain_label}
    counts = confusion_counts(golds, preds, **kw)
    precision, recall, f1 = precision_recall_f1(golds, preds, **kw)
    _, recall_answered, f1_answered = precision_recall_f1(golds, preds, answered_only=True, **kw)
    fpr, fnr = fpr_fnr(golds, preds, **kw)
    fnr_answered = fpr_fnr(golds, preds, answered_only=True, **kw)[1]
    return {
        "n": n,
        "n_answered": sum(_is_answered(p, abstain_label) for p in preds),
        "n_abstain": sum(p == abstain_label for p in preds),
        "n_invalid": sum(p is None for p in preds),
        "accuracy": accuracy(golds, preds),
        "selective_accuracy": selective_accuracy(golds, preds, abstain_label=abstain_label),
        "coverage": coverage(preds, abstain_label=abstain_label),
        "abstain_rate": abstain_rate(preds, abstain_label=abstain_label),
        "invalid_rate": invalid_rate(preds),
        **counts,
        "fn_unanswered": unanswered_positives(golds, preds, **kw),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "fpr": fpr,
        "fnr": fnr,
        "recall_answered": recall_answered,
        "f1_answered": f1_answered,
        "fnr_answered": fnr_answered,
        "brier": brier_score(golds, preds, confidences, abstain_label=abstain_label),
        "ece": expected_calibration_error(
            golds, preds, confidences, abstain_label=abstain_label, n_bins=n_bins
        ),
        "aurc": aurc(golds, preds, confidences, abstain_label=abstain_label),
        "cost_weighted_score": cost_weighted_score(
            golds, preds, payoffs=payoffs, abstain_label=abstain_label
        ),
    }


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Percentile bootstrap ``(1 - alpha)`` confidence interval of the mean."""
    data = np.asarray(values, dtype=float)
    if data.ndim != 1 or data.size == 0:
        raise ValueError("bootstrap_ci needs a non-empty 1-D sequence of numbers")
    if not np.all(np.isfinite(data)):
        raise ValueError("bootstrap_ci values must be finite")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // data.size)  # bound memory of the index matrix
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, data.size, size=(stop - start, data.size))
        means[start:stop] = data[idx].mean(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)
