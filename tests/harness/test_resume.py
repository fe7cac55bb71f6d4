"""A run killed mid-way resumes without losing or duplicating rollouts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.serving import PolicyServer, serve_in_thread

N = 24


def sv(*args: str, out: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "security_verifiers.cli",
            "eval",
            "e1",
            *args,
            "--output-dir",
            str(out),
            "--quiet",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def result_lines(out: Path) -> list[str]:
    files = list(out.glob("*/*/results.jsonl"))
    return files[0].read_text().splitlines() if files else []


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_exactly(tmp_path, sig):
    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    server = PolicyServer(policy, "slow", latency_s=0.15)
    with serve_in_thread(server) as base_url:
        model = f"slow@{base_url}"
        args = ("--models", model, "-n", str(N), "--max-concurrent", "2")
        proc = sv(*args, out=tmp_path)
        deadline = time.time() + 120
        while len(result_lines(tmp_path)) < 6 and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=60)
        partial = result_lines(tmp_path)
        assert 6 <= len(partial) < N, "the run should have been stopped part-way"
        if sig == signal.SIGINT:
            meta = json.loads(next(tmp_path.glob("*/*/metadata.json")).read_text())
            assert meta["status"] == "interrupted"

        requests_before = server.stats.requests
        finished = sv(*args, out=tmp_path)
        _, stderr = finished.communicate(timeout=180)
        assert finished.returncode == 0, stderr

    run_dirs = list(tmp_path.glob("*/*/"))
    assert len(run_dirs) == 1, "the second invocation must resume the same run"
    rows = [json.loads(line) for line in result_lines(tmp_path)]
    ids = [r["example_id"] for r in rows]
    assert len(ids) == N and len(set(ids)) == N
    # only the missing rollouts were requested again (plus at most the in-flight ones)
    assert server.stats.requests - requests_before <= N - len(partial) + 2
    meta = json.loads((run_dirs[0] / "metadata.json").read_text())
    assert meta["status"] == "complete" and meta["attempts"] == 2
    assert json.loads((run_dirs[0] / "summary.json").read_text())["n"] == N
