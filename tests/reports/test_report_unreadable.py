"""`sv report` leaves out an unreadable run or results line with a warning naming the file and
line, instead of failing the whole report (or printing a traceback).

`sv` runs in this process (`security_verifiers.cli.main`, its exit status and output), which
saves an interpreter start per command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.reports.runs import MAX_LINE_WARNINGS, load_run, load_runs

N = 6


@pytest.fixture
def sv(sv_main):
    """`sv(*args)`: `sv ARGS` in this process (see tests/conftest.py)."""
    return sv_main


@pytest.fixture(scope="module")
def evals(sv_main_quiet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished E1 runs (heuristic, random), made once and copied per test."""
    out = tmp_path_factory.mktemp("evals")
    proc = sv_main_quiet("eval", "e1", "-m", "heuristic,random", "-n", str(N), "--quiet",
                         "--output-dir", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def runs(evals: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "evals"
    shutil.copytree(evals, root)
    [heuristic] = root.glob("*--heuristic/*/")
    [random_] = root.glob("*--random/*/")
    return root, heuristic, random_


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_bad_lines_are_skipped_with_a_warning_naming_file_and_line(sv, runs):
    root, heuristic, _ = runs
    results = heuristic / "results.jsonl"
    lines = results.read_bytes().splitlines()
    lines[1] = b"\xff\xfe not utf-8 \x80"
    lines[3] = b'{"example_id": 3, "reward": '
    lines.append(b"[1, 2]")
    results.write_bytes(b"\n".join(lines) + b"\n")
    proc = sv("report", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warned = warnings_of(proc.stderr)
    assert f"warning: {results}:2: not UTF-8 text; line skipped" in warned
    assert any(w.startswith(f"warning: {results}:4: not valid JSON") for w in warned), warned
    assert f"warning: {results}:{N + 1}: not a JSON object; line skipped" in warned
    assert (root / "report" / "report.md").is_file()
    run = load_run(heuristic, warn=lambda message: None)
    assert len(run.rows) == N - 2


def test_an_unreadable_run_is_left_out_and_the_others_reported(sv, runs):
    root, _, random_ = runs
    (random_ / "metadata.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    proc = sv("report", str(root), "--output-dir", str(root / "report"))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    [warned] = warnings_of(proc.stderr)
    assert str(random_ / "metadata.json") in warned and "not UTF-8" in warned
    assert warned.endswith("run skipped")
    md = (root / "report" / "report.md").read_text()
    assert "heuristic" in md and "random" not in md


def test_no_readable_run_is_one_error_line(sv, runs):
    root, heuristic, random_ = runs
    (heuristic / "summary.json").write_text("{not json")
    (random_ / "summary.json").write_bytes(b"\xff")
    proc = sv("report", str(root))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "no readable finished runs" in errors[0], proc.stderr
    assert "(and 1 more)" in errors[0]


def test_many_bad_lines_are_counted_not_listed(runs):
    _, heuristic, _ = runs
    results = heuristic / "results.jsonl"
    good = results.read_text()
    results.write_text(good + "garbage\n" * (MAX_LINE_WARNINGS + 7))
    seen: list[str] = []
    runs_, _ = load_runs([str(heuristic)], warn=seen.append)
    assert len(runs_[0].rows) == N
    assert len(seen) == MAX_LINE_WARNINGS + 1
    assert seen[-1] == f"{results}: 7 more unreadable line(s) skipped"


def test_json_text_holding_a_line_separator_is_one_row(runs):
    _, heuristic, _ = runs
    results = heuristic / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rows[0]["completion_text"] = "before\u2028after"
    results.write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
    )
    seen: list[str] = []
    assert len(load_run(heuristic, warn=seen.append).rows) == N
    assert seen == []


def test_unreadable_file_of_a_single_run_is_a_user_error(runs):
    _, heuristic, _ = runs
    (heuristic / "summary.json").write_bytes(b"\xff\xfe")
    with pytest.raises(UserError, match=r"summary\.json is not UTF-8 text"):
        load_run(heuristic)
