"""Example-level values pulled out of results.jsonl rows."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from security_verifiers.reports.runs import Run
from security_verifiers.reports.scored import run_metrics_of

Row = Mapping[str, Any]


def label(row: Row) -> str | None:
    """The parsed label (None when the answer did not parse)."""
    value = (row.get("parsed") or {}).get("label")
    return str(value) if value is not None else None


def confidence(row: Row) -> float | None:
    value = (row.get("parsed") or {}).get("confidence")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and 0.0 <= value <= 1.0 else None


def abstain_label(run: Run) -> str:
    return str((run.metadata.get("reward_config") or {}).get("abstain_label") or "Abstain")


def classification(run: Run) -> tuple[list[str], list[str | None], list[float | None]]:
    """(golds, predicted labels, confidences) over a classification run's scored rows."""
    rows = run.scored_rows
    golds = [str(r.get("gold")) for r in rows]
    return golds, [label(r) for r in rows], [confidence(r) for r in rows]


ROW_MEANS: dict[str, Callable[[Row], float]] = {
    "accuracy": lambda r: float(label(r) is not None and label(r) == str(r.get("gold"))),
    "invalid_rate": lambda r: float(r.get("parsed") is None or r.get("error") is not None),
}
"""Run metrics that are a mean over examples, whatever the environment (each environment adds
its own: `RunMetrics.row_means`); used for a CI only where the mean reproduces the run's own
summary value (so an environment with another definition is never misreported)."""


def row_means(run: Run) -> dict[str, Callable[[Row], float]]:
    """The generic row means with the run's environment's own (those win on a clash)."""
    found = run_metrics_of(run)
    return {**ROW_MEANS, **(found.row_means if found is not None else {})}
