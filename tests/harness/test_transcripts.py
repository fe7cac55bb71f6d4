"""Reading rollouts: `sv sample` (seeded, filtered, redacted), the report's transcripts with
outcome filters, and `sv export-inspect` read back by Inspect AI's own log reader."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from security_verifiers.cli import app
from security_verifiers.reports.transcripts import run_dirs, select, transcripts

ROOT = Path(__file__).resolve().parents[2]
INSPECT_PYTHON = ROOT / ".tools" / "inspect" / "bin" / "python"
SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """E1 runs of two baselines (12 rollouts each) and one with a secret in a reply."""
    root = tmp_path_factory.mktemp("runs")
    result = CliRunner().invoke(
        app,
        ["eval", "e1", "--models", "heuristic,always-abstain", "-n", "12", "--seed", "3",
         "--output-dir", str(root), "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    heuristic = next(d for d in run_dirs([root]) if "heuristic" in str(d))
    results = heuristic / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rows[0]["completion"] = f"my key is {SECRET} " + rows[0]["completion"]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def sample(*args: str) -> list[dict]:
    result = CliRunner().invoke(app, ["sample", *args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_sample_is_seeded_and_shows_the_prompt(runs: Path):
    first = sample("e1", str(runs), "-n", "5", "--seed", "7")
    again = sample("e1", str(runs), "-n", "5", "--seed", "7")
    other = sample("e1", str(runs), "-n", "5", "--seed", "8")
    key = [(r["run_dir"], r["example_id"]) for r in first]
    assert len(first) == 5 and key == [(r["run_dir"], r["example_id"]) for r in again]
    assert key != [(r["run_dir"], r["example_id"]) for r in other]
    for record in first:
        assert record["messages"] and record["messages"][-1]["role"] == "user"
        assert record["messages"][-1]["content"].strip()


def test_lowest_reward_is_found_in_one_command(runs: Path):
    records = [r for d in run_dirs([runs]) for r in transcripts(d, with_prompts=False)]
    lowest = min(r.reward for r in records if r.reward is not None)
    shown = sample("e1", str(runs), "--outcome", "lowest-reward", "-n", "1")
    assert len(shown) == 1 and shown[0]["reward"] == lowest
    text = CliRunner().invoke(app, ["sample", "e1", str(runs), "--outcome", "lowest-reward",
                                    "-n", "1"])  # fmt: skip
    assert text.exit_code == 0 and "--- assistant (reply)" in text.stdout


def test_filters_keep_their_outcome(runs: Path):
    abstained = sample("e1", str(runs), "--outcome", "abstained", "-n", "50")
    assert abstained and {r["outcome"] for r in abstained} == {"abstained"}
    assert sum(r["model"] == "always-abstain" for r in abstained) == 12
    only = sample("e1", str(runs), "--model", "heuristic", "-n", "50")
    assert len(only) == 12 and {r["model"] for r in only} == {"heuristic"}
    result = CliRunner().invoke(app, ["sample", "e1", str(runs), "--outcome", "nope"])
    assert result.exit_code != 0 and "--outcome nope" in str(result.exception)


def test_secrets_are_redacted_unless_asked(runs: Path):
    shown = " ".join(r["completion"] for r in sample("e1", str(runs), "-n", "50"))
    assert SECRET not in shown and "[redacted]" in shown
    raw = " ".join(r["completion"] for r in sample("e1", str(runs), "-n", "50", "--no-redact"))
    assert SECRET in raw


def test_select_takes_the_n_lowest_rewards():
    from security_verifiers.reports.transcripts import Transcript

    def record(i: int, reward: float) -> Transcript:
        return Transcript(Path("r"), "e", "m", i, str(i), None, [], "", None, reward, {}, None,
                          None)  # fmt: skip

    picked = select([record(i, r) for i, r in enumerate([0.5, -1.0, 0.2, -2.0])], "lowest-reward",
                    2, seed=0)  # fmt: skip
    assert [r.reward for r in picked] == [-2.0, -1.0]


def test_report_has_filterable_redacted_transcripts(runs: Path, tmp_path: Path):
    result = CliRunner().invoke(app, ["report", str(runs), "-o", str(tmp_path / "rep"),
                                      "--transcripts", "6"])  # fmt: skip
    assert result.exit_code == 0, result.output
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count("<details class='tx'") == 12  # 6 per run
    for name in ("wrong", "errored", "abstained", "tool-calls", "lowest-reward"):
        assert f"svFilter('tx-e1', '{name}')" in html
    assert "data-tags='abstained" in html and "lowest-reward" in html
    assert SECRET not in html
    none = CliRunner().invoke(app, ["report", str(runs), "-o", str(tmp_path / "bare"),
                                    "--transcripts", "0"])  # fmt: skip
    assert (
        none.exit_code == 0
        and "<details class='tx'" not in (tmp_path / "bare" / "report.html").read_text()
    )


READ_BACK = """
import json, sys
from inspect_ai.log import read_eval_log
out = []
for path in sys.argv[1:]:
    log = read_eval_log(path)
    s = log.samples[0]
    out.append({"task": log.eval.task, "model": log.eval.model, "status": log.status,
                "n": len(log.samples), "scores": sorted(s.scores), "target": s.target,
                "roles": [m.role for m in s.messages],
                "mean": log.results.scores[0].metrics["mean"].value,
                "text": " ".join(m.text for x in log.samples for m in x.messages)})
print(json.dumps(out))
"""


def test_inspect_reads_the_export_back(runs: Path, tmp_path: Path):
    assert INSPECT_PYTHON.is_file(), "Inspect's tool venv is missing: run `make setup`"
    out = tmp_path / "logs"
    result = CliRunner().invoke(app, ["export-inspect", str(runs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.json"))
    assert len(files) == 2
    read = subprocess.run(
        [str(INSPECT_PYTHON), "-c", READ_BACK, *map(str, files)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert read.returncode == 0, read.stderr[-3000:]
    logs = json.loads(read.stdout)
    for log in logs:
        assert log["status"] == "success" and log["n"] == 12
        assert "reward" in log["scores"] and log["target"] in ("Benign", "Malicious")
        assert log["roles"][-1] == "assistant" and "user" in log["roles"]
        assert SECRET not in log["text"]
    assert {log["model"] for log in logs} == {"heuristic", "always-abstain"}
    assert all(log["task"] for log in logs)


def test_export_of_nothing_is_one_line(tmp_path: Path):
    result = CliRunner().invoke(app, ["export-inspect", str(tmp_path)])
    assert result.exit_code != 0 and "no runs" in str(result.exception)
