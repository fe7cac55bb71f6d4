"""Run-level numbers from results.jsonl rows, and the table printed at the end of a run."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from sv_shared.metrics import bootstrap_ci, classification_metrics
from sv_shared.rewards import Payoffs


def summarize(
    rows: Sequence[Mapping[str, Any]],
    *,
    payoffs: Payoffs | None,
    seed: int,
    env_metrics: Callable[[Sequence[Mapping[str, Any]]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Metrics over all rows; failed rollouts count as invalid answers (and are reported).

    `env_metrics` (an environment's `sv_metrics`) replaces the default classification metrics.
    """
    rewards = [float(r["reward"]) for r in rows]
    latencies = sorted(float(r.get("latency_s") or 0.0) for r in rows)
    summary: dict[str, Any] = {
        "n": len(rows),
        "n_errors": sum(1 for r in rows if r.get("error")),
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_ci95": list(bootstrap_ci(rewards, seed=seed)) if rewards else None,
        "reward_components_mean": _component_means(rows),
        "latency_s_p50": _quantile(latencies, 0.5),
        "latency_s_p95": _quantile(latencies, 0.95),
        "tool_s_mean": statistics.fmean(float(r.get("tool_s") or 0.0) for r in rows)
        if rows
        else None,
        "scoring_s_p50": _quantile(sorted(float(r.get("scoring_s") or 0.0) for r in rows), 0.5),
        "tokens_input": sum(int(r.get("tokens", {}).get("input", 0)) for r in rows),
        "tokens_output": sum(int(r.get("tokens", {}).get("output", 0)) for r in rows),
    }
    if rows and env_metrics is not None:
        summary["metrics"] = env_metrics(rows)
    elif rows and all("gold" in r for r in rows):
        parsed = [r.get("parsed") or {} for r in rows]
        summary["metrics"] = classification_metrics(
            [r["gold"] for r in rows],
            [p.get("label") for p in parsed],
            [p.get("confidence") for p in parsed],
            payoffs=payoffs,
        )
    return summary


def _component_means(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    names = sorted({name for r in rows for name in (r.get("rewards") or {})})
    return {
        name: statistics.fmean(float((r.get("rewards") or {}).get(name, 0.0)) for r in rows)
        for name in names
    }


def _quantile(sorted_values: Sequence[float], q: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))
    return sorted_values[index]


TABLE_COLUMNS = (
    ("reward", "reward_mean"),
    ("acc", "accuracy"),
    ("F1", "f1"),
    ("FPR", "fpr"),
    ("FNR", "fnr"),
    ("FNR ans", "fnr_answered"),
    ("cover", "coverage"),
    ("Brier", "brier"),
    ("ECE", "ece"),
    ("abstain", "abstain_rate"),
    ("invalid", "invalid_rate"),
    ("cost", "cost_weighted_score"),
    ("det P", "detection_precision"),
    ("det R", "detection_recall"),
    ("det F1", "detection_f1"),
    ("clean pass", "clean_pass_rate"),
    ("FP clean", "false_positives_on_clean"),
    ("patch ok", "patch_success_rate"),
    ("new viol", "new_violations_mean"),
    ("tool calls", "tool_calls_mean"),
    ("repair", "repair_rate"),
    ("evid P", "evidence_precision"),
    ("ASR", "attack_success_rate"),
    ("turns→succ", "turns_to_success_mean"),
    ("novelty", "novelty_mean"),
    ("harm comply", "harmful_compliance_rate"),
    ("refuse harm", "refusal_rate_harmful"),
    ("over-refuse", "over_refusal_rate"),
    ("helpful", "helpful_rate_benign"),
)
"""Candidate columns; a column is shown when any model in the table has a value for it.

F1 and FNR count an abstained or invalid positive as missed; "FNR ans" is over answered items."""


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def print_summary_table(results: Sequence[tuple[str, Mapping[str, Any]]], console: Console) -> None:
    """One row per model: mean reward (95% CI) and the headline metrics."""

    def value(summary: Mapping[str, Any], key: str) -> Any:
        return summary.get(key) if key == "reward_mean" else (summary.get("metrics") or {}).get(key)

    columns = [
        (header, key)
        for header, key in TABLE_COLUMNS
        if any(value(summary, key) is not None for _, summary in results)
    ]
    table = Table(title="Evaluation summary", show_lines=False)
    table.add_column("model")
    table.add_column("n", justify="right")
    for header, _ in columns:
        table.add_column(header, justify="right")
    table.add_column("reward 95% CI", justify="right")
    for model, summary in results:
        cells = [_fmt(value(summary, key)) for _, key in columns]
        ci = summary.get("reward_ci95")
        ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "–"
        table.add_row(model, str(summary.get("n")), *cells, ci_text)
    console.print(table)
