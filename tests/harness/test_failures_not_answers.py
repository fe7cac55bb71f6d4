"""A rollout whose model call failed is an error, never an answer.

Against a real OpenAI-compatible server on 127.0.0.1 that fails its first requests (or every
request): errored rollouts are left out of every aggregate, counted and shown, the run is
`partial`, the exit code is 1 with one line saying how many failed, and rerunning the same
command retries exactly those rollouts in the same run directory.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.evaluation.records import rollout_row
from security_verifiers.evaluation.run_store import find_resumable
from security_verifiers.evaluation.summary import print_summary_table, reward_interval, summarize
from security_verifiers.models.spec import redact, redact_url
from security_verifiers.serving import PolicyServer, serve_in_thread

N = 8


def sv_eval(model: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "security_verifiers.cli", "eval", "e1", "--models", model,
         "-n", str(N), "--max-concurrent", "1", "--output-dir", str(out), *extra],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def e1_server(**kwargs) -> PolicyServer:
    return PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "m", **kwargs)


def run_files(out: Path) -> tuple[Path, dict, dict, list[dict]]:
    [run_dir] = list(out.glob("*/*/"))
    meta = json.loads((run_dir / "metadata.json").read_text())
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return run_dir, meta, summary, rows


def test_http_errors_are_errors_and_a_rerun_retries_only_them(tmp_path):
    server = e1_server(fail_first=3, fail_status=503)
    with serve_in_thread(server) as base_url:
        model = f"m@{base_url}"
        first = sv_eval(model, tmp_path, "--max-retries", "0")
        assert first.returncode == 1, first.stderr
        assert "Traceback" not in first.stderr
        last_line = first.stderr.strip().splitlines()[-1]
        assert last_line.startswith("error: 3 of 8 rollouts"), first.stderr
        assert "HTTP 503" in last_line and "rerun the same command to retry them" in last_line

        run_dir, meta, summary, rows = run_files(tmp_path)
        assert meta["status"] == "partial" and meta["n_errors"] == 3
        errored = [r for r in rows if r["error"]]
        scored = [r for r in rows if not r["error"]]
        assert len(errored) == 3 and len(scored) == N - 3
        for row in errored:  # no answer: nothing scored, nothing that looks like a reward
            assert row["error"].startswith("HTTP 503") and row["reward"] is None
            assert row["rewards"] == {} and row["parsed"] is None
        assert summary["n"] == N - 3 and summary["n_errors"] == 3 and summary["n_rollouts"] == N
        assert summary["reward_mean"] == pytest.approx(
            sum(r["reward"] for r in scored) / len(scored)
        )
        assert summary["metrics"]["n"] == N - 3  # classification metrics over answers only
        assert summary["metrics"]["invalid_rate"] == 0.0
        assert "errors" in first.stderr  # the console table has an errors column

        requests_before = server.stats.requests
        second = sv_eval(model, tmp_path, "--max-retries", "0")
        assert second.returncode == 0, second.stderr
        assert "retrying the 3 that errored" in second.stderr
        assert server.stats.requests - requests_before == 3  # only the failed ones again

    run_dir2, meta, summary, rows = run_files(tmp_path)
    assert run_dir2 == run_dir, "the rerun must resume the partial run"
    assert meta["status"] == "complete" and meta["attempts"] == 2 and meta["n_errors"] == 0
    assert summary["n"] == N and summary["n_errors"] == 0
    assert sorted(r["example_id"] for r in rows) == sorted({r["example_id"] for r in rows})
    assert all(r["error"] is None and r["reward"] is not None for r in rows)


def test_every_request_failing_is_partial_not_complete(tmp_path):
    with serve_in_thread(e1_server(fail_first=10_000, fail_status=500)) as base_url:
        proc = sv_eval(f"m@{base_url}", tmp_path, "--max-retries", "0", "-n", "4")
    assert proc.returncode == 1, proc.stderr
    assert "error: 4 of 4 rollouts" in proc.stderr and "HTTP 500" in proc.stderr
    run_dir, meta, summary, _ = run_files(tmp_path)
    assert meta["status"] == "partial"
    assert summary["n"] == 0 and summary["n_errors"] == 4
    assert summary["reward_mean"] is None and summary["reward_ci95"] is None
    assert find_resumable(run_dir.parent, meta["fingerprint"]).resumable.dir == run_dir


def test_a_hanging_server_gives_timeout_errors(tmp_path):
    with serve_in_thread(e1_server(latency_s=5.0)) as base_url:
        proc = sv_eval(f"m@{base_url}", tmp_path, "--max-retries", "0", "--timeout", "0.5",
                       "-n", "2")  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "error: 2 of 2 rollouts" in proc.stderr and "timed out" in proc.stderr
    _, meta, summary, rows = run_files(tmp_path)
    assert meta["status"] == "partial" and summary["n_errors"] == 2
    assert all("APITimeoutError" in r["error"] and r["reward"] is None for r in rows)


def test_progress_lines_without_a_terminal(tmp_path):
    with serve_in_thread(e1_server()) as base_url:
        proc = sv_eval(f"m@{base_url}", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"0/{N} rollouts" in proc.stderr and f"{N}/{N} rollouts" in proc.stderr
    assert "ETA" in proc.stderr and "/min" in proc.stderr


def test_password_in_model_url_never_reaches_artifacts_or_console(tmp_path):
    with serve_in_thread(e1_server()) as base_url:
        url = base_url.replace("http://", "http://alice:s3cr%40t-pw@")
        proc = sv_eval(f"m@{url}", tmp_path, "-n", "2")
    assert proc.returncode == 0, proc.stderr
    assert "s3cr" not in proc.stdout + proc.stderr and "alice" not in proc.stderr
    for path in tmp_path.rglob("*"):
        assert "s3cr" not in str(path) and "alice" not in str(path)
        if path.is_file():
            assert "s3cr" not in path.read_text(errors="replace"), path
    _, meta, summary, _ = run_files(tmp_path)
    assert meta["base_url"] == base_url and summary["model"] == f"m@{base_url}"


def test_redact_url():
    assert redact_url("m@http://u:p@ss@host:8/v1") == "m@http://host:8/v1"
    assert redact_url("see https://token@api.x.io/v1 and http://plain/v1") == (
        "see https://api.x.io/v1 and http://plain/v1"
    )
    assert redact({"a": ["http://u:pw@h/v1"], "b": 1}) == {"a": ["http://h/v1"], "b": 1}


def _row(example_id: int, reward: float | None, error: str | None = None) -> dict:
    parsed = {"label": "Benign", "confidence": 0.9}
    return {"example_id": example_id, "reward": reward, "error": error, "gold": "Benign",
            "parsed": parsed, "rewards": {"decision": 1.0}}  # fmt: skip


def test_interval_is_independent_of_completion_order_and_ignores_errors():
    rng = random.Random(0)
    rows = [_row(i, rng.choice([-2.0, 0.0, 1.0, 1.3])) for i in range(40)]
    errored = [_row(100 + i, None, "HTTP 503 (...)") for i in range(5)]
    shuffled = rows + errored
    random.Random(1).shuffle(shuffled)
    assert reward_interval(rows, 42) == reward_interval(shuffled, 42)
    a = summarize(rows, payoffs=None, seed=42)
    b = summarize(shuffled, payoffs=None, seed=42)
    assert a["reward_ci95"] == b["reward_ci95"] == reward_interval(rows, 42)
    assert b["n"] == 40 and b["n_errors"] == 5 and b["reward_mean"] == a["reward_mean"]
    assert reward_interval(errored, 42) is None
    # the console prints the interval summary.json holds
    console = Console(file=io.StringIO(), width=160)
    print_summary_table([("m", b)], console)
    low, high = b["reward_ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in console.file.getvalue()


def test_verifiers_model_error_is_an_error_but_an_empty_reply_is_an_answer():
    error = {
        "error": "ModelError",
        "message": "ModelError",
        "error_chain_repr": 'ModelError() -> InternalServerError("Error code: 503 - busy")',
        "error_chain_str": "ModelError -> InternalServerError",
    }
    output = {"example_id": 3, "completion": [], "reward": -2.0, "error": error,
              "metrics": {"decision": -2.0}, "answer": "Benign"}  # fmt: skip
    row = rollout_row(output, parser=None, run_attempt=1, component_names={"decision"})
    assert row["error"] == "HTTP 503 (ModelError -> InternalServerError): Error code: 503 - busy"
    assert row["reward"] is None and row["rewards"] == {}
    empty = {**error, "error": "EmptyModelResponseError", "error_chain_str": "Empty"}
    row = rollout_row({**output, "error": empty}, None, 1, {"decision"})
    assert row["error"] is None and row["model_error"] and row["reward"] == -2.0


@pytest.mark.parametrize("width", [80, 100])
def test_summary_table_readable_when_narrow(width):
    summary = {
        "n": 500, "n_errors": 3, "reward_mean": -0.123456, "reward_ci95": [-0.204, 1.283],
        "metrics": {"accuracy": 0.625, "f1": 0.8, "fpr": 0.0123, "fnr": 0.333, "ece": 0.22,
                    "brier": 0.051, "coverage": 0.625, "abstain_rate": 0.25,
                    "invalid_rate": 0.125, "cost_weighted_score": 0.375},
    }  # fmt: skip
    console = Console(file=io.StringIO(), width=width)
    print_summary_table(
        [("gpt-4o-mini@http://127.0.0.1:45063/v1", summary), ("heuristic", summary)], console
    )
    text = console.file.getvalue()
    assert all(len(line) <= width for line in text.splitlines())
    for number in ("-0.123", "0.625", "0.800", "0.012", "0.333", "0.375", "[-0.204, 1.283]"):
        assert number in text, (number, text)
    assert "errors" in text and "500" in text


def test_class_balanced_reward_and_prevalence_for_labelled_rows() -> None:
    """On a skewed file a constant answer's plain mean looks good; the class-balanced mean
    (mean over gold classes of each class's mean reward) does not."""
    from security_verifiers.evaluation.summary import class_balance

    rows = [{"gold": "Malicious", "reward": 1.0}] * 9 + [{"gold": "Benign", "reward": -1.0}]
    balanced = class_balance(rows)
    assert balanced["gold_prevalence"] == {"Benign": 0.1, "Malicious": 0.9}
    assert balanced["reward_mean_class_balanced"] == 0.0


def test_skewed_gold_mix_gets_a_note_pointing_to_the_balanced_column() -> None:
    from security_verifiers.evaluation.summary import skew_note

    skewed = {"gold_prevalence": {"Benign": 0.26, "Malicious": 0.74}}
    even = {"gold_prevalence": {"Benign": 0.48, "Malicious": 0.52}}
    note = skew_note([("m", skewed)])
    assert note and "Malicious 74%" in note and "'balanced'" in note
    assert skew_note([("m", even)]) is None and skew_note([("m", {})]) is None
    console = Console(record=True, width=100)
    print_summary_table([("m", {"n": 4, "reward_mean": 0.5, **skewed})], console)
    assert "skewed" in console.export_text()
