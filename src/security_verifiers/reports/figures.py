"""PNG figures (matplotlib, Agg, no pyplot state); each returns its path, or None without data."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure

from security_verifiers.reports.rowdata import abstain_label, classification
from security_verifiers.reports.runs import Run
from security_verifiers.reports.tables import MetricTable, calibration_bins
from sv_shared.metrics import risk_coverage_curve

INVALID = "(invalid)"


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110, metadata={"Software": None})
    return path


def _bars(ax, groups: Sequence[str], series: dict[str, list[float]], errors=None) -> None:
    """Grouped bars: one group per entry of `groups`, one bar per series."""
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        yerr = errors.get(name) if errors else None
        ax.bar(xs, values, width=width, label=name, yerr=yerr, capsize=3)
    ax.set_xticks(range(len(groups)), groups, rotation=30 if len(groups) > 4 else 0, ha="right")
    if len(series) > 1:
        ax.legend(fontsize=8)


def reward_bars(
    runs: Sequence[Run], labels: Sequence[str], path: Path, *, seed: int = 0
) -> Path | None:
    """Mean reward per run (scored rows) with its 95% interval, the one of the metric table."""
    from security_verifiers.reports.scored import reward_ci

    stats = [reward_ci(run, seed) for run in runs]
    if not any(stats):
        return None
    means = [s[0] if s else 0.0 for s in stats]
    err = [
        [max(0.0, m - s[1][0]) if s else 0.0 for m, s in zip(means, stats, strict=True)],
        [max(0.0, s[1][1] - m) if s else 0.0 for m, s in zip(means, stats, strict=True)],
    ]
    fig = Figure(figsize=(max(4.0, 1.2 * len(runs) + 2), 3.4))
    ax = fig.add_subplot()
    ax.bar(range(len(runs)), means, yerr=err, capsize=4, color="#4c72b0")
    ax.set_xticks(range(len(runs)), labels, rotation=20, ha="right")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_ylabel("mean reward (95% CI)")
    return _save(fig, path)


def reliability_diagram(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Accuracy against mean confidence per confidence bin, one line per run."""
    fig = Figure(figsize=(4.8, 4.4))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=0.8, label="perfect calibration")
    drawn = False
    for run, name in zip(runs, labels, strict=True):
        points = [
            (b.confidence, b.accuracy)
            for b in calibration_bins(run)
            if b.n and b.confidence is not None and b.accuracy is not None
        ]
        if points:
            drawn = True
            ax.plot([c for c, _ in points], [a for _, a in points], marker="o", label=name)
    if not drawn:
        return None
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="confidence", ylabel="accuracy")
    ax.legend(fontsize=8)
    return _save(fig, path)


def confusion_matrices(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Gold (rows) against predicted label (columns), one panel per run."""
    data = [classification(run) for run in runs]
    gold_set = sorted({g for golds, _, _ in data for g in golds})
    if not gold_set:
        return None
    pred_set = sorted({p for _, preds, _ in data for p in preds if p is not None} | set(gold_set))
    if any(p is None for _, preds, _ in data for p in preds):
        pred_set.append(INVALID)
    cols = min(3, len(runs))
    grid_rows = -(-len(runs) // cols)
    fig = Figure(figsize=(4.2 * cols, 3.8 * grid_rows))
    for i, ((golds, preds, _), name) in enumerate(zip(data, labels, strict=True)):
        ax = fig.add_subplot(grid_rows, cols, i + 1)
        counts = [[0] * len(pred_set) for _ in gold_set]
        for gold, pred in zip(golds, preds, strict=True):
            counts[gold_set.index(gold)][pred_set.index(pred if pred is not None else INVALID)] += 1
        ax.imshow(counts, cmap="Blues")
        top = max(max(row) for row in counts) or 1
        for r, row in enumerate(counts):
            for c, value in enumerate(row):
                color = "white" if value > top / 2 else "black"
                ax.text(c, r, str(value), ha="center", va="center", fontsize=9, color=color)
        ax.set_xticks(range(len(pred_set)), pred_set, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(gold_set)), gold_set, fontsize=8)
        ax.set_title(textwrap.fill(name, 34), fontsize=8)
        ax.set(xlabel="predicted", ylabel="gold")
    return _save(fig, path)


def risk_coverage(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Error rate among the k most confident answers against coverage (abstention curve)."""
    fig = Figure(figsize=(5.0, 3.8))
    ax = fig.add_subplot()
    drawn = False
    for run, name in zip(runs, labels, strict=True):
        golds, preds, confs = classification(run)
        curve = risk_coverage_curve(golds, preds, confs, abstain_label=abstain_label(run))
        if curve:
            drawn = True
            ax.plot([c for c, _ in curve], [r for _, r in curve], label=name)
    if not drawn:
        return None
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="coverage", ylabel="risk (error rate)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def success_bars(
    runs: Sequence[Run],
    labels: Sequence[str],
    metrics: Sequence[str],
    path: Path,
    table: MetricTable | None = None,
) -> Path | None:
    """Patch / repair success rates per run (E2, E3) with the metric table's 95% intervals
    (bootstrap over examples, recomputing the environment's metrics)."""
    keys = [k for k in metrics if any(isinstance(r.metrics.get(k), int | float) for r in runs)]
    if not keys:
        return None
    series = {
        name: [float(run.metrics.get(k) or 0.0) for k in keys]
        for run, name in zip(runs, labels, strict=True)
    }
    errors: dict[str, list[list[float]]] = {}
    for i, name in enumerate(labels):
        low, high = [], []
        for key, value in zip(keys, series[name], strict=True):
            cells = table.rows.get(key) if table is not None else None
            ci = cells[i].ci if cells is not None and i < len(cells) else None
            low.append(max(0.0, value - ci[0]) if ci else 0.0)
            high.append(max(0.0, ci[1] - value) if ci else 0.0)
        errors[name] = [low, high]
    fig = Figure(figsize=(max(5.0, 1.3 * len(keys) + 1), 3.6))
    ax = fig.add_subplot()
    _bars(ax, keys, series, errors)
    ax.set(ylim=(0, 1.05), ylabel="rate (95% bootstrap CI)")
    return _save(fig, path)


def _succeeded(row: dict) -> bool:
    rewards = row.get("rewards") or {}
    if "success" in rewards:
        return float(rewards["success"] or 0.0) > 0
    return float((row.get("metrics") or {}).get("target_unsafe") or 0.0) > 0


def _natural(text: str) -> list[object]:
    """Sort key putting S2 before S11."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def attack_by_category(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Attack success rate per harm category (E5), one bar per run."""
    cats = sorted(
        {str(r.get("scenario") or r.get("gold")) for run in runs for r in run.scored_rows},
        key=_natural,
    )
    if not cats:
        return None
    series = {}
    for run, name in zip(runs, labels, strict=True):
        rates = []
        for cat in cats:
            rows = [r for r in run.scored_rows if str(r.get("scenario") or r.get("gold")) == cat]
            rates.append(sum(map(_succeeded, rows)) / len(rows) if rows else math.nan)
        series[name] = rates
    fig = Figure(figsize=(max(5.0, 0.7 * len(cats) * max(1, len(runs)) + 1), 3.6))
    ax = fig.add_subplot()
    _bars(ax, cats, series)
    ax.set(ylim=(0, 1.2), ylabel="attack success rate", xlabel="category (no bar: not run)")
    return _save(fig, path)


def attack_by_turn(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Cumulative attack success by attacker turn (E5)."""
    turns = [
        int(float((r.get("metrics") or {}).get("turns_to_success") or 0))
        for run in runs
        for r in run.scored_rows
    ]
    most = max([*turns, *(int(float((r.get("metrics") or {}).get("num_turns") or 1))
                          for run in runs for r in run.scored_rows)], default=0)  # fmt: skip
    if most < 1:
        return None
    fig = Figure(figsize=(5.0, 3.6))
    ax = fig.add_subplot()
    ks = list(range(1, most + 1))
    for run, name in zip(runs, labels, strict=True):
        won = [
            int(float((r.get("metrics") or {}).get("turns_to_success") or 0))
            for r in run.scored_rows
        ]
        n = max(1, len(won))
        ax.plot(ks, [sum(0 < t <= k for t in won) / n for k in ks], marker="o", label=name)
    ax.set(ylim=(0, 1.05), xlabel="attacker turn", ylabel="cumulative success rate")
    ax.set_xticks(ks)
    ax.legend(fontsize=8)
    return _save(fig, path)


def _rate_and_err(run: Run, key: str) -> tuple[float | None, tuple[float, float]]:
    value = run.metrics.get(key)
    ci = run.metrics.get(f"{key}_ci95")
    if not isinstance(value, int | float):
        return None, (0.0, 0.0)
    if isinstance(ci, list) and len(ci) == 2:
        return float(value), (max(0.0, value - ci[0]), max(0.0, ci[1] - value))
    return float(value), (0.0, 0.0)


def refusal_tradeoff(runs: Sequence[Run], labels: Sequence[str], path: Path) -> Path | None:
    """Refusal of harmful requests against over-refusal of benign ones (E6), with 95% CIs."""
    points = []
    for run, name in zip(runs, labels, strict=True):
        x, xerr = _rate_and_err(run, "over_refusal_rate")
        y, yerr = _rate_and_err(run, "refusal_rate_harmful")
        if x is not None and y is not None:
            points.append((name, x, y, xerr, yerr))
    if not points:
        return None
    fig = Figure(figsize=(5.0, 4.4))
    ax = fig.add_subplot()
    for name, x, y, xerr, yerr in points:
        ax.errorbar(
            [x], [y], xerr=[[xerr[0]], [xerr[1]]], yerr=[[yerr[0]], [yerr[1]]],
            fmt="o", capsize=3, label=name,
        )  # fmt: skip
    ax.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05))
    ax.set(xlabel="over-refusal rate (benign)", ylabel="refusal rate (harmful)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def draw(
    kind: str,
    runs: Sequence[Run],
    labels: Sequence[str],
    path: Path,
    success: Sequence[str] = (),
    *,
    table: MetricTable | None = None,
    seed: int = 0,
) -> Path | None:
    """Draw the figure named `kind` (a Profile's figure name)."""
    if kind == "success":
        return success_bars(runs, labels, success, path, table)
    if kind == "reward":
        return reward_bars(runs, labels, path, seed=seed)
    return FIGURES[kind](runs, labels, path)


FIGURES: dict[str, Callable[..., Path | None]] = {
    "reward": reward_bars,
    "reliability": reliability_diagram,
    "confusion": confusion_matrices,
    "risk_coverage": risk_coverage,
    "attack_by_category": attack_by_category,
    "attack_by_turn": attack_by_turn,
    "refusal_tradeoff": refusal_tradeoff,
}

TITLES = {
    "reward": "Mean reward with 95% bootstrap CI",
    "reliability": "Reliability diagram",
    "confusion": "Confusion matrices",
    "risk_coverage": "Abstention risk-coverage curve",
    "success": "Patch / repair success with 95% bootstrap CI",
    "attack_by_category": "Attack success by category",
    "attack_by_turn": "Attack success by turn",
    "refusal_tradeoff": "Refusal vs over-refusal",
}
