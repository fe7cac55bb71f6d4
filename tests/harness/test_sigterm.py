"""SIGTERM stops `sv eval` like Ctrl-C: what finished is saved, the run is `interrupted`, the
exit status is 130 and rerunning resumes it — also under `make` and in a background job.

verifiers' Environment installs a SIGTERM handler that exits 143 at once; the harness keeps
its own across loading the environment (`security_verifiers.signals`).

The stopped runs are real processes (signals and exit statuses are the point); the resuming
rerun runs in this process (`sv_main`: `security_verifiers.cli.main`), which saves an
interpreter start.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.serving import PolicyServer, serve_in_thread

ROOT = Path(__file__).resolve().parents[2]
N = 24


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return {**env, "SV_NO_DOTENV": "1"}


def result_lines(out: Path) -> list[str]:
    files = list(out.glob("*/*/results.jsonl"))
    return files[0].read_text().splitlines() if files else []


def stop_part_way(proc: subprocess.Popen, out: Path, kill) -> str:
    deadline = time.time() + 120
    while len(result_lines(out)) < 6 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    kill()
    _, stderr = proc.communicate(timeout=60)
    return stderr


def check_interrupted(out: Path, stderr: str) -> None:
    assert "Traceback" not in stderr and "never retrieved" not in stderr, stderr
    assert "Stopped:" in stderr and "interrupted" in stderr
    assert 6 <= len(result_lines(out)) < N, "the run should have been stopped part-way"
    meta = json.loads(next(out.glob("*/*/metadata.json")).read_text())
    assert meta["status"] == "interrupted" and meta["n_completed"] == len(result_lines(out))


def sv_args(model: str, out: Path) -> list[str]:
    return ["--models", model, "-n", str(N), "--max-concurrent", "2", "--output-dir", str(out),
            "--quiet"]  # fmt: skip


def slow_server() -> PolicyServer:
    return PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "slow", latency_s=0.15)


def ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as for `sv ... &` in a script


@pytest.mark.parametrize("background", [False, True])
def test_sigterm_saves_exits_130_and_resumes(sv_main, tmp_path: Path, background: bool) -> None:
    with serve_in_thread(slow_server()) as base_url:
        command = [sys.executable, "-m", "security_verifiers.cli", "eval", "e1",
                   *sv_args(f"slow@{base_url}", tmp_path)]  # fmt: skip
        proc = subprocess.Popen(
            command, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, preexec_fn=ignore_sigint if background else None,
        )  # fmt: skip
        stderr = stop_part_way(proc, tmp_path, lambda: proc.send_signal(signal.SIGTERM))
        assert proc.returncode == 130, stderr
        check_interrupted(tmp_path, stderr)
        again = sv_main("eval", "e1", *sv_args(f"slow@{base_url}", tmp_path),
                        env={"SV_NO_DOTENV": "1"})  # fmt: skip
    assert again.returncode == 0, again.stderr
    [run_dir] = list(tmp_path.glob("*/*/"))  # the same run, resumed
    ids = [json.loads(line)["example_id"] for line in result_lines(tmp_path)]
    assert len(ids) == N == len(set(ids))
    assert json.loads((run_dir / "metadata.json").read_text())["status"] == "complete"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
def test_sigterm_to_make_and_its_process_group(tmp_path: Path) -> None:
    """`make` forwards the SIGTERM it gets, so `sv` receives two: still one clean stop. make
    reports sv's 130 ("Error 130") and then, as GNU make does, dies of the signal itself."""
    with serve_in_thread(slow_server()) as base_url:
        proc = subprocess.Popen(
            ["make", "--no-print-directory", "eval-e1", f"MODELS=slow@{base_url}", f"N={N}",
             f"ARGS=--max-concurrent 2 --output-dir {tmp_path} --quiet"],
            cwd=ROOT, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )  # fmt: skip
        stderr = stop_part_way(proc, tmp_path, lambda: os.killpg(proc.pid, signal.SIGTERM))
    assert "eval-e1] Error 130" in stderr, stderr
    assert proc.returncode == -signal.SIGTERM
    check_interrupted(tmp_path, stderr)


def test_the_handler_runs_the_sigint_handler_once_per_burst(monkeypatch) -> None:
    from security_verifiers import signals

    calls: list[int] = []
    monkeypatch.setattr(signals, "_last_sigterm", [])
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        signals.sigterm_as_sigint(signal.SIGTERM, None)
        signals.sigterm_as_sigint(signal.SIGTERM, None)  # make's forwarded copy: the same stop
        assert calls == [signal.SIGINT]
        monkeypatch.setattr(signals, "_last_sigterm", [])
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job: still stops
        with pytest.raises(KeyboardInterrupt):
            signals.sigterm_as_sigint(signal.SIGTERM, None)
    finally:
        signal.signal(signal.SIGINT, previous)
