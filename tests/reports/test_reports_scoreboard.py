"""Scoreboard: latest finished run per (environment, model), JSON and Markdown tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from security_verifiers.errors import UserError
from security_verifiers.gate.command import scoreboard
from security_verifiers.scoreboard import collect, write_scoreboard

E1 = "sv-env-network-logs"
E6 = "sv-env-redteam-defense"


def make_run(
    root: Path,
    model: str,
    run_id: str,
    finished: str,
    *,
    env_id: str = E1,
    reward: float = 0.5,
    metrics: dict[str, Any] | None = None,
    status: str = "complete",
    **meta: Any,
) -> Path:
    run_dir = root / f"{env_id}--{model}" / run_id
    run_dir.mkdir(parents=True)
    metadata = {
        "env_id": env_id,
        "model": model,
        "model_kind": "baseline",
        "status": status,
        "finished_at": finished,
        "seed": 42,
        "n": 4,
        "dataset_hash": "abc",
        "target": None,
        **meta,
    }
    summary = {
        "n": metadata["n"],
        "reward_mean": reward,
        "reward_ci95": [reward - 0.1, reward + 0.1],
    }
    summary["metrics"] = metrics or {"accuracy": 0.75, "f1": 0.6, "brier": 0.125}
    (run_dir / "metadata.json").write_text(json.dumps(metadata))
    (run_dir / "summary.json").write_text(json.dumps(summary))
    return run_dir


def test_latest_run_per_model_by_metadata_time(tmp_path: Path) -> None:
    # the run directory names sort the other way round from their finishing times
    make_run(tmp_path, "heuristic", "20990101-000000-aaaa", "2026-01-01T10:00:00+00:00", reward=1)
    newest = make_run(tmp_path, "heuristic", "20000101-000000-bbbb", "2026-02-01T10:00:00+00:00")
    make_run(tmp_path, "heuristic", "20990101-000000-cccc", "2026-03-01T10:00:00+00:00",
             status="interrupted")  # fmt: skip
    rows = collect(tmp_path)[E1]
    assert [(r.model, r.run_dir) for r in rows] == [("heuristic", str(newest))]
    assert rows[0].reward_mean == 0.5 and rows[0].date == "2026-02-01T10:00:00+00:00"


def test_tables_rank_models_with_ci_core_metrics_n_and_run(tmp_path: Path) -> None:
    make_run(tmp_path, "always-benign", "r1", "2026-01-01T10:00:00+00:00", reward=0.2)
    make_run(tmp_path, "heuristic", "r2", "2026-01-01T11:00:00+00:00", reward=1.1)
    make_run(tmp_path, "gpt", "r3", "2026-01-02T09:30:00+00:00", reward=0.7, model_kind="endpoint")
    make_run(tmp_path, "guarded", "r4", "2026-01-01T10:00:00+00:00", env_id=E6,
             metrics={"harmful_compliance_rate": 0.0, "over_refusal_rate": 0.2})  # fmt: skip
    out = tmp_path / "board"
    written = write_scoreboard(tmp_path, out)
    assert set(written) == {E1, E6}
    board = json.loads((out / "e1.json").read_text())
    assert [r["model"] for r in board["rows"]] == ["heuristic", "gpt", "always-benign"]
    assert board["rows"][0]["metrics"] == {"accuracy": 0.75, "f1": 0.6, "brier": 0.125}
    assert board["rows"][0]["reward_ci95"] == [1.0, 1.2000000000000002]
    assert board["not_like_for_like"] == []
    md = (out / "e1.md").read_text()
    assert "| 1 | heuristic | baseline | 1.100 [1.000, 1.200] | 0.750 | 0.600 | 0.125 |" in md
    assert "brier ↓" in md and "accuracy ↑" in md
    assert "2026-01-02 09:30" in md and "r3" in md and "| endpoint |" in md
    md6 = (out / "e6.md").read_text()
    assert "harmful_compliance_rate ↓" in md6 and "over_refusal_rate ↓" in md6


def test_mixed_datasets_are_flagged(tmp_path: Path) -> None:
    make_run(tmp_path, "a", "r1", "2026-01-01T10:00:00+00:00")
    make_run(tmp_path, "b", "r2", "2026-01-01T10:00:00+00:00", dataset_hash="zzz", n=9)
    out = tmp_path / "board"
    write_scoreboard(tmp_path, out)
    assert json.loads((out / "e1.json").read_text())["not_like_for_like"] == ["dataset_hash", "n"]
    assert "differ in dataset_hash, n" in (out / "e1.md").read_text()


def test_env_filter_and_command(tmp_path: Path) -> None:
    make_run(tmp_path, "a", "r1", "2026-01-01T10:00:00+00:00")
    make_run(tmp_path, "b", "r2", "2026-01-01T10:00:00+00:00", env_id=E6)
    app = typer.Typer()
    app.command()(scoreboard)
    out = tmp_path / "board"
    result = CliRunner().invoke(app, ["--root", str(tmp_path), "--out", str(out), "--env", "e6"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["e6.json", "e6.md"]


def test_regeneration_is_stable(tmp_path: Path) -> None:
    make_run(tmp_path, "a", "r1", "2026-01-01T10:00:00+00:00")
    out = tmp_path / "board"
    write_scoreboard(tmp_path, out)
    first = (out / "e1.json").read_bytes(), (out / "e1.md").read_bytes()
    write_scoreboard(tmp_path, out)
    assert first == ((out / "e1.json").read_bytes(), (out / "e1.md").read_bytes())


def test_no_runs_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is not a directory"):
        collect(tmp_path / "missing")
    with pytest.raises(UserError, match="no finished runs"):
        collect(tmp_path)
    make_run(tmp_path, "a", "r1", "2026-01-01T10:00:00+00:00")
    with pytest.raises(UserError, match=r"no finished runs .* for sv-env-redteam-defense"):
        collect(tmp_path, ["e6"])
    with pytest.raises(UserError, match="unknown environment"):
        collect(tmp_path, ["e9"])
