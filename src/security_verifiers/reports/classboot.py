"""Vectorised bootstrap intervals of classification metrics (definitions as sv_shared.metrics)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

CHUNK_CELLS = 2_000_000
MATCH = 1e-9


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _f1(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(precision + recall == 0, 0.0, 2 * precision * recall / (precision + recall))


def classification_stats(
    idx: np.ndarray,
    golds: Sequence[str],
    preds: Sequence[str | None],
    confs: Sequence[float | None],
    *,
    positive: str,
    abstain: str,
) -> dict[str, np.ndarray]:
    """Metrics for each row of the index matrix `idx` (one resample per row); NaN = undefined."""
    answered = np.array([p is not None and p != abstain for p in preds])[idx]
    abstained = np.array([p == abstain for p in preds])[idx]
    correct = np.array([p is not None and p == g for g, p in zip(golds, preds, strict=True)])[idx]
    gold_pos = np.array([g == positive for g in golds])[idx]
    pred_pos = np.array([p == positive for p in preds])[idx]
    conf = np.array([c if c is not None else 0.0 for c in confs], dtype=float)[idx]
    scored = answered & np.array([c is not None for c in confs])[idx]
    count = lambda mask: mask.sum(axis=1).astype(float)  # noqa: E731
    tp, fp = count(answered & gold_pos & pred_pos), count(answered & ~gold_pos & pred_pos)
    fn, tn = count(answered & gold_pos & ~pred_pos), count(answered & ~gold_pos & ~pred_pos)
    missed = fn + count(~answered & gold_pos)  # abstained/invalid positives: not detected
    precision = _ratio(tp, tp + fp)
    recall, recall_answered = _ratio(tp, tp + missed), _ratio(tp, tp + fn)
    bins = np.minimum((conf * 10).astype(int), 9)
    gap = np.zeros(idx.shape[0])
    for b in range(10):
        member = scored & (bins == b)
        gap += np.abs(count(member & correct) - (member * conf).sum(axis=1))
    return {
        "selective_accuracy": _ratio(count(answered & correct), count(answered)),
        "coverage": count(answered) / idx.shape[1],
        "abstain_rate": count(abstained) / idx.shape[1],
        "precision": precision,
        "recall": recall,
        "f1": _f1(precision, recall),
        "fpr": _ratio(fp, fp + tn),
        "fnr": _ratio(missed, missed + tp),
        "recall_answered": recall_answered,
        "f1_answered": _f1(precision, recall_answered),
        "fnr_answered": _ratio(fn, fn + tp),
        "brier": _ratio((scored * (conf - correct) ** 2).sum(axis=1), count(scored)),
        "ece": _ratio(gap, count(scored)),
    }


def classification_cis(
    golds: Sequence[str],
    preds: Sequence[str | None],
    confs: Sequence[float | None],
    summary_metrics: Mapping[str, object],
    *,
    positive: str,
    abstain: str,
    seed: int = 0,
    n_resamples: int = 1000,
) -> dict[str, tuple[float, float]]:
    """Percentile 95% CIs, for the metrics whose full-sample value equals the run's summary."""
    n = len(golds)
    if n == 0:
        return {}
    kw = {"positive": positive, "abstain": abstain}
    full = classification_stats(np.arange(n)[None, :], golds, preds, confs, **kw)
    rng = np.random.default_rng(seed)
    chunks: list[dict[str, np.ndarray]] = []
    step = max(1, CHUNK_CELLS // n)
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        chunks.append(
            classification_stats(rng.integers(0, n, size=(size, n)), golds, preds, confs, **kw)
        )
    out: dict[str, tuple[float, float]] = {}
    for key, value in full.items():
        given = summary_metrics.get(key)
        if isinstance(given, bool) or not isinstance(given, int | float) or np.isnan(value[0]):
            continue
        if abs(float(value[0]) - float(given)) > MATCH:
            continue
        samples = np.concatenate([c[key] for c in chunks])
        samples = samples[~np.isnan(samples)]
        if samples.size:
            low, high = np.quantile(samples, [0.025, 0.975])
            out[key] = (float(low), float(high))
    return out
