"""`RunMetrics`: an environment's run metrics, with their definitions, as the harness sees them.

Each environment's `run_metrics.py` defines `RUN_METRICS` and its spec names it
(`EnvSpec.run_metrics`). `load_environment` attaches `RUN_METRICS.select(env_args, payoffs)`
as the loaded environment's metrics function (summary.json); reports call the same `select`
with the run's recorded env args and payoffs, so both compute every number the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sv_shared.metrics import classification_metrics
from sv_shared.rewards import Payoffs

Rows = Sequence[Mapping[str, Any]]
MetricsFn = Callable[[Rows], dict[str, Any]]
Selector = Callable[[Mapping[str, Any], Payoffs | None], MetricsFn | None]


@dataclass(frozen=True)
class RunMetrics:
    """How an environment summarises a run's scored rows."""

    select: Selector
    """(env args, payoffs) -> the function that makes the run metrics from scored rows (None:
    the environment has none for these arguments)."""
    definitions: Mapping[str, str] = field(default_factory=dict)
    """Metric -> one-line definition, for the environment's own metrics (reports list them)."""
    row_means: Mapping[str, Callable[[Mapping[str, Any]], float]] = field(default_factory=dict)
    """Metrics that are a mean over rows, with the per-row value (reports give them a CI)."""


def classify_rows(
    rows: Rows,
    *,
    positive_label: str,
    abstain_label: str = "Abstain",
    payoffs: Payoffs | None = None,
) -> dict[str, Any]:
    """`classification_metrics` over rows with a `gold` label and a `parsed` label / confidence
    (an unparsed answer is invalid)."""
    parsed = [r.get("parsed") or {} for r in rows]
    return classification_metrics(
        [str(r.get("gold")) for r in rows],
        [p.get("label") for p in parsed],
        [p.get("confidence") for p in parsed],
        positive_label=positive_label,
        abstain_label=abstain_label,
        payoffs=payoffs,
    )


def _decision(row: Mapping[str, Any]) -> float:
    return float((row.get("rewards") or {}).get("decision") or 0.0)


CLASSIFICATION_ROW_MEANS: Mapping[str, Callable[[Mapping[str, Any]], float]] = {
    "cost_weighted_score": _decision,
}
"""Per-row values of classification metrics that are a mean over rows: the cost-weighted
score is the mean payoff, the `decision` reward component of every classification
environment."""


def classification_run_metrics(
    positive_label: str,
    abstain_label: str = "Abstain",
    *,
    definitions: Mapping[str, str] | None = None,
    row_means: Mapping[str, Callable[[Mapping[str, Any]], float]] | None = None,
) -> RunMetrics:
    """Run metrics of a label / confidence / abstain environment: `classify_rows` under the
    run's payoffs (the classification metrics' definitions are the harness's own)."""

    def select(_env_args: Mapping[str, Any], payoffs: Payoffs | None) -> MetricsFn:
        return functools.partial(
            classify_rows,
            positive_label=positive_label,
            abstain_label=abstain_label,
            payoffs=payoffs,
        )

    return RunMetrics(
        select,
        definitions=dict(definitions or {}),
        row_means={**CLASSIFICATION_ROW_MEANS, **(row_means or {})},
    )


__all__ = [
    "CLASSIFICATION_ROW_MEANS",
    "MetricsFn",
    "Rows",
    "RunMetrics",
    "Selector",
    "classification_run_metrics",
    "classify_rows",
]
