"""The real local LLM (SmolLM2-135M GGUF), end to end: in-process (the default) and under
llama-cpp-python's server (SV_LOCAL_BACKEND=server)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL, builtin_gguf_path
from security_verifiers.models.local_server import LOCAL_BACKEND_ENV, LocalServerPool
from security_verifiers.models.providers.registry import resolve_model

pytestmark = pytest.mark.usefixtures("no_api_keys")


def quiet() -> Console:
    return Console(file=open(os.devnull, "w"))


def server_pids(parent: int | None = None) -> set[int]:
    """PIDs of running llama_cpp.server processes (optionally: children of `parent`)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        alive = b"llama_cpp.server" in cmdline and stat[0] != "Z"
        if alive and (parent is None or int(stat[1]) == parent):
            pids.add(int(entry.name))
    return pids


@pytest.fixture
def server_backend(monkeypatch):
    monkeypatch.setenv(LOCAL_BACKEND_ENV, "server")


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_local_model_evaluates_e1_with_schema_constrained_output(tmp_path, monkeypatch, backend):
    monkeypatch.setenv(LOCAL_BACKEND_ENV, backend)
    before = server_pids(os.getpid())  # only ours: other llama servers may run on the machine
    [run] = asyncio.run(
        evaluate(
            EvalConfig(env="e1", models=[DEFAULT_LOCAL_MODEL], n=3, max_tokens=96,
                       output_root=tmp_path),
            quiet(),
        )
    )  # fmt: skip
    meta = json.loads((run.run_dir / "metadata.json").read_text())
    rows = [json.loads(line) for line in (run.run_dir / "results.jsonl").read_text().splitlines()]
    assert meta["model_kind"] == "local" and meta["gguf"].endswith(".gguf")
    assert meta["local_backend"] == backend
    assert meta["structured_output"] == "json_object"
    assert meta["sampling_args"]["response_format"]["schema"]["properties"]["label"]["enum"]
    assert len(rows) == 3 and all(r["error"] is None for r in rows)
    assert all(r["tokens"]["output"] > 0 and r["completion"] for r in rows)
    # the grammar guarantees a parseable answer from even a 135M model
    assert all(r["parsed"] is not None and r["rewards"]["format"] == 1.0 for r in rows)
    assert server_pids(os.getpid()) == before, "the harness must stop the server it started"


@pytest.mark.usefixtures("server_backend")
def test_pool_starts_once_reuses_and_stops():
    gguf = builtin_gguf_path("smollm2-135m")
    with LocalServerPool() as pool:
        first = pool.get(gguf, "m")
        again = pool.get(gguf, "m")
        assert first is again and first.alive()
        pid = first.process.pid
        assert pid in server_pids()
    assert pid not in server_pids() and not first.alive()


def test_missing_gguf_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="GGUF file not found"):
        resolve_model(f"local:{tmp_path / 'absent.gguf'}", baselines={})


def test_non_gguf_file_is_a_clear_error(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(UserError, match="not a GGUF model file"):
        resolve_model(f"local:{path}", baselines={})


@pytest.mark.usefixtures("server_backend")
def test_corrupt_gguf_fails_to_load_with_the_server_log(tmp_path):
    good = builtin_gguf_path("smollm2-135m").read_bytes()
    corrupt = tmp_path / "truncated.gguf"
    corrupt.write_bytes(good[: len(good) // 50])  # valid header, truncated tensors
    spec = resolve_model(f"local:{corrupt}", baselines={})
    before = server_pids(os.getpid())  # only ours: other llama servers may run on the machine
    with LocalServerPool() as pool, pytest.raises(UserError, match="could not load"):
        pool.get(spec.gguf, spec.model_id)
    assert server_pids(os.getpid()) == before


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_no_orphan_server_when_the_harness_is_stopped(tmp_path, sig):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env[LOCAL_BACKEND_ENV] = "server"
    proc = subprocess.Popen(
        [sys.executable, "-m", "security_verifiers.cli", "eval", "e1", "--models",
         DEFAULT_LOCAL_MODEL, "-n", "40", "--output-dir", str(tmp_path), "--quiet"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.time() + 120
    while not server_pids(proc.pid) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    children = server_pids(proc.pid)
    assert children, "the local server should have started"
    time.sleep(1.0)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    deadline = time.time() + 30
    while children & server_pids() and time.time() < deadline:
        time.sleep(0.2)
    assert not children & server_pids(), "server outlived the harness"
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert b"Traceback" not in proc.stderr.read()
