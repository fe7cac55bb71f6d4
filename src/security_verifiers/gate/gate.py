"""Compare a candidate run with a baseline on the environment's core metrics.

The change of a metric is relative to the baseline, `(candidate - baseline) / |baseline|`, or
the plain difference when the baseline is 0. A metric *regresses* when it moves the wrong way
(down if higher is better, up if lower is better) by more than `max_drop`; in two-sided mode
(golden checks of deterministic baselines) any move larger than `max_drop` fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from security_verifiers.errors import UserError
from security_verifiers.gate.core_metrics import CoreMetric, core_metrics, metric_value
from security_verifiers.gate.snapshot import Snapshot, identity_notes, load_baseline, load_run

ZERO = 1e-12
"""Baselines closer to 0 than this are compared by absolute difference."""

FAILING = frozenset({"REGRESSED", "CHANGED", "MISSING"})


@dataclass(frozen=True)
class MetricRow:
    metric: CoreMetric
    baseline: float | None
    candidate: float | None
    change: float | None
    relative: bool
    verdict: str

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING


@dataclass
class GateResult:
    baseline: Snapshot
    candidate: Snapshot
    max_drop: float
    rows: list[MetricRow]
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(row.failed for row in self.rows)

    @property
    def failures(self) -> list[str]:
        return [row.metric.key for row in self.rows if row.failed]


def change_of(baseline: float, candidate: float) -> tuple[float, bool]:
    """(change, is_relative): relative to |baseline|, absolute when the baseline is 0."""
    if abs(baseline) <= ZERO:
        return candidate - baseline, False
    return (candidate - baseline) / abs(baseline), True


def judge(
    metric: CoreMetric,
    baseline: float | None,
    candidate: float | None,
    max_drop: float,
    two_sided: bool = False,
) -> MetricRow:
    """One table row with its verdict."""
    if baseline is None:
        verdict = "n/a" if candidate is None else "new"
        return MetricRow(metric, baseline, candidate, None, False, verdict)
    if candidate is None:
        return MetricRow(metric, baseline, candidate, None, False, "MISSING")
    change, relative = change_of(baseline, candidate)
    worse = -change if metric.higher_is_better else change
    slack = max_drop + 1e-12
    if two_sided and abs(change) > slack:
        verdict = "CHANGED"
    elif worse > slack:
        verdict = "REGRESSED"
    elif abs(change) <= 1e-12:
        verdict = "same"
    else:
        verdict = "better" if worse < 0 else "ok"
    return MetricRow(metric, baseline, candidate, change, relative, verdict)


def compare(
    baseline: Snapshot, candidate: Snapshot, max_drop: float = 0.03, *, two_sided: bool = False
) -> GateResult:
    """Gate `candidate` against `baseline` on the environment's core metrics."""
    if max_drop < 0:
        raise UserError(f"--max-drop must be >= 0, got {max_drop}")
    if baseline.env_id != candidate.env_id:
        raise UserError(
            f"cannot gate across environments: baseline is {baseline.env_id}, "
            f"candidate is {candidate.env_id}"
        )
    rows = [
        judge(
            metric,
            metric_value(baseline.summary, metric.key),
            metric_value(candidate.summary, metric.key),
            max_drop,
            two_sided,
        )
        for metric in core_metrics(candidate.env_id)
    ]
    notes = identity_notes(baseline, candidate)
    if baseline.model != candidate.model:
        notes.insert(0, f"models differ: {baseline.model} → {candidate.model}")
    return GateResult(baseline, candidate, max_drop, rows, notes)


def gate_paths(
    baseline: Path, candidate: Path, max_drop: float = 0.03, model: str | None = None
) -> GateResult:
    """Gate a candidate run directory against a run directory or golden file."""
    cand = load_run(candidate)
    base = load_baseline(baseline, model or cand.model, cand.env_id)
    return compare(base, cand, max_drop)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _fmt_change(row: MetricRow) -> str:
    if row.change is None:
        return "–"
    return f"{row.change:+.2%}" if row.relative else f"{row.change:+.4f} (abs)"


STYLES = {"REGRESSED": "bold red", "CHANGED": "bold red", "MISSING": "bold red", "better": "green"}


def gate_table(result: GateResult, title: str | None = None) -> Table:
    """Metric, baseline, candidate, change and verdict, one row per core metric."""
    table = Table(
        title=title or f"Gate: {result.candidate.env_id} · {result.candidate.model}",
        caption=f"max drop {result.max_drop:.2%} (relative; absolute when the baseline is 0)",
    )
    for name in ("metric", "baseline", "candidate", "change"):
        table.add_column(name, justify="left" if name == "metric" else "right")
    table.add_column("verdict")
    for row in result.rows:
        style = STYLES.get(row.verdict, "")
        table.add_row(
            f"{row.metric.key} {row.metric.arrow}",
            _fmt(row.baseline),
            _fmt(row.candidate),
            _fmt_change(row),
            f"[{style}]{row.verdict}[/{style}]" if style else row.verdict,
        )
    return table


def print_result(result: GateResult, console: Console, title: str | None = None) -> None:
    """The table, identity notes and a one-line verdict."""
    console.print(gate_table(result, title))
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {note}")
    if result.passed:
        console.print("[green]PASS[/green]")
    else:
        console.print(f"[bold red]FAIL[/bold red]: {', '.join(result.failures)}")
