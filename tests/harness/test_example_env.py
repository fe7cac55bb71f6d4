"""A new environment needs no edit outside its package: tests/example_env/ is found through its
`EnvSpec` entry point alone (made visible here without `pip install`: a `*.dist-info` with
METADATA and entry_points.txt on sys.path), and every command reaches it through the registry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from security_verifiers import environments

EXAMPLE = Path(__file__).resolve().parents[1] / "example_env"
RUNNER = CliRunner()

pytestmark = pytest.mark.usefixtures("no_api_keys")


@pytest.fixture
def example_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    dist = tmp_path / "site" / "sv_env_example_parity-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sv-env-example-parity\nVersion: 0.1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[security_verifiers.environments]\ne7 = sv_env_example_parity.spec:SPEC\n"
    )
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(dist.parent))
    environments.refresh()
    yield
    environments.refresh()


def test_registry_finds_it_by_key_id_name_and_alias(example_env) -> None:
    from security_verifiers.errors import UserError

    entry = environments.resolve_env("e7")
    assert entry.env_id == "sv-env-example-parity" and "e7" in environments.ENVIRONMENTS
    for name in ("sv-env-example-parity", "example-parity", "example_parity", "parity"):
        assert environments.resolve_env(name) == entry
    assert environments.is_oracle(entry, "compute")
    assert not environments.is_oracle(entry, "always-even")
    assert [b.oracle for b in entry.spec.baselines()] == [False, True]
    with pytest.raises(UserError, match=r"unknown environment 'e99'; available: .*e7 \("):
        environments.resolve_env("e99")


def test_cli_envs_models_and_probe(example_env) -> None:
    from security_verifiers.cli import app

    assert "e7\tsv-env-example-parity" in RUNNER.invoke(app, ["envs"]).output
    assert RUNNER.invoke(app, ["envs", "--key", "example_parity"]).output == "e7\n"
    out = RUNNER.invoke(app, ["models", "parity"]).output
    assert "always-even" in out and "oracle: computes the answer" in out
    result = RUNNER.invoke(app, ["probe", "e7"])
    assert result.exit_code == 0, result.output
    assert "both-words" in result.output and "shout-even" in result.output
    args = RUNNER.invoke(app, ["envs", "parity", "--args"]).output
    assert "max_examples: int = -1" in args and "reward_weights" in args


def test_eval_reports_gate_and_scoreboard(example_env, tmp_path: Path) -> None:
    from security_verifiers.cli import app
    from security_verifiers.gate import golden
    from security_verifiers.gate.core_metrics import core_metrics
    from security_verifiers.reports.profiles import profile_for
    from security_verifiers.scoreboard import write_scoreboard

    runs = tmp_path / "runs"
    args = ["eval", "parity", "-m", "always-even,compute", "-n", "8", "--output-dir", str(runs)]
    result = RUNNER.invoke(app, [*args, "--no-cache", "--quiet"])
    assert result.exit_code == 0, result.output
    summaries = {
        p.parent.parent.name: json.loads(p.read_text()) for p in runs.glob("*/*/summary.json")
    }
    assert {k: s["reward_mean"] for k, s in summaries.items()} == {
        "sv-env-example-parity--always-even": 0.5,
        "sv-env-example-parity--compute": 1.0,
    }

    assert profile_for("e7").metrics == ("accuracy",)
    assert [m.key for m in core_metrics("parity")] == ["reward_mean"]
    [spec] = [s for s in golden.golden_specs() if s.env == "e7"]
    [path] = golden.write_golden([spec], tmp_path / "golden")
    assert path.name == "e7.json"
    assert all(r.passed for r in golden.check_golden(tmp_path / "golden", ["e7"]))

    written = write_scoreboard(runs, tmp_path / "board", None)
    assert {p.name for p in written["sv-env-example-parity"]} == {"e7.json", "e7.md"}
