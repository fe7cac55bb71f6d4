"""Example-level values pulled out of results.jsonl rows."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from security_verifiers.reports.runs import Run

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


def _metric(name: str) -> Callable[[Row], float]:
    return lambda r: float((r.get("metrics") or {}).get(name) or 0.0)


def _reward(name: str) -> Callable[[Row], float]:
    return lambda r: float((r.get("rewards") or {}).get(name) or 0.0)


ROW_MEANS: dict[str, Callable[[Row], float]] = {
    "accuracy": lambda r: float(label(r) is not None and label(r) == str(r.get("gold"))),
    "invalid_rate": lambda r: float(r.get("parsed") is None or r.get("error") is not None),
    "repair_rate": _metric("repaired"),
    "patch_apply_rate": _metric("patch_applied"),
    "targeted_fixed_rate": _metric("targeted_fixed"),
    "tamper_rate": _metric("tampered"),
    "f2p_rate": _metric("f2p_rate"),
    "p2p_rate": _metric("p2p_rate"),
    "attack_success_rate": _reward("success"),
    "cost_weighted_score": _reward("decision"),
    "target_unsafe_rate": _metric("target_unsafe"),
    "attacker_violation_rate": _metric("attacker_flagged"),
}
"""Run metrics that are a mean over examples; used for a CI only where the mean reproduces the
run's own summary value (so an environment with another definition is never misreported)."""
