"""Statistics of the report: bootstrap intervals, paired comparisons, compatibility checks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from security_verifiers.errors import UserError
from security_verifiers.reports.compare import compare_runs, pairwise
from security_verifiers.reports.runs import Run, load_runs
from security_verifiers.reports.stats import mean_ci, paired_bootstrap, sign_flip_p_value

META = {
    "env": "e1",
    "env_id": "sv-env-network-logs",
    "env_args": {},
    "dataset": {"split": "test"},
    "dataset_hash": "sha256:abc",
    "seed": 42,
    "reward_config": {"weights": {"decision": 1.0}},
    "target": None,
}


def make_run(model: str, rewards: list[float], keys: list[str] | None = None, **meta) -> Run:
    keys = keys or [f"ex-{i}" for i in range(len(rewards))]
    rows = [{"example_key": k, "reward": r} for k, r in zip(keys, rewards, strict=True)]
    metadata = {**META, "model": model, "run_id": f"run-{model}", **meta}
    return Run(Path(f"/runs/{model}"), metadata, {"metrics": {}}, rows)


def test_bootstrap_ci_of_a_constant_is_a_point() -> None:
    assert mean_ci([0.7] * 25) == (pytest.approx(0.7), (0.7, 0.7))
    assert mean_ci([]) is None


def test_bootstrap_ci_brackets_the_mean_and_is_seeded() -> None:
    values = list(np.random.default_rng(1).normal(0.5, 1.0, size=80))
    mean, (low, high) = mean_ci(values, seed=3)
    assert low < mean < high
    assert mean_ci(values, seed=3) == mean_ci(values, seed=3)


@pytest.mark.parametrize("n", [8, 60])  # exact enumeration and Monte Carlo
def test_paired_identical_runs_show_no_difference(n: int) -> None:
    rewards = list(np.random.default_rng(0).uniform(-1, 1, size=n))
    a, b = make_run("a", rewards), make_run("b", rewards)
    result = compare_runs(a, b)
    assert result.n == n
    assert result.difference == 0.0
    assert result.ci95 == (0.0, 0.0)
    assert result.p_value == 1.0


def test_paired_shift_has_the_right_sign_and_a_small_p_value() -> None:
    rng = np.random.default_rng(7)
    base = rng.uniform(0, 1, size=50)
    better = base + 0.3 + rng.normal(0, 0.1, size=50)
    keys = [f"k{i}" for i in range(50)]
    a, b = dict(zip(keys, base, strict=True)), dict(zip(keys, better, strict=True))
    result = paired_bootstrap(a, b, seed=1)
    assert result.difference == pytest.approx(float(np.mean(better - base)))
    assert 0 < result.ci95[0] < result.difference < result.ci95[1]
    assert result.p_value < 0.001
    reverse = paired_bootstrap(b, a, seed=1)
    assert reverse.difference < 0 and reverse.ci95[1] < 0 and reverse.p_value < 0.001


def test_sign_flip_exact_p_value() -> None:
    # 2 of the 8 sign patterns reach |mean| = 1: p = 0.25
    assert sign_flip_p_value([1.0, 1.0, 1.0]) == pytest.approx(0.25)
    assert sign_flip_p_value([0.0, 0.0]) == 1.0


def test_pairs_examples_by_key_not_by_order() -> None:
    a = make_run("a", [0.0, 1.0, 0.5], keys=["x", "y", "z"])
    b = make_run("b", [1.0, 0.5, 0.0, 9.0], keys=["y", "z", "x", "only-in-b"])
    result = compare_runs(a, b)
    assert result.n == 3
    assert result.difference == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seed": 7}, "seed"),
        ({"dataset_hash": "sha256:other"}, "dataset hash"),
        ({"env_args": {"split": "dev"}}, "split (env_args)"),
        ({"reward_config": {"weights": {"decision": 2.0}}}, "reward config"),
    ],
)
def test_incompatible_runs_are_refused_naming_the_field(change: dict, field: str) -> None:
    a, b = make_run("a", [1.0, 0.0]), make_run("b", [1.0, 0.0], **change)
    with pytest.raises(UserError, match=f"different .*{re.escape(field)}"):
        compare_runs(a, b)
    (only,) = pairwise([a, b])
    assert only.result is None and field in (only.reason or "")


def test_runs_without_shared_examples_are_refused() -> None:
    a, b = make_run("a", [1.0], keys=["x"]), make_run("b", [1.0], keys=["y"])
    with pytest.raises(UserError, match="no examples in common"):
        compare_runs(a, b)


def test_bad_paths_and_unfinished_runs_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such run directory"):
        load_runs([str(tmp_path / "missing")])
    with pytest.raises(UserError, match="no run directories"):
        load_runs([str(tmp_path)])
    run_dir = tmp_path / "sv-env-network-logs--m" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "metadata.json").write_text(json.dumps(META))
    (run_dir / "results.jsonl").write_text("")
    with pytest.raises(UserError, match="no finished runs"):
        load_runs([str(tmp_path / "*" / "*")])
    (run_dir / "summary.json").write_text("{not json")
    with pytest.raises(UserError, match="not valid JSON"):
        load_runs([str(run_dir)])
