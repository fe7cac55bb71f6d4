"""Run-level numbers from results.jsonl rows, and the table printed at the end of a run."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from sv_shared.metrics import bootstrap_ci, classification_metrics
from sv_shared.rewards import Payoffs


def is_answer(row: Mapping[str, Any]) -> bool:
    """True for a rollout with a scored answer; False for one whose model call (or scoring)
    failed — an error, never counted as an answer."""
    return not row.get("error") and row.get("reward") is not None


def example_order(row: Mapping[str, Any]) -> tuple[int, Any]:
    """Sort key: example id (numbers before strings), independent of completion order."""
    key = row.get("example_id")
    return (0, key) if isinstance(key, int) else (1, str(key))


def reward_interval(
    rows: Sequence[Mapping[str, Any]], seed: int, n_resamples: int = 1000
) -> list[float] | None:
    """Percentile-bootstrap 95% CI of the mean reward of the scored rows, resampled in example
    order with `seed` (the run's seed): two runs with the same per-example rewards get the
    same interval whatever order their rollouts finished in. None when nothing was scored."""
    scored = sorted((r for r in rows if is_answer(r)), key=example_order)
    if not scored:
        return None
    rewards = [float(r["reward"]) for r in scored]
    return list(bootstrap_ci(rewards, seed=seed, n_resamples=n_resamples))


def summarize(
    rows: Sequence[Mapping[str, Any]],
    *,
    payoffs: Payoffs | None,
    seed: int,
    env_metrics: Callable[[Sequence[Mapping[str, Any]]], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Metrics over the scored rows. Rollouts that errored (no answer from the model, or a
    failed scoring) are left out of every aggregate and counted in `n_errors`.

    `n` is the number of scored answers, `n_rollouts` every row. `env_metrics` (an
    environment's `sv_metrics`) replaces the default classification metrics.
    """
    all_rows = sorted(rows, key=example_order)
    answered = [r for r in all_rows if is_answer(r)]
    rewards = [float(r["reward"]) for r in answered]
    latencies = sorted(float(r.get("latency_s") or 0.0) for r in answered)
    summary: dict[str, Any] = {
        "n": len(answered),
        "n_errors": len(all_rows) - len(answered),
        "n_rollouts": len(all_rows),
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_ci95": reward_interval(answered, seed),
        "reward_components_mean": _component_means(answered),
        "latency_s_p50": _quantile(latencies, 0.5),
        "latency_s_p95": _quantile(latencies, 0.95),
        "tool_s_mean": statistics.fmean(float(r.get("tool_s") or 0.0) for r in answered)
        if answered
        else None,
        "scoring_s_p50": _quantile(sorted(float(r.get("scoring_s") or 0.0) for r in answered), 0.5),
        "tokens_input": sum(int(r.get("tokens", {}).get("input", 0)) for r in all_rows),
        "tokens_output": sum(int(r.get("tokens", {}).get("output", 0)) for r in all_rows),
        "tokens_reasoning": sum(
            int(r.get("tokens", {}).get("reasoning", 0) or 0) for r in all_rows
        ),
    }
    errors = [str(r["error"]) for r in all_rows if r.get("error")]
    if errors:
        summary["first_error"] = errors[0]
        kinds: dict[str, int] = {}
        for row in all_rows:
            if not is_answer(row):
                kind = str(row.get("error_kind") or "error")
                kinds[kind] = kinds.get(kind, 0) + 1
        summary["errors_by_kind"] = kinds
        summary["first_error_by_kind"] = {
            kind: next(str(r["error"]) for r in all_rows
                       if not is_answer(r) and str(r.get("error_kind") or "error") == kind)
            for kind in kinds
        }  # fmt: skip
    if answered and all("gold" in r for r in answered):
        summary.update(class_balance(answered))
    if answered and env_metrics is not None:
        summary["metrics"] = env_metrics(answered)
    elif answered and all("gold" in r for r in answered):
        parsed = [r.get("parsed") or {} for r in answered]
        summary["metrics"] = classification_metrics(
            [r["gold"] for r in answered],
            [p.get("label") for p in parsed],
            [p.get("confidence") for p in parsed],
            payoffs=payoffs,
        )
    return summary


def class_balance(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The gold-label mix and the class-balanced mean reward (the mean over gold classes of
    each class's mean reward), so that a constant answer cannot win on a skewed file."""
    by_class: dict[str, list[float]] = {}
    for row in rows:
        by_class.setdefault(str(row["gold"]), []).append(float(row["reward"]))
    n = sum(len(v) for v in by_class.values())
    return {
        "gold_prevalence": {k: len(v) / n for k, v in sorted(by_class.items())},
        "reward_mean_class_balanced": statistics.fmean(
            statistics.fmean(v) for v in by_class.values()
        ),
    }


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
    ("balanced", "reward_mean_class_balanced"),
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


WIDE_TABLE_MIN_COLUMNS = 120
"""Below this console width the summary is printed one model per column (metrics as rows)."""


def _ci_text(summary: Mapping[str, Any]) -> str:
    ci = summary.get("reward_ci95")
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "–"


def print_summary_table(results: Sequence[tuple[str, Mapping[str, Any]]], console: Console) -> None:
    """Mean reward (95% CI), errors and the headline metrics of each model.

    At 120 columns or more (and when it fits) one row per model; narrower, the table is
    transposed — one row per metric, one column per model — so no number is ever cut.
    """

    def value(summary: Mapping[str, Any], key: str) -> Any:
        if key in ("reward_mean", "reward_mean_class_balanced"):
            return summary.get(key)
        return (summary.get("metrics") or {}).get(key)

    columns = [
        (header, key)
        for header, key in TABLE_COLUMNS
        if any(value(summary, key) is not None for _, summary in results)
    ]
    lines: list[tuple[str, list[str]]] = [
        ("n", [str(summary.get("n")) for _, summary in results]),
        ("errors", [str(summary.get("n_errors") or 0) for _, summary in results]),
        *(
            (header, [_fmt(value(summary, key)) for _, summary in results])
            for header, key in columns
        ),
        ("reward 95% CI", [_ci_text(summary) for _, summary in results]),
    ]
    models = [model for model, _ in results]
    wide_width = (
        sum(max(len(header), *(len(c) for c in cells)) + 3 for header, cells in lines)
        + max((len(m) for m in models), default=5)
        + 4
    )
    if console.width >= WIDE_TABLE_MIN_COLUMNS and wide_width <= console.width:
        table = Table(title="Evaluation summary", show_lines=False)
        table.add_column("model", overflow="fold")
        for header, _ in lines:
            table.add_column(header, justify="right", no_wrap=True)
        for i, model in enumerate(models):
            table.add_row(model, *(cells[i] for _, cells in lines))
        console.print(table)
    else:  # transposed, in as many blocks of models as the width needs
        per_block = max(1, (console.width - 18) // 19)
        for start in range(0, len(models), per_block):
            table = Table(title="Evaluation summary", show_lines=False)
            table.add_column("metric", no_wrap=True)
            for model in models[start : start + per_block]:
                table.add_column(model, justify="right", overflow="fold", min_width=16)
            for header, cells in lines:
                table.add_row(header, *cells[start : start + per_block])
            console.print(table)
    note = skew_note(results)
    if note:
        console.print(note)


SKEWED_MINORITY_SHARE = 0.4
"""Below this share of the rarer gold class, the summary points to the balanced column."""


def skew_note(results: Sequence[tuple[str, Mapping[str, Any]]]) -> str | None:
    """One line naming the gold-label mix when it is skewed enough that a constant answer
    could look good on the plain mean (then read the class-balanced column)."""
    for _, summary in results:
        mix = summary.get("gold_prevalence") or {}
        if len(mix) >= 2 and min(mix.values()) < SKEWED_MINORITY_SHARE:
            shares = ", ".join(f"{label} {share:.0%}" for label, share in sorted(mix.items()))
            return (
                f"note: the gold labels are skewed ({shares}); a constant answer can score well "
                "on the plain mean reward, so compare models on 'balanced'"
            )
    return None
