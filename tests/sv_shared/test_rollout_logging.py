"""Tests for sv_shared.rollout_logging (JSONL always; optional sinks only on request)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sv_shared.rollout_logging import RolloutLogger, build_rollout_logger


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(autouse=True)
def _no_sink_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SV_WANDB", raising=False)
    monkeypatch.delenv("SV_WEAVE", raising=False)


def test_jsonl_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "rollouts.jsonl"
    records = [
        {"id": 1, "reward": 0.5, "label": "Benign", "meta": {"ports": [80, 443]}},
        {"id": 2, "reward": -2.0, "text": 'naïve ✓ "quoted"\nnewline', "ok": False},
    ]
    with RolloutLogger(path) as logger:
        for record in records:
            logger.log(record)
        # flushed per record: readable before close
        assert _read_jsonl(path) == records
    assert logger.closed
    assert _read_jsonl(path) == records


def test_odd_types_are_stringified(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    when = dt.datetime(2024, 1, 2, 3, 4, 5)
    with RolloutLogger(path) as logger:
        logger.log({"when": when, "where": Path("/tmp/x"), "n": 3})
    (row,) = _read_jsonl(path)
    assert row == {"when": str(when), "where": str(Path("/tmp/x")), "n": 3}


def test_append_across_two_loggers(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RolloutLogger(path) as first:
        first.log({"run": 1})
    with RolloutLogger(path) as second:
        second.log({"run": 2})
        second.log({"run": 3})
    assert [r["run"] for r in _read_jsonl(path)] == [1, 2, 3]


def test_summary_goes_to_sibling_file(tmp_path: Path) -> None:
    path = tmp_path / "rollouts-x.jsonl"
    with RolloutLogger(path) as logger:
        logger.log({"id": 1})
        first = logger.log_summary({"accuracy": 0.5})
        second = logger.log_summary({"accuracy": 0.75, "n": 4})
    assert first == second == tmp_path / "rollouts-x.summary.json"
    assert json.loads(second.read_text(encoding="utf-8")) == {"accuracy": 0.75, "n": 4}
    assert _read_jsonl(path) == [{"id": 1}]  # the JSONL holds rollout records only


def test_closed_logger_and_bad_records(tmp_path: Path) -> None:
    logger = RolloutLogger(tmp_path / "c.jsonl")
    with pytest.raises(TypeError):
        logger.log(["not", "a", "mapping"])  # type: ignore[arg-type]
    logger.close()
    logger.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        logger.log({"x": 1})


def test_build_rollout_logger_default_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with build_rollout_logger(run_name="eval/gpt 1") as logger:
        logger.log({"a": 1})
    expected = tmp_path / "outputs" / "logs" / "rollouts-eval-gpt-1.jsonl"
    assert (tmp_path / logger.path).resolve() == expected.resolve()
    assert _read_jsonl(expected) == [{"a": 1}]
    with build_rollout_logger() as stamped:
        pass
    assert stamped.path.parent == Path("outputs") / "logs"
    assert stamped.path.name.startswith("rollouts-") and stamped.path.suffix == ".jsonl"


def test_explicit_path(tmp_path: Path) -> None:
    with build_rollout_logger(tmp_path / "mine.jsonl", run_name="ignored") as logger:
        logger.log({"a": 1})
    assert _read_jsonl(tmp_path / "mine.jsonl") == [{"a": 1}]


def test_wandb_enabled_but_missing_warns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # makes `import wandb` fail
    path = tmp_path / "w.jsonl"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with RolloutLogger(path, enable_wandb=True) as logger:
            for i in range(3):
                logger.log({"i": i})
            logger.log_summary({"done": True})
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "wandb" in messages[0]
    assert [r["i"] for r in _read_jsonl(path)] == [0, 1, 2]


def test_env_var_enables_sinks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "weave", None)
    monkeypatch.setenv("SV_WEAVE", "1")
    with pytest.warns(RuntimeWarning, match="weave"):
        logger = RolloutLogger(tmp_path / "e.jsonl")
    logger.log({"x": 1})
    logger.close()
    assert _read_jsonl(tmp_path / "e.jsonl") == [{"x": 1}]


def test_sinks_are_not_imported_unless_enabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(name: str) -> None:
        raise AssertionError(f"imported {name} without being enabled")

    monkeypatch.setattr("sv_shared.rollout_logging.importlib.import_module", forbidden)
    monkeypatch.setenv("SV_WANDB", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with RolloutLogger(tmp_path / "n.jsonl", enable_weave=False) as logger:
            logger.log({"x": 1})


def test_module_import_does_not_import_sinks() -> None:
    code = (
        "import sys, sv_shared.rollout_logging; "
        "assert 'wandb' not in sys.modules and 'weave' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)


class _FakeRun:
    def __init__(self) -> None:
        self.logged: list[dict[str, Any]] = []
        self.summary: dict[str, Any] = {}
        self.finished = False

    def log(self, data: dict[str, Any]) -> None:
        self.logged.append(data)

    def finish(self) -> None:
        self.finished = True


def test_wandb_sink_receives_numeric_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _FakeRun()
    inits: list[dict[str, Any]] = []

    def init(**kwargs: Any) -> _FakeRun:
        inits.append(kwargs)
        return run

    monkeypatch.setitem(sys.modules, "wandb", SimpleNamespace(init=init))
    with RolloutLogger(tmp_path / "f.jsonl", enable_wandb=True, run_name="r1") as logger:
        logger.log({"reward": 0.5, "label": "Benign", "ok": True, "n": 2})
        logger.log_summary({"accuracy": 0.9, "note": "x"})
    assert inits == [{"project": "security-verifiers", "name": "r1"}]
    assert run.logged == [{"reward": 0.5, "n": 2}]
    assert run.summary == {"accuracy": 0.9}
    assert run.finished


def test_failing_sink_warns_and_jsonl_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken(_FakeRun):
        def log(self, data: dict[str, Any]) -> None:
            raise RuntimeError("network down")

    monkeypatch.setitem(sys.modules, "wandb", SimpleNamespace(init=lambda **_: Broken()))
    path = tmp_path / "b.jsonl"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with RolloutLogger(path, enable_wandb=True) as logger:
            logger.log({"i": 0})
            logger.log({"i": 1})
    assert sum("network down" in str(w.message) for w in caught) == 1
    assert [r["i"] for r in _read_jsonl(path)] == [0, 1]
