"""Runs that cannot mix or repeat by accident.

A rerun of a complete command requests nothing ("already complete"); a run started with other
code is never resumed into (its rows were scored by other code); the fingerprint holds the
code and package versions; the same model twice is refused before anything runs.

Each `sv eval` runs in this process (`sv_main`: `security_verifiers.cli.main`, its exit status
and output), which saves an interpreter start per command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.evaluation.provenance import code_version
from security_verifiers.evaluation.runner import code_changes

N = 4


@pytest.fixture
def sv_eval(sv_main):
    """`sv_eval(out, *extra, models="heuristic")`: `sv eval e1` of N examples."""

    def run(out: Path, *extra: str, models: str = "heuristic"):
        return sv_main("eval", "e1", "--models", models, "-n", str(N), "--output-dir", str(out),
                       "--quiet", *extra)  # fmt: skip

    return run


def run_dirs(out: Path) -> list[Path]:
    return sorted(out.glob("*/*/"))


def test_rerunning_a_complete_command_requests_nothing(sv_eval, tmp_path: Path) -> None:
    first = sv_eval(tmp_path)
    assert first.returncode == 0, first.stderr
    [run_dir] = run_dirs(tmp_path)
    results = (run_dir / "results.jsonl").read_text()

    again = sv_eval(tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"already complete: {run_dir}" in again.stderr
    assert run_dirs(tmp_path) == [run_dir]
    assert (run_dir / "results.jsonl").read_text() == results  # nothing requested or rewritten
    assert "heuristic" in again.stdout + again.stderr  # the summary table is still printed

    fresh = sv_eval(tmp_path, "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert len(run_dirs(tmp_path)) == 2


def test_a_run_started_with_other_code_is_not_resumed(sv_eval, tmp_path: Path) -> None:
    first = sv_eval(tmp_path)
    assert first.returncode == 0, first.stderr
    [old_dir] = run_dirs(tmp_path)
    meta = json.loads((old_dir / "metadata.json").read_text())
    assert meta["fingerprint"] != meta["config_fingerprint"]
    # as if the run had stopped half-way under an earlier reward code
    meta.update(status="interrupted", fingerprint="0" * 64)
    meta["code"]["env_code_sha256"] = "f" * 64
    (old_dir / "metadata.json").write_text(json.dumps(meta))
    rows = (old_dir / "results.jsonl").read_text().splitlines()
    (old_dir / "results.jsonl").write_text(rows[0] + "\n")

    resumed = sv_eval(tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "started with other code (environment code)" in " ".join(resumed.stderr.split())
    dirs = run_dirs(tmp_path)
    assert len(dirs) == 2
    new_dir = next(d for d in dirs if d != old_dir)
    new_rows = (new_dir / "results.jsonl").read_text().splitlines()
    assert len(new_rows) == N and all(json.loads(r)["attempt"] == 1 for r in new_rows)
    assert (old_dir / "results.jsonl").read_text() == rows[0] + "\n"  # the old run is kept


def test_metadata_keeps_every_attempts_code(sv_eval, tmp_path: Path) -> None:
    first = sv_eval(tmp_path, "--models", "heuristic")
    assert first.returncode == 0
    [run_dir] = run_dirs(tmp_path)
    meta = json.loads((run_dir / "metadata.json").read_text())
    [attempt] = meta["attempt_history"]
    assert attempt["attempt"] == 1 and attempt["code"] == meta["code"]
    assert "git" in attempt and meta["code"]["packages"]["verifiers"]


def test_the_same_model_twice_is_refused(sv_eval, tmp_path: Path) -> None:
    proc = sv_eval(tmp_path, models="heuristic,heuristic")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: --models: 'heuristic' is listed more than once"
    )
    assert not run_dirs(tmp_path)


def test_code_changes_are_named() -> None:
    import sv_env_network_logs

    now = code_version(sv_env_network_logs, "sv-env-network-logs")
    before = {**now, "sv_shared_sha256": "x", "packages": {**now["packages"], "verifiers": "0.3.0"}}
    assert (
        code_changes(before, now) == f"sv_shared, verifiers 0.3.0 -> {now['packages']['verifiers']}"
    )
    assert code_changes(None, now) == "its code version was not recorded"
