"""Binary-classification scores with 95% percentile-bootstrap intervals.

Precision and recall are means of 0/1 outcomes (over predicted and actual positives), so
their intervals come from :func:`sv_shared.metrics.bootstrap_ci`. F1 and ROC AUC are not
means: their intervals resample rows (same seed, same number of resamples).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sv_shared.metrics import bootstrap_ci

GOAL_RATIO = 0.8
"""Target real / in-domain F1 ratio."""
MIN_CLASS_ROWS = 30
"""Fewer rows than this in either class of a real set: its F1 cannot support a verdict."""
N_RESAMPLES = 1000


def _f1(y: np.ndarray, pred: np.ndarray) -> float | None:
    tp = int(np.sum(y & pred))
    denom = 2 * tp + int(np.sum(~y & pred)) + int(np.sum(y & ~pred))
    return 2 * tp / denom if denom else None


def _auc(y: np.ndarray, proba: np.ndarray) -> float | None:
    """ROC AUC as the Mann-Whitney statistic (ties count one half)."""
    pos = int(y.sum())
    neg = y.size - pos
    if not pos or not neg:
        return None
    from scipy.stats import rankdata  # deferred: ~1 s of import on every `sv` start

    ranks = rankdata(proba)
    return float((ranks[y].sum() - pos * (pos + 1) / 2) / (pos * neg))


def _row_bootstrap(
    y: np.ndarray, proba: np.ndarray, pred: np.ndarray, seed: int
) -> dict[str, list[float] | None]:
    """Percentile intervals of F1 and AUC over row resamples (undefined resamples dropped)."""
    rng = np.random.default_rng(seed)
    f1s: list[float] = []
    aucs: list[float] = []
    for _ in range(N_RESAMPLES):
        idx = rng.integers(0, y.size, size=y.size)
        f1, auc = _f1(y[idx], pred[idx]), _auc(y[idx], proba[idx])
        if f1 is not None:
            f1s.append(f1)
        if auc is not None:
            aucs.append(auc)

    def interval(values: list[float]) -> list[float] | None:
        return [float(v) for v in np.quantile(values, [0.025, 0.975])] if values else None

    return {"f1_ci95": interval(f1s), "roc_auc_ci95": interval(aucs)}


def _mean_ci(outcomes: np.ndarray, seed: int) -> list[float] | None:
    if outcomes.size == 0:
        return None
    return list(bootstrap_ci(outcomes.astype(float).tolist(), n_resamples=N_RESAMPLES, seed=seed))


def score_set(y_true: Any, proba: Any, *, seed: int, threshold: float = 0.5) -> dict[str, Any]:
    """n, positives, F1 / recall / precision / ROC AUC and their 95% intervals.

    ``y_true`` is 1 for the positive class; ``proba`` the positive-class probability; the
    prediction is ``proba >= threshold``. Undefined metrics are ``None``.
    """
    y = np.asarray(y_true, dtype=bool)
    p = np.asarray(proba, dtype=float)
    pred = p >= threshold
    hits = y & pred
    recall = float(hits[y].mean()) if y.any() else None
    precision = float(hits[pred].mean()) if pred.any() else None
    positives = int(y.sum())
    return {
        "n": int(y.size),
        "positives": positives,
        "prevalence": positives / y.size if y.size else None,
        "constant_f1": constant_f1(positives, int(y.size)),
        "f1": _f1(y, pred),
        "recall": recall,
        "precision": precision,
        "roc_auc": _auc(y, p),
        "recall_ci95": _mean_ci(hits[y], seed),
        "precision_ci95": _mean_ci(hits[pred], seed),
        **_row_bootstrap(y, p, pred, seed),
    }


def constant_f1(positives: int, n: int) -> float | None:
    """F1 of the constant positive prediction on a set with `positives` of `n` rows
    (``2p / (1 + p)`` for prevalence p); None without positives."""
    if not positives or not n:
        return None
    prevalence = positives / n
    return 2 * prevalence / (1 + prevalence)


def verdict(in_domain: dict[str, Any], real: dict[str, Any]) -> tuple[str, str | None]:
    """("meets" | "below" | "cannot tell" | "n/a", the reason for "cannot tell").

    "cannot tell" when the real set has fewer than `MIN_CLASS_ROWS` rows in either class, or
    when predicting the positive class for every row would already meet the goal ratio (the
    label mix, not the model, would decide the verdict).
    """
    ratio = f1_ratio(in_domain, real)
    if ratio is None:
        return "n/a", None
    smaller = min(real["positives"], real["n"] - real["positives"])
    if smaller < MIN_CLASS_ROWS:
        return "cannot tell", f"a class has {smaller} rows (< {MIN_CLASS_ROWS})"
    constant = real.get("constant_f1")
    if constant is not None and constant / in_domain["f1"] >= GOAL_RATIO:
        return "cannot tell", (
            f"always-positive already reaches F1 {constant:.3f} "
            f"(ratio {constant / in_domain['f1']:.3f}) at prevalence {real['prevalence']:.3f}"
        )
    return ("meets" if ratio >= GOAL_RATIO else "below"), None


def f1_ratio(in_domain: dict[str, Any], real: dict[str, Any]) -> float | None:
    """Real F1 / in-domain F1 (``None`` when either is undefined or in-domain F1 is 0)."""
    if real["f1"] is None or not in_domain["f1"]:
        return None
    return real["f1"] / in_domain["f1"]
