"""Optional W&B / Weave tracking: off by default, lazy imports, fake backends."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from security_verifiers import tracking
from security_verifiers.errors import UserError


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "sv-env-network-logs--heuristic" / "20260101-000000-abcd1234"
    run.mkdir(parents=True)
    meta = {"env_id": "sv-env-network-logs", "model": "heuristic", "run_id": run.name, "seed": 42}
    summary = {"n": 2, "reward_mean": 0.5, "reward_ci95": [0.0, 1.0], "metrics": {"f1": 0.5}}
    rows = [
        {"example_id": 0, "example_key": "k0", "gold": "benign", "completion": "x",
         "parsed": {"label": "benign"}, "rewards": {"decision": 1.0}, "reward": 1.0},
        {"example_id": 1, "example_key": "k1", "gold": "malicious", "completion": "y",
         "parsed": None, "rewards": {"decision": 0.0, "format": -1.0}, "reward": 0.0},
    ]  # fmt: skip
    (run / "metadata.json").write_text(json.dumps(meta))
    (run / "summary.json").write_text(json.dumps(summary))
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(tracking.ENV_VAR, raising=False)
    monkeypatch.delenv(tracking.PROJECT_VAR, raising=False)


def fake_wandb(calls: dict[str, Any]) -> types.ModuleType:
    module = types.ModuleType("wandb")

    class Run:
        def __init__(self) -> None:
            self.summary: dict[str, Any] = {}

        def log(self, data: dict[str, Any]) -> None:
            calls["log"] = data

        def finish(self) -> None:
            calls["finished"] = True

    def init(**kwargs: Any) -> Run:
        calls["init"] = kwargs
        calls["run"] = Run()
        return calls["run"]

    class Table:
        def __init__(self, columns: list[str], data: list[list[Any]]) -> None:
            self.columns, self.data = columns, data

    module.init, module.Table = init, Table
    return module


def test_off_by_default_imports_nothing(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(name: str) -> None:
        raise AssertionError("a tracking package was imported")

    monkeypatch.setattr(tracking, "import_backend", boom)
    assert tracking.track_run(run_dir) is None
    assert tracking.track_run(run_dir, "off") is None
    monkeypatch.setenv(tracking.ENV_VAR, "")
    assert tracking.track_run(run_dir) is None


def test_wandb_gets_config_summary_and_results_table(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: dict[str, Any] = {}
    monkeypatch.setitem(sys.modules, "wandb", fake_wandb(calls))
    monkeypatch.setenv(tracking.ENV_VAR, "wandb")
    monkeypatch.setenv(tracking.PROJECT_VAR, "proj")
    assert tracking.track_run(run_dir) == "wandb"
    init = calls["init"]
    assert init["project"] == "proj" and init["config"]["model"] == "heuristic"
    assert init["name"] == f"sv-env-network-logs--heuristic--{run_dir.name}"
    summary = calls["run"].summary
    assert summary["reward_mean"] == 0.5 and summary["metrics/f1"] == 0.5
    table = calls["log"]["results"]
    assert table.columns[-2:] == ["reward/decision", "reward/format"]
    assert [row[0] for row in table.data] == [0, 1]
    assert table.data[1][-1] == -1.0 and table.data[0][-1] is None
    assert calls["finished"]


def test_weave_publishes_summary_and_dataset(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    published: list[tuple[Any, str | None]] = []
    module = types.ModuleType("weave")
    module.init = lambda project: published.append(("init", project))
    module.publish = lambda obj, name=None: published.append((obj, name))
    module.Dataset = lambda name, rows: {"dataset": name, "rows": rows}
    monkeypatch.setitem(sys.modules, "weave", module)
    assert tracking.track_run(run_dir, "weave") == "weave"
    assert published[0] == ("init", tracking.DEFAULT_PROJECT)
    summary, name = published[1]
    assert summary["summary"]["reward_mean"] == 0.5 and name.endswith("-summary")
    dataset = published[2][0]
    assert dataset["rows"][1]["reward/format"] == -1.0
    assert all(c.isalnum() or c in "-_" for c in dataset["dataset"])


def test_missing_package_says_how_to_install(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # makes `import wandb` fail
    with pytest.raises(UserError, match="pip install wandb"):
        tracking.track_run(run_dir, "wandb")


def test_bad_backend_and_service_failure_are_user_errors(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tracking.ENV_VAR, "mlflow")
    with pytest.raises(UserError, match=r"\$SV_TRACKING='mlflow'"):
        tracking.track_run(run_dir)
    module = fake_wandb({})

    def refuse(**kwargs: Any) -> None:
        raise RuntimeError("not logged in")

    module.init = refuse
    monkeypatch.setitem(sys.modules, "wandb", module)
    with pytest.raises(UserError, match="not logged in"):
        tracking.track_run(run_dir, "wandb")
    with pytest.raises(UserError, match="not a finished run"):
        tracking.track_run(run_dir.parent, "wandb")
