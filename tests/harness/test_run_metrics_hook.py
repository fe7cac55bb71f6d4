"""The run-metrics hook: the one function behind summary.json and the report, and the metric
definitions a report lists, come from each environment's `RunMetrics` (its spec's hook)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.evaluation.summary import summarize
from security_verifiers.reports.definitions import DEFINITIONS, definition, definitions_for
from security_verifiers.reports.rowdata import ROW_MEANS, row_means
from security_verifiers.reports.runs import Run
from security_verifiers.reports.scored import metrics_function, run_metrics_of
from sv_shared.run_metrics import RunMetrics
from sv_shared.spec import LoadedEnvInfo

KEYS = sorted(ENVIRONMENTS)


def _run(key: str, rows: list[dict[str, Any]], **metadata: Any) -> Run:
    entry = ENVIRONMENTS[key]
    meta = {"env": key, "env_id": entry.env_id, **metadata}
    return Run(Path("/nonexistent"), meta, {}, rows)


@pytest.mark.parametrize("key", KEYS)
def test_every_environment_has_run_metrics_with_definitions(key: str) -> None:
    spec = ENVIRONMENTS[key].spec
    found = ENVIRONMENTS[key].hook("run_metrics")
    assert isinstance(found, RunMetrics), spec.run_metrics
    assert callable(found.select({}, None))
    for metric in spec.report.metrics:
        assert definition(metric, [found.definitions]), f"{key}: no definition of {metric}"
    for metric in found.definitions:
        assert metric not in DEFINITIONS, f"{key} redefines the generic {metric}"


def test_unknown_environment_has_no_metrics_function() -> None:
    run = Run(Path("/nonexistent"), {"env_id": "sv-env-nowhere"}, {}, [{"reward": 1.0}])
    assert run_metrics_of(run) is None
    assert metrics_function(run) is None
    assert row_means(run) == ROW_MEANS


E1_ROWS = [
    {"gold": "Malicious", "parsed": {"label": "Malicious", "confidence": 0.9}, "reward": 1.0},
    {"gold": "Malicious", "parsed": {"label": "Benign", "confidence": 0.7}, "reward": -1.0},
    {"gold": "Benign", "parsed": {"label": "Benign", "confidence": 0.6}, "reward": 1.0},
    {"gold": "Benign", "parsed": {"label": "Malicious", "confidence": 0.8}, "reward": -1.0},
    {"gold": "Malicious", "parsed": {"label": "Abstain", "confidence": 0.5}, "reward": 0.0},
    {"gold": "Benign", "parsed": None, "reward": -2.0},
]


def test_e1_load_time_and_report_functions_agree_with_the_default_classification() -> None:
    import sv_env_network_logs

    costs = {"Malicious": {"Benign": 3.0}, "Benign": {"Malicious": 1.5}}
    env = sv_env_network_logs.load_environment(max_examples=4, cost_matrix=costs)
    info = LoadedEnvInfo.of(env)
    assert info.metrics is not None
    rows = [{**r, "example_id": i} for i, r in enumerate(E1_ROWS)]
    run = _run("e1", rows, reward_config=info.reward_config, env_args={"cost_matrix": costs})
    report_fn = metrics_function(run)
    assert report_fn is not None
    attached = info.metrics(rows)
    assert report_fn(rows) == attached
    assert (
        attached["cost_weighted_score"]
        != summarize(rows, payoffs=None, seed=0)["metrics"]["cost_weighted_score"]
    )  # the run's payoffs are used
    default = summarize(rows, payoffs=info.payoffs, seed=0)  # no env_metrics: the generic path
    explicit = summarize(rows, payoffs=info.payoffs, seed=0, env_metrics=info.metrics)
    assert explicit["metrics"] == default["metrics"]


def _detect_row(i: int, vulnerable: bool, said: bool | None, conf: float = 0.8) -> dict:
    gold = {"vulnerable": vulnerable, "cwe": "CWE-89" if vulnerable else None, "pair_id": f"p{i}"}
    parsed = None if said is None else {"vulnerable": said, "cwe": "CWE-89", "confidence": conf}
    return {"example_id": i, "gold": json.dumps(gold), "parsed": parsed, "reward": 0.5}


def test_e3_detect_load_time_and_report_functions_agree() -> None:
    from sv_env_code_vulnerability import load_environment

    rows = [
        _detect_row(0, True, True),
        _detect_row(0, False, True, 0.6),
        _detect_row(1, True, False),
        _detect_row(1, False, False, 0.9),
        _detect_row(2, True, None),
    ]
    attached = LoadedEnvInfo.of(load_environment(task="detect")).metrics
    assert attached is not None
    report_fn = metrics_function(_run("e3", rows, env_args={"task": "detect"}))
    assert report_fn is not None
    assert report_fn(rows) == attached(rows)
    assert "cwe_accuracy" in attached(rows)
    repair_fn = metrics_function(_run("e3", rows, env_args={}))
    assert repair_fn is not None and "repair_rate" in repair_fn(rows)


def test_environment_row_means_and_definitions_reach_the_report() -> None:
    rows = [{"example_id": 0, "reward": 1.0, "metrics": {"repaired": 1.0}, "parsed": {}}]
    means = row_means(_run("e3", rows))
    assert means["repair_rate"](rows[0]) == 1.0
    assert "accuracy" in means  # the generic ones stay
    e5, e6 = (run_metrics_of(_run(k, [])) for k in ("e5", "e6"))
    assert e5 is not None and e6 is not None
    both = dict(
        definitions_for(["attack_success_rate", "accuracy"], [e5.definitions, e6.definitions])
    )
    assert e5.definitions["attack_success_rate"] in both["attack_success_rate"]
    assert e6.definitions["attack_success_rate"] in both["attack_success_rate"]
    assert both["accuracy"] == DEFINITIONS["accuracy"]
