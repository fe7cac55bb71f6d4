"""User mistakes give one clear message and exit code 2 — never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def sv(*args: str, tmp_path: Path, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "security_verifiers.cli", *args, "--output-dir", str(tmp_path)]
        if args and args[0] == "eval"
        else [sys.executable, "-m", "security_verifiers.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_clean_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_unknown_environment(tmp_path):
    assert_clean_error(sv("eval", "e9", "--models", "heuristic", tmp_path=tmp_path), "e9", "e1")


def test_unknown_model_without_endpoint(tmp_path):
    proc = sv("eval", "e1", "--models", "heurstic", tmp_path=tmp_path)
    assert_clean_error(proc, "unknown model 'heurstic'", "heuristic", "OPENAI_API_KEY")


def test_missing_key_for_openai_model(tmp_path):
    proc = sv(
        "eval",
        "e1",
        "--models",
        "gpt-4o-mini",
        "--base-url",
        "https://api.openai.com/v1",
        tmp_path=tmp_path,
    )
    assert_clean_error(proc, "OPENAI_API_KEY")


def test_unreachable_base_url(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    proc = sv("eval", "e1", "--models", "m", "--base-url", url, tmp_path=tmp_path)
    assert_clean_error(proc, "cannot reach", url)


def test_unknown_model_at_endpoint(heuristic_server, tmp_path):
    base_url, _ = heuristic_server
    proc = sv("eval", "e1", "--models", f"nope@{base_url}", tmp_path=tmp_path)
    assert_clean_error(proc, "unknown model 'nope'", "local-heuristic")


def test_n_larger_than_dataset(tmp_path):
    proc = sv("eval", "e1", "--models", "heuristic", "-n", "100000", tmp_path=tmp_path)
    assert_clean_error(proc, "N=100000", "larger than the dataset")


def test_malformed_dataset_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.conn.log.labeled"
    bad.write_text(
        "#separator \\x09\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto"
        "\tlabel\tdetailedlabel\n"
        "1.0\tC1\t10.0.0.1\t1234\t10.0.0.2\t80\ttcp\tBenign\t-\n"
        "2.0\tC2\t10.0.0.1\tnot-a-port\t10.0.0.2\t80\ttcp\tMalicious\t-\n"
    )
    proc = sv(
        "eval",
        "e1",
        "--models",
        "heuristic",
        "-n",
        "1",
        "--env-arg",
        "source=zeek",
        "--env-arg",
        f"path={bad}",
        "--env-arg",
        "split=all",
        tmp_path=tmp_path,
    )
    assert_clean_error(proc, "bad.conn.log.labeled", "line 4")


def test_missing_dataset_file(tmp_path):
    proc = sv(
        "eval",
        "e1",
        "--models",
        "heuristic",
        "--env-arg",
        "source=zeek",
        "--env-arg",
        f"path={tmp_path / 'absent.log'}",
        tmp_path=tmp_path,
    )
    assert_clean_error(proc, "absent.log")


@pytest.mark.parametrize("bad", ["not-json", "[1, 2]"])
def test_bad_env_args_json(tmp_path, bad):
    proc = sv("eval", "e1", "--models", "heuristic", "--env-args", bad, tmp_path=tmp_path)
    assert_clean_error(proc, "--env-args")


def test_unknown_reward_weight(tmp_path):
    proc = sv(
        "eval",
        "e1",
        "--models",
        "heuristic",
        "--env-args",
        '{"reward_weights": {"decison": 1}}',
        tmp_path=tmp_path,
    )
    assert_clean_error(proc, "decison")
