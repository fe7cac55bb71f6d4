"""Numbers over a run's scored rows: errored rollouts never enter an aggregate.

summary.json of an older harness counts an errored rollout as an invalid answer (reward of the
failed row, usually the invalid payoff). The report uses summary.json only when it was computed
over exactly the scored rows (same count, same mean reward); otherwise it recomputes the run
metrics from the scored rows with the environment's own function (its spec's `run_metrics`
hook, `sv_shared.run_metrics.RunMetrics.select`, the function its summary.json was made with).
A metric that cannot be recomputed is left out (shown as "–") rather than reported over the
errored rows.

One deterministic interval for the mean reward: summary.json's `reward_ci95` when the summary
covers the same rows, else a percentile bootstrap (`sv_shared.metrics.bootstrap_ci`, its
default 1000 resamples) over the rewards sorted by example id, seeded with the run's seed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError
from sv_shared.metrics import bootstrap_ci
from sv_shared.run_metrics import RunMetrics

if TYPE_CHECKING:  # a type only: runs.py imports this module
    from security_verifiers.reports.runs import Run

shared_reward_interval: Callable[..., list[float] | None] | None
try:  # the harness's one interval computation (summary.json, console table)
    from security_verifiers.evaluation.summary import reward_interval as _reward_interval

    shared_reward_interval = _reward_interval
except ImportError:  # an older harness: the identical bootstrap below
    shared_reward_interval = None

MATCH = 1e-9
N_RESAMPLES = 1000
"""Resamples of every per-run interval (bootstrap_ci's default, as the harness summary)."""

Rows = Sequence[Mapping[str, Any]]
MetricsFn = Callable[[Rows], dict[str, Any]]


def run_seed(run: Run, fallback: int = 0) -> int:
    """The seed of a run's own intervals: its metadata seed (else `fallback`)."""
    return run.seed if run.seed is not None else fallback


def rewards(run: Run) -> list[float]:
    """Rewards of the scored rows, in example-id order."""
    return [float(r.get("reward") or 0.0) for r in run.scored_rows]


def summary_covers_scored_rows(run: Run) -> bool:
    """Whether summary.json was computed over exactly the scored rows."""
    n, mean = run.summary.get("n"), run.summary.get("reward_mean")
    values = rewards(run)
    if not isinstance(n, int) or n != len(values):
        return False
    if not values:
        return True
    return isinstance(mean, int | float) and abs(float(mean) - statistics.fmean(values)) <= MATCH


def reward_ci(run: Run, fallback_seed: int = 0) -> tuple[float, tuple[float, float]] | None:
    """(mean reward, 95% CI) over the scored rows; None without any.

    Computed by the harness's `evaluation.summary.reward_interval` where that exists (the
    function behind summary.json and the console table), else by the same bootstrap here:
    scored rewards in example-id order, the run's seed, 1000 resamples.
    """
    values = rewards(run)
    if not values:
        return None
    mean = statistics.fmean(values)
    given = run.summary.get("reward_ci95")
    if summary_covers_scored_rows(run) and (pair := _pair(given)) is not None:
        return mean, pair
    seed = run_seed(run, fallback_seed)
    if shared_reward_interval is not None:
        interval = shared_reward_interval(run.scored_rows, seed, n_resamples=N_RESAMPLES)
        if (pair := _pair(interval)) is not None:
            return mean, pair
    low, high = bootstrap_ci(values, seed=seed, n_resamples=N_RESAMPLES)
    return mean, (low, high)


def mean_interval(values: Sequence[float], seed: int) -> tuple[float, tuple[float, float]] | None:
    """(mean, 95% CI) with the per-run resample count; None for no values."""
    if not values:
        return None
    low, high = bootstrap_ci(list(values), seed=seed, n_resamples=N_RESAMPLES)
    return statistics.fmean(values), (low, high)


def _pair(value: object) -> tuple[float, float] | None:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    ):
        return float(value[0]), float(value[1])
    return None


def _payoffs(run: Run) -> Any:
    config = (run.metadata.get("reward_config") or {}).get("payoffs")
    if not isinstance(config, Mapping):
        return None
    from sv_shared.rewards import Payoffs

    try:
        return Payoffs(
            correct=float(config.get("correct", 1.0)),
            abstain=float(config.get("abstain", 0.0)),
            cost_matrix=config.get("cost_matrix") or {},
            invalid=config.get("invalid"),
        )
    except (TypeError, ValueError):
        return None


def run_metrics_of(run: Run) -> RunMetrics | None:
    """The run's environment's `RunMetrics` (its spec's `run_metrics` hook); None for an
    environment the harness does not know, cannot import, or that has none."""
    try:
        found = resolve_env(run.env_key or run.env_id).hook("run_metrics")
    except (UserError, ImportError):
        return None
    return found if isinstance(found, RunMetrics) else None


def metrics_function(run: Run) -> MetricsFn | None:
    """The function that made the run's summary metrics from its rows, where it is known: the
    environment's `RunMetrics.select` with the run's env args and payoffs."""
    found = run_metrics_of(run)
    if found is None:
        return None
    env_args = run.metadata.get("env_args")
    return found.select(env_args if isinstance(env_args, Mapping) else {}, _payoffs(run))


def effective_metrics(run: Run) -> dict[str, Any]:
    """summary.json's metrics when it covers the scored rows, else recomputed from them."""
    given = run.summary_metrics
    if summary_covers_scored_rows(run):
        return dict(given)
    if not run.scored_rows:
        return {}
    fn = metrics_function(run)
    if fn is None:
        return {}
    try:
        return dict(fn(run.scored_rows))
    except Exception:  # an environment's function failing on odd rows: leave it out
        return {}


def metric_bootstrap_cis(
    run: Run, keys: Sequence[str], *, fallback_seed: int = 0, n_resamples: int = N_RESAMPLES
) -> dict[str, tuple[float, float]]:
    """Percentile 95% CIs of run metrics by resampling scored rows and recomputing them with
    the environment's function; only for keys whose full-sample value matches the report's."""
    rows = run.scored_rows
    fn = metrics_function(run)
    if not rows or fn is None or not keys:
        return {}
    try:
        full = fn(rows)
    except Exception:  # as above
        return {}
    shown = run.metrics
    wanted = [k for k in keys if _close(full.get(k), shown.get(k))]
    if not wanted:
        return {}
    rng = np.random.default_rng(run_seed(run, fallback_seed))
    samples: dict[str, list[float]] = {k: [] for k in wanted}
    for _ in range(n_resamples):
        idx = rng.integers(0, len(rows), size=len(rows))
        try:
            values = fn([rows[i] for i in idx])
        except Exception:  # as above
            return {}
        for key in wanted:
            value = values.get(key)
            if isinstance(value, int | float) and math.isfinite(value):
                samples[key].append(float(value))
    out = {}
    for key, draws in samples.items():
        if draws:
            low, high = np.quantile(draws, [0.025, 0.975])
            out[key] = (float(low), float(high))
    return out


def _close(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return False
    return abs(float(a) - float(b)) <= MATCH
