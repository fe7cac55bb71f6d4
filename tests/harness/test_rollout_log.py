"""`sv eval --rollout-log PATH` (and so `scripts/eval_*.py --rollout-log PATH`): an extra JSONL
copy of every rollout record; results.jsonl in the run directory stays the record.

The script and `sv` run in this process (`sv_main`: the script through runpy, `sv` through
`security_verifiers.cli.main`, in the given folder), which saves an interpreter start each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.rollout_copy import check_rollout_log
from security_verifiers.serving import PolicyServer, serve_in_thread

ROOT = Path(__file__).resolve().parents[2]
N = 4


@pytest.fixture
def run(sv_main):
    """`run(*args, cwd=..., script=None)`: `sv ARGS`, or `python SCRIPT ARGS`, run in `cwd`."""

    def call(*args: str, cwd: Path, script: Path | None = None):
        return sv_main(*args, cwd=cwd, script=script, env={"SV_NO_DOTENV": "1"})

    return call


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_script_writes_a_copy_of_every_rollout(run, tmp_path: Path) -> None:
    log = tmp_path / "sweep.jsonl"
    script = ROOT / "scripts" / "eval_network_logs.py"
    args = ["--models", "heuristic,always-benign", "-n", str(N), "--quiet"]
    result = run(*args, "--output-dir", "out", "--rollout-log", str(log), cwd=tmp_path,
                 script=script)  # fmt: skip
    assert result.returncode == 0, result.stderr
    copy = lines(log)
    assert len(copy) == 2 * N
    for run_dir in (tmp_path / "out").glob("*/*/"):
        meta = json.loads((run_dir / "metadata.json").read_text())
        mine = [r for r in copy if r["run_id"] == run_dir.name and r["model"] == meta["model"]]
        assert {r["env_id"] for r in mine} == {"sv-env-network-logs"}
        stripped = [{k: v for k, v in r.items() if k not in ("model", "env_id", "run_id")}
                    for r in mine]  # fmt: skip
        assert stripped == lines(run_dir / "results.jsonl")  # the same records, in order
    again = run(*args, "--output-dir", "out", "--rollout-log", str(log), cwd=tmp_path,
                script=script)  # fmt: skip
    assert again.returncode == 0, again.stderr  # already complete: nothing new is appended
    assert len(lines(log)) == 2 * N


def test_a_bad_path_fails_before_any_request(run, tmp_path: Path) -> None:
    server = PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "m")
    with serve_in_thread(server) as base_url:
        result = run(
            "eval", "e1", "--models", f"m@{base_url}",
            "-n", str(N), "--output-dir", "out", "--rollout-log", "missing/dir/log.jsonl",
            cwd=tmp_path,
        )  # fmt: skip
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert (
        line == "error: --rollout-log missing/dir/log.jsonl: the folder missing/dir does not exist"
    )
    assert server.stats.requests == 0 and not (tmp_path / "out").exists()


def test_check_rollout_log(tmp_path: Path) -> None:
    assert check_rollout_log(tmp_path / "new.jsonl") == tmp_path / "new.jsonl"
    with pytest.raises(UserError, match="is a directory"):
        check_rollout_log(tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="is a file, not a folder"):
        check_rollout_log(tmp_path / "file" / "log.jsonl")
    with pytest.raises(UserError, match="does not exist"):
        check_rollout_log(tmp_path / "nowhere" / "log.jsonl")
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]  # the check leaves nothing behind
