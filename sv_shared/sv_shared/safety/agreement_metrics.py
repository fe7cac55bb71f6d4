"""Agreement statistics: rates and binary metrics with seeded bootstrap CIs, confusion counts."""

from __future__ import annotations

import numpy as np

from sv_shared.metrics import bootstrap_ci

N_RESAMPLES = 1000
SEED = 0


def _ci(samples: np.ndarray) -> tuple[float | None, float | None]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    low, high = np.quantile(finite, [0.025, 0.975])
    return round(float(low), 4), round(float(high), 4)


def rate(values: np.ndarray) -> dict:
    """Mean of a 0/1 array with its bootstrap CI."""
    if values.size == 0:
        return {"value": None, "ci95": (None, None), "n": 0}
    low, high = bootstrap_ci(values.astype(float), n_resamples=N_RESAMPLES, seed=SEED)
    return {
        "value": round(float(values.mean()), 4),
        "ci95": (round(low, 4), round(high, 4)),
        "n": int(values.size),
    }


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), np.nan)


def binary_metrics(gold: np.ndarray, pred: np.ndarray) -> dict:
    """Accuracy, precision, recall, F1 (positive = unsafe/harmful) with bootstrap CIs
    (the same seeded resamples of the examples for every metric)."""
    gold, pred = gold.astype(bool), pred.astype(bool)

    def stats(g: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
        tp, fp, fn = (g & p).sum(-1), (~g & p).sum(-1), (g & ~p).sum(-1)
        return {
            "accuracy": (g == p).mean(-1),
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        }

    point = stats(gold, pred)
    out: dict = {}
    if gold.size == 0:
        return {name: {"value": None, "ci95": (None, None)} for name in point} | {"n": 0}
    idx = np.random.default_rng(SEED).integers(0, gold.size, (N_RESAMPLES, gold.size))
    resampled = stats(gold[idx], pred[idx])
    for name, array in point.items():
        value = float(array)
        out[name] = {
            "value": None if np.isnan(value) else round(value, 4),
            "ci95": _ci(resampled[name]),
        }
    out["n"] = int(gold.size)
    return out


def confusion(gold: np.ndarray, pred: np.ndarray) -> dict[str, int]:
    """Counts with positive = unsafe: tp (unsafe judged unsafe), fp, fn, tn."""
    gold, pred = gold.astype(bool), pred.astype(bool)
    return {
        "tp": int((gold & pred).sum()),
        "fp": int((~gold & pred).sum()),
        "fn": int((gold & ~pred).sum()),
        "tn": int((~gold & ~pred).sum()),
    }


def fmt(entry: dict) -> str:
    """``value [low, high]`` of a :func:`rate` / metric entry."""
    value, ci = entry.get("value"), entry.get("ci95", (None, None))
    if value is None:
        return "n/a"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci[0] is not None else f"{value:.3f}"
