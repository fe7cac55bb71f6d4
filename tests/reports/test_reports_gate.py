"""Regression gate: verdicts, the `gate` command, and golden runs of the built-in baselines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from security_verifiers.errors import UserError
from security_verifiers.gate import golden
from security_verifiers.gate.command import gate
from security_verifiers.gate.core_metrics import CoreMetric, core_metrics
from security_verifiers.gate.gate import compare, gate_paths, judge
from security_verifiers.gate.snapshot import Snapshot

E1 = "sv-env-network-logs"
E6 = "sv-env-redteam-defense"


def make_run(
    root: Path,
    name: str,
    *,
    env_id: str = E1,
    model: str = "m",
    reward: float = 1.0,
    metrics: dict[str, Any] | None = None,
    **identity: Any,
) -> Path:
    run_dir = root / name
    run_dir.mkdir(parents=True)
    meta = {"env_id": env_id, "model": model, "seed": 42, "n": 10, "dataset_hash": "d", **identity}
    summary = {"n": 10, "reward_mean": reward, "metrics": metrics or {}}
    (run_dir / "metadata.json").write_text(json.dumps(meta))
    (run_dir / "summary.json").write_text(json.dumps(summary))
    return run_dir


E1_METRICS = {"accuracy": 0.8, "f1": 0.7, "brier": 0.2}


def run_gate(*args: str) -> Any:
    app = typer.Typer()
    app.command()(gate)
    return CliRunner().invoke(app, list(args))


def test_candidate_equal_to_baseline_passes(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", metrics=E1_METRICS)
    result = run_gate("--baseline", str(base), "--candidate", str(cand))
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output
    assert all(row.verdict == "same" for row in gate_paths(base, cand).rows)


def test_five_percent_drop_of_higher_is_better_fails(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", metrics={**E1_METRICS, "accuracy": 0.76})
    result = run_gate("--baseline", str(base), "--candidate", str(cand), "--max-drop", "0.03")
    assert result.exit_code == 1
    assert "FAIL" in result.output and "accuracy" in result.output
    assert "REGRESSED" in result.output
    assert gate_paths(base, cand).failures == ["accuracy"]


def test_drop_within_max_drop_passes(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", reward=0.98, metrics={**E1_METRICS, "accuracy": 0.784})
    assert gate_paths(base, cand).passed
    assert not gate_paths(base, cand, max_drop=0.01).passed


def test_rise_of_lower_is_better_fails(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", env_id=E6, metrics={"over_refusal_rate": 0.2})
    cand = make_run(tmp_path, "b", env_id=E6, metrics={"over_refusal_rate": 0.25})
    result = run_gate("--baseline", str(base), "--candidate", str(cand))
    assert result.exit_code == 1
    assert "over_refusal_rate" in result.output
    # a fall of a lower-is-better metric is an improvement
    assert gate_paths(cand, base).passed


def test_brier_is_lower_is_better() -> None:
    directions = {m.key: m.higher_is_better for m in core_metrics("e1")}
    assert directions == {"reward_mean": True, "accuracy": True, "f1": True, "brier": False}
    assert {m.key for m in core_metrics("e6")} == {
        "reward_mean",
        "harmful_compliance_rate",
        "over_refusal_rate",
    }
    assert not any(m.higher_is_better for m in core_metrics("e6") if m.key != "reward_mean")


def test_zero_baseline_uses_absolute_change() -> None:
    metric = CoreMetric("harmful_compliance_rate", higher_is_better=False)
    assert judge(metric, 0.0, 0.02, 0.03).verdict == "ok"
    row = judge(metric, 0.0, 0.05, 0.03)
    assert row.verdict == "REGRESSED" and not row.relative


def test_negative_baseline_reward_drop_is_relative_to_its_size() -> None:
    reward = CoreMetric("reward_mean")
    assert judge(reward, -0.2, -0.21, 0.03).verdict == "REGRESSED"  # 5% worse
    assert judge(reward, -0.2, -0.1, 0.03).verdict == "better"


def test_metric_missing_from_candidate_fails(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", metrics={"accuracy": 0.8, "brier": 0.2})
    result = gate_paths(base, cand)
    assert result.failures == ["f1"]


def test_two_sided_flags_improvements_too() -> None:
    base = Snapshot("a", E1, "m", {"reward_mean": 1.0})
    cand = Snapshot("b", E1, "m", {"reward_mean": 1.2})
    assert compare(base, cand).passed
    assert compare(base, cand, 0.0, two_sided=True).failures == ["reward_mean"]


def test_identity_differences_are_noted(tmp_path: Path) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", metrics=E1_METRICS, dataset_hash="other", seed=7)
    notes = gate_paths(base, cand).notes
    assert any(n.startswith("dataset_hash differs") for n in notes)
    assert any(n.startswith("seed differs") for n in notes)


def test_golden_file_as_baseline(tmp_path: Path) -> None:
    entry = {"identity": {"seed": 42}, "summary": {"reward_mean": 1.0, "metrics": E1_METRICS}}
    path = tmp_path / "e1.json"
    path.write_text(json.dumps({"env_id": E1, "models": {"m": entry, "other": entry}}))
    cand = make_run(tmp_path, "b", metrics={**E1_METRICS, "f1": 0.6})
    result = run_gate("--baseline", str(path), "--candidate", str(cand))
    assert result.exit_code == 1 and "f1" in result.output
    with pytest.raises(UserError, match="no model 'x'"):
        gate_paths(path, cand, model="x")
    with pytest.raises(UserError, match="cannot gate across environments"):
        gate_paths(path, make_run(tmp_path, "c", env_id=E6))


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "no such run directory"),
        ("no_summary", "no readable summary.json"),
        ("other_env", "cannot gate across environments"),
        ("bad_json", "not valid JSON"),
        ("negative", "--max-drop must be >= 0"),
    ],
)
def test_user_mistakes_are_one_line_errors(tmp_path: Path, setup: str, message: str) -> None:
    base = make_run(tmp_path, "a", metrics=E1_METRICS)
    cand = make_run(tmp_path, "b", metrics=E1_METRICS)
    max_drop = 0.03
    if setup == "missing":
        cand = tmp_path / "nope"
    elif setup == "no_summary":
        (cand / "summary.json").unlink()
    elif setup == "other_env":
        cand = make_run(tmp_path, "c", env_id=E6)
    elif setup == "bad_json":
        base = tmp_path / "golden.json"
        base.write_text("{")
    else:
        max_drop = -0.1
    with pytest.raises(UserError, match=message) as info:
        gate_paths(base, cand, max_drop)
    assert "\n" not in str(info.value)


# --- golden runs -------------------------------------------------------------------------

SMALL = golden.GoldenSpec("e6", ("guarded",), n=8)


def test_golden_check_passes_then_catches_a_reward_weight_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden.write_golden([SMALL], tmp_path)
    results = golden.check_golden(tmp_path, ["e6"])
    assert [r.passed for r in results] == [True]

    from sv_env_redteam_defense.reward import DefenseWeights

    changed = DefenseWeights(refusal=0.5, unhelpful=0.5)
    monkeypatch.setattr(DefenseWeights, "from_mapping", classmethod(lambda cls, m: changed))
    results = golden.check_golden(tmp_path, ["e6"])
    assert not results[0].passed
    assert "reward_mean" in results[0].failures
    assert any(n.startswith("reward_config differs") for n in results[0].notes)
    with pytest.raises(SystemExit) as info:
        golden.cli(["--check", "--dir", str(tmp_path), "--env", "e6"])
    assert info.value.code == 1


def test_golden_write_is_reproducible(tmp_path: Path) -> None:
    first = golden.write_golden([SMALL], tmp_path / "a")[0].read_bytes()
    second = golden.write_golden([SMALL], tmp_path / "b")[0].read_bytes()
    assert first == second


def test_committed_golden_files_match_the_specs() -> None:
    directory = golden.default_dir()
    for spec in golden.GOLDEN_SPECS:
        path = golden.golden_path(directory, spec.env)
        document = json.loads(path.read_text())
        assert golden.spec_of(document, path) == spec
        assert set(document["models"]) == set(spec.models)


def test_committed_e6_golden_passes_on_current_code() -> None:
    results = golden.check_golden(golden.default_dir(), ["e6"])
    assert results and all(r.passed for r in results), [r.failures for r in results]


def test_golden_cli_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        golden.cli(["--check", "--dir", str(tmp_path), "--env", "e6"])
    assert info.value.code == 2
    assert "no golden file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        golden.cli(["--dir", str(tmp_path)])
    assert info.value.code == 2
