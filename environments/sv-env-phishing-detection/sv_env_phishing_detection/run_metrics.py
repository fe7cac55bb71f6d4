"""E4 run-level metrics: E1's classification metrics, evidence precision, risk-coverage curve."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sv_shared.metrics import classification_metrics, risk_coverage_curve
from sv_shared.rewards import Payoffs
from sv_shared.run_metrics import CLASSIFICATION_ROW_MEANS, MetricsFn, RunMetrics

from .records import ABSTAIN, PHISHING


def summarize_rows(
    rows: Sequence[Mapping[str, Any]], payoffs: Payoffs | None = None
) -> dict[str, Any]:
    """Accuracy, F1, FPR/FNR, Brier, ECE, AURC, cost; evidence precision and risk-coverage."""
    parsed = [r.get("parsed") or {} for r in rows]
    golds = [str(r.get("gold")) for r in rows]
    labels = [p.get("label") for p in parsed]
    confidences = [p.get("confidence") for p in parsed]
    metrics: dict[str, Any] = classification_metrics(
        golds, labels, confidences, positive_label=PHISHING, abstain_label=ABSTAIN,
        payoffs=payoffs,
    )  # fmt: skip
    episodes = [r.get("metrics") or {} for r in rows]
    items = sum(float(e.get("evidence_items", 0.0)) for e in episodes)
    verified = sum(float(e.get("evidence_verified", 0.0)) for e in episodes)
    answered = [e for e, label in zip(episodes, labels, strict=True) if label is not None]
    metrics["evidence_precision"] = verified / items if items else None
    metrics["evidence_per_answer"] = items / len(answered) if answered else None
    metrics["answers_with_evidence"] = (
        sum(float(e.get("evidence_items", 0.0)) > 0 for e in answered) / len(answered)
        if answered
        else None
    )
    curve = risk_coverage_curve(golds, labels, confidences, abstain_label=ABSTAIN)
    step = max(1, len(curve) // 20)  # about 20 points are enough to draw it
    kept = curve[step - 1 :: step] + ([curve[-1]] if len(curve) % step else [])
    metrics["risk_coverage"] = [[round(c, 4), round(r, 4)] for c, r in kept]
    return metrics


def select(_env_args: Mapping[str, Any], payoffs: Payoffs | None) -> MetricsFn:
    """`summarize_rows` under the run's payoffs."""
    return functools.partial(summarize_rows, payoffs=payoffs)


DEFINITIONS: dict[str, str] = {
    "evidence_precision": "evidence items the checker verified / evidence items cited (E4).",
}

RUN_METRICS = RunMetrics(select, DEFINITIONS, CLASSIFICATION_ROW_MEANS)
