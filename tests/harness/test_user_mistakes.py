"""More user mistakes: each gives one line naming the problem (exit 2), never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from security_verifiers.environments import EnvEntry
from security_verifiers.errors import UserError
from security_verifiers.evaluation.runner import load_env
from sv_shared.env_args import accepts_env_args, allowed_env_args


def sv(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "security_verifiers.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], proc.stderr
    assert all(line.startswith(("Loading ", "error: ")) for line in lines), proc.stderr
    for needle in needles:
        assert needle in errors[0], proc.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--max-concurrent", "0"), ("--max-concurrent 0", "1 or more")),
        (("-n", "0"), ("-n 0", "-1 for all")),
        (("-n", "-5"), ("-n -5", "-1 for all")),
        (("--timeout", "0"), ("--timeout 0",)),
        (("--max-retries", "-1"), ("--max-retries -1",)),
    ],
)
def test_bad_numbers(tmp_path, args, needles):
    one_line_error(
        sv("eval", "e1", "-m", "heuristic", "--output-dir", str(tmp_path), *args), *needles
    )


def test_non_numeric_port_in_model_url(tmp_path):
    proc = sv("eval", "e1", "-m", "m@http://127.0.0.1:abc/v1", "--output-dir", str(tmp_path))
    one_line_error(proc, "http://127.0.0.1:abc/v1", "port is not a number")


def test_port_out_of_range_in_base_url(tmp_path):
    url = "http://127.0.0.1:99999/v1"
    proc = sv("eval", "e1", "-m", "m", "--base-url", url, "--output-dir", str(tmp_path))
    one_line_error(proc, "--base-url", url, "between 1 and 65535")


def test_password_not_echoed_in_errors(tmp_path):
    proc = sv("eval", "e1", "-m", "m@http://bob:hunter2@127.0.0.1:abc/v1", "--output-dir",
              str(tmp_path))  # fmt: skip
    line = one_line_error(proc, "port is not a number")
    assert "hunter2" not in line and "bob" not in line


def test_binary_dataset_file_is_named(tmp_path):
    binary = tmp_path / "flows.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    proc = sv("eval", "e1", "-m", "heuristic", "--env-arg", "source=jsonl", "--env-arg",
              f"path={binary}", "--output-dir", str(tmp_path / "out"))  # fmt: skip
    one_line_error(proc, str(binary), "not UTF-8")


@pytest.mark.parametrize("bad_file", ["metadata.json", "train.jsonl"])
def test_data_validate_on_binary_files(tmp_path, bad_file):
    build = tmp_path / "build"
    build.mkdir()
    (build / "metadata.json").write_text('{"env_id": "sv-env-network-logs", "splits": {}}')
    (build / bad_file).write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    one_line_error(sv("data", "validate", str(build)), str(build / bad_file), "not UTF-8")


def _fake_env(monkeypatch: pytest.MonkeyPatch, load_environment) -> EnvEntry:
    module = types.ModuleType("sv_env_fake_args")
    module.load_environment = load_environment
    monkeypatch.setitem(sys.modules, "sv_env_fake_args", module)
    return EnvEntry("e9", "sv-env-fake-args")


def test_harness_rejects_unknown_env_args_before_loading(monkeypatch):
    built = []

    @accepts_env_args("sv-env-fake-args", passthrough={"split"})
    def load_environment(source: str = "synthetic", **kwargs):
        built.append(kwargs)
        raise AssertionError("must not be reached")

    entry = _fake_env(monkeypatch, load_environment)
    with pytest.raises(UserError) as info:
        load_env(entry, {"sourc": "zeek"})
    assert str(info.value) == (
        "unknown argument(s) for sv-env-fake-args: sourc (did you mean source?) "
        "(valid: source, split)"
    )
    assert built == []


def test_misspelled_env_arg_via_cli(tmp_path):
    import sv_env_network_logs

    assert allowed_env_args(sv_env_network_logs.load_environment) is not None
    proc = sv("eval", "e1", "-m", "heuristic", "--env-arg", "sourc=zeek", "--output-dir",
              str(tmp_path))  # fmt: skip
    one_line_error(proc, "unknown argument(s) for sv-env-network-logs: sourc", "source")


def test_models_lists_oracles_and_providers():
    proc = sv("models", "e2")
    assert proc.returncode == 0, proc.stderr
    assert "tool-oracle" in proc.stdout and "oracle:" in proc.stdout
    assert "report-nothing" in proc.stdout
    assert "local/smollm2-135m" in proc.stdout and "hf:<checkpoint>" in proc.stdout
    assert "MODEL@http" in proc.stdout
    e1 = sv("models", "e1").stdout
    assert "heuristic" in e1 and "oracle:" not in e1


def test_default_model_hint_names_the_environment(tmp_path):
    proc = sv("eval", "e4", "-n", "1", "--output-dir", str(tmp_path), "--quiet")
    assert "sv models e4" in proc.stderr and "sv models e1" not in proc.stderr


def test_report_and_eval_share_output_dir(tmp_path):
    help_text = sv("report", "--help").stdout
    assert "--output-dir" in help_text
    missing = str(tmp_path / "no-runs-here")
    for option in ("--output-dir", "--out", "-o"):
        proc = sv("report", missing, option, str(tmp_path / "report"))
        assert proc.returncode == 2 and "No such option" not in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    proc = sv("eval", "e1", "-m", "heuristic", "-n", "2", "--out", str(tmp_path / "evals"),
              "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert list(Path(tmp_path / "evals").glob("*/*/summary.json"))


def test_lenient_load_says_it_skipped_rows(tmp_path):
    from sv_env_network_logs.dataset import load_flows, write_jsonl

    items, _ = load_flows("synthetic", split="test")
    data = tmp_path / "flows.jsonl"
    write_jsonl(items[:3], data)
    with data.open("a") as handle:
        handle.write('{"not": "a flow"}\nnot json at all\n')
    proc = sv("eval", "e1", "-m", "heuristic", "--env-arg", "source=jsonl", "--env-arg",
              f"path={data}", "--env-arg", "strict=false", "-n", "-1", "--quiet",
              "--output-dir", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: 2 malformed input row(s)" in proc.stderr and "strict=false" in proc.stderr
