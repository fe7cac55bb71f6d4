"""Metric tables with 95% bootstrap intervals, and calibration bins."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from security_verifiers.reports.classboot import classification_cis
from security_verifiers.reports.profiles import Profile
from security_verifiers.reports.rowdata import abstain_label, classification, row_means
from security_verifiers.reports.runs import Run
from security_verifiers.reports.scored import (
    mean_interval,
    metric_bootstrap_cis,
    reward_ci,
    run_seed,
)

MATCH = 1e-9


@dataclass(frozen=True)
class Cell:
    """A metric's value and 95% CI (None where the run has no such value or interval)."""

    value: float | None
    ci: tuple[float, float] | None = None


@dataclass(frozen=True)
class MetricTable:
    """Rows are metric names, columns the runs (same order as `labels`)."""

    labels: list[str]
    rows: dict[str, list[Cell]]


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _reward_cells(run: Run, seed: int) -> dict[str, Cell]:
    """Mean reward and components over the scored rows (errored rollouts left out)."""
    cells: dict[str, Cell] = {}
    result = reward_ci(run, seed)
    cells["reward"] = Cell(*result) if result else Cell(None)
    rows = run.scored_rows
    names = sorted({k for r in rows for k in (r.get("rewards") or {})})
    for name in names:
        values = [float((r.get("rewards") or {}).get(name) or 0.0) for r in rows]
        result = mean_interval(values, run_seed(run, seed))
        cells[f"reward:{name}"] = Cell(*result) if result else Cell(None)
    return cells


def _classification_cis(run: Run, positive: str, seed: int) -> dict[str, tuple[float, float]]:
    """Percentile CIs of the classification metrics by resampling examples."""
    golds, preds, confs = classification(run)
    return classification_cis(
        golds,
        preds,
        confs,
        run.metrics,
        positive=positive,
        abstain=abstain_label(run),
        seed=run_seed(run, seed),
    )


def _metric_cell(run: Run, key: str, class_cis: dict[str, tuple[float, float]], seed: int) -> Cell:
    value = _number(run.metrics.get(key))
    if value is None:
        return Cell(None)
    given = run.metrics.get(f"{key}_ci95")
    if (
        isinstance(given, list | tuple)
        and len(given) == 2
        and all(_number(x) is not None for x in given)
    ):
        return Cell(value, (float(given[0]), float(given[1])))
    extract = row_means(run).get(key)
    if extract is not None and run.scored_rows:
        result = mean_interval([extract(r) for r in run.scored_rows], run_seed(run, seed))
        if result and abs(result[0] - value) <= MATCH:
            return Cell(value, result[1])
    return Cell(value, class_cis.get(key))


def _metric_keys(runs: Sequence[Run], profile: Profile) -> list[str]:
    keys = [k for k in profile.metrics if any(_number(r.metrics.get(k)) is not None for r in runs)]
    if keys:
        return keys
    seen: dict[str, None] = {}
    for run in runs:
        for key, value in run.metrics.items():
            if _number(value) is not None and not key.endswith("_n") and key != "n":
                seen[key] = None
    return list(seen)


def metric_table(
    runs: Sequence[Run], labels: list[str], profile: Profile, *, seed: int = 0
) -> MetricTable:
    """Reward and its components (mean over examples) then the profile's run metrics."""
    per_run = [_reward_cells(run, seed) for run in runs]
    rows: dict[str, list[Cell]] = {}
    reward_keys = ["reward", *sorted({k for cells in per_run for k in cells if k != "reward"})]
    for key in reward_keys:
        rows[key] = [cells.get(key, Cell(None)) for cells in per_run]
    class_cis = [
        _classification_cis(run, profile.positive_label, seed) if profile.positive_label else {}
        for run in runs
    ]
    if profile.success_metrics:  # E2/E3: recompute the env's metrics on resampled rows
        class_cis = [
            {**metric_bootstrap_cis(run, profile.success_metrics, fallback_seed=seed), **cis}
            for run, cis in zip(runs, class_cis, strict=True)
        ]
    for key in _metric_keys(runs, profile):
        rows[key] = [
            _metric_cell(run, key, cis, seed) for run, cis in zip(runs, class_cis, strict=True)
        ]
    return MetricTable(labels, rows)


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    n: int
    confidence: float | None
    accuracy: float | None


def calibration_bins(run: Run, n_bins: int = 10, *, empty: bool = False) -> list[CalibrationBin]:
    """Equal-width confidence bins over answered examples with a confidence (as in ECE);
    bins without examples are left out unless `empty`."""
    golds, preds, confs = classification(run)
    abstain = abstain_label(run)
    members: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for gold, pred, conf in zip(golds, preds, confs, strict=True):
        if pred is None or pred == abstain or conf is None:
            continue
        members[min(int(conf * n_bins), n_bins - 1)].append((conf, pred == gold))
    out = []
    for i, group in enumerate(members):
        n = len(group)
        if not n and not empty:
            continue
        out.append(
            CalibrationBin(
                i / n_bins,
                (i + 1) / n_bins,
                n,
                sum(c for c, _ in group) / n if n else None,
                sum(ok for _, ok in group) / n if n else None,
            )
        )
    return out
