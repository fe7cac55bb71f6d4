"""One line per metric a report can show; the report lists those its tables contain.

`DEFINITIONS` are the environment-independent ones (reward, the classification metrics);
each environment defines its own metrics in its `RunMetrics.definitions` (spec hook
`run_metrics`), which the report passes in."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

COMMON = (
    "All numbers are over scored rollouts: rollouts that errored (server error, timeout; a "
    "non-empty `error` in results.jsonl) are left out of every mean, rate, interval and paired "
    "comparison, and counted in the provenance table. Intervals are 95% percentile bootstraps "
    "over examples (rows in example-id order, seeded with the run's seed), or the run's own "
    "interval from summary.json when that was computed over the same rows."
)

DEFINITIONS: dict[str, str] = {
    "reward": "mean total reward per example (weighted sum of the reward components).",
    "accuracy": "correct / all scored examples (abstentions and invalid answers are not correct).",
    "selective_accuracy": "correct / answered examples.",
    "precision": "true positives / predicted positives (answered examples).",
    "recall": "true positives / all gold positives; abstained or invalid positives are misses.",
    "f1": "harmonic mean of precision and recall, abstentions counted as misses.",
    "fpr": "false positives / answered gold negatives.",
    "fnr": "missed positives / all gold positives (abstained or invalid positives are missed); "
    "1 − recall.",
    "recall_answered": "true positives / gold positives that were answered.",
    "f1_answered": "F1 over answered examples only (abstentions left out).",
    "fnr_answered": "false negatives / gold positives that were answered (FNR answered).",
    "coverage": "answered (not abstained, not invalid) / all scored examples.",
    "abstain_rate": "abstentions / all scored examples.",
    "invalid_rate": "answers that did not parse / all scored examples.",
    "brier": "mean (confidence − 1[correct])² over answered examples with a confidence "
    "(lower is better).",
    "ece": "expected calibration error: count-weighted mean |accuracy − confidence| over ten "
    "equal-width confidence bins of answered examples (lower is better).",
    "aurc": "area under the risk-coverage curve: mean error rate among the k most confident "
    "answers, k = 1..answered (lower is better).",
    "cost_weighted_score": "mean decision payoff under the run's payoffs and cost matrix "
    "(correct, abstain, invalid, cost of each wrong label).",
}

COMPONENT = "mean of the `{name}` reward component per example (before weighting)."


def definition(key: str, env_definitions: Iterable[Mapping[str, str]] = ()) -> str | None:
    """The line for `key`: the environments' own (distinct lines joined, when several of the
    report's environments define it), else the generic one."""
    if key.startswith("reward:"):
        return COMPONENT.format(name=key.removeprefix("reward:"))
    own = list(dict.fromkeys(defs[key] for defs in env_definitions if key in defs))
    return " ".join(own) if own else DEFINITIONS.get(key)


def definitions_for(
    keys: Iterable[str], env_definitions: Iterable[Mapping[str, str]] = ()
) -> list[tuple[str, str]]:
    """(metric, one-line definition) for each distinct key in order, looked up in the report's
    environments' definitions and the generic ones; unknown keys say so."""
    envs = list(env_definitions)
    out: dict[str, str] = {}
    for key in keys:
        if key not in out:
            out[key] = definition(key, envs) or "as reported by the environment (see its README)."
    return list(out.items())
