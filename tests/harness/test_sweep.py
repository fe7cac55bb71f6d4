"""`sv eval-set`: sweep files, their one-line errors, a resumable sweep (kill -9 included),
per-provider concurrency limits, and the example files of the research plan."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from security_verifiers.cli import app
from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.sweep import expand, load_sweep
from security_verifiers.serving import PolicyServer, ServerStats, serve_in_thread

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "sweep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: s\nmodels: [heuristic]\ntasks: [{env: e1, nn: 3}]\n",
         r"tasks\[0\]\.nn: unknown key"),
        ("name: s\nmodels: [heuristic]\ntasks: [{env: e1, n: many}]\n", r"tasks\[0\]\.n: "),
        ("name: s\nmodels: [heuristic]\n", r"tasks: Field required"),
        ("name: s\ntasks: [{env: e1}]\n", r"tasks\[0\]\.models: no models"),
        ("name: s\nmodels: [m]\nconcurrency: {opneai: 3}\ntasks: [{env: e1}]\n",
         r"concurrency\.opneai: unknown provider"),
        ("name: s\nmodels: [m]\ntasks:\n  - env: e1\n   n: 3\n", r"line \d+ not valid YAML"),
        ("name: 'bad name'\nmodels: [m]\ntasks: [{env: e1}]\n", r"name: String should match"),
        ("- just\n- a list\n", r"expected a mapping at the top level"),
    ],
)  # fmt: skip
def test_bad_sweep_files_name_the_key(tmp_path: Path, text: str, message: str):
    path = write(tmp_path, text)
    with pytest.raises(UserError, match=message) as info:
        load_sweep(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_toml_and_yaml_expand_to_the_cross_product(tmp_path: Path):
    toml = write(
        tmp_path,
        'name = "t"\nmodels = ["heuristic", "always-abstain"]\nseeds = [1, 2]\n'
        "[defaults]\nn = 4\n"
        '[[tasks]]\nenv = "e1"\nenv_args = [{}, {source = "synthetic"}]\n'
        '[[tasks]]\nenv = "e4"\nmodels = ["heuristic"]\nseeds = [7]\nn = 2\n',
        "sweep.toml",
    )
    plan = expand(load_sweep(toml))
    assert [(p.config.env, p.config.seed, p.config.env_args, p.config.n) for p in plan] == [
        ("e1", 1, {}, 4), ("e1", 2, {}, 4),
        ("e1", 1, {"source": "synthetic"}, 4), ("e1", 2, {"source": "synthetic"}, 4),
        ("e4", 7, {}, 2),
    ]  # fmt: skip
    assert plan[-1].config.models == ["heuristic"]
    assert {p.config.output_root for p in plan} == {Path("outputs/sweeps/t/runs")}


@pytest.mark.parametrize("name", ["weekly-e1-e4.yaml", "full.yaml", "weekly-offline.yaml"])
def test_example_sweeps_are_valid(name: str):
    sweep = load_sweep(ROOT / "configs" / "sweeps" / name)
    envs = {task.env for task in sweep.tasks}
    assert {"e1", "e2", "e3", "e4"} <= envs
    if name == "full.yaml":
        assert {"e5", "e6"} <= envs and len(sweep.seeds) >= 2
    for planned in expand(sweep):
        resolve_env(planned.config.env)


def results(run_root: Path) -> dict[str, list[dict]]:
    return {
        str(path.parent): [json.loads(line) for line in path.read_text().splitlines()]
        for path in run_root.glob("*/*/results.jsonl")
    }


def test_offline_sweep_runs_reports_and_resumes_without_repeating(tmp_path: Path):
    sweep = write(
        tmp_path,
        f"name: offline\noutput_dir: {tmp_path / 'out'}\nmodels: [heuristic, always-abstain]\n"
        "seeds: [1, 2]\ndefaults: {n: 5}\n"
        "tasks:\n  - env: e1\n  - env: e4\n    models: [heuristic, learned]\n    seeds: [3]\n",
    )
    runner = CliRunner()
    first = runner.invoke(app, ["eval-set", str(sweep), "--quiet"])
    assert first.exit_code == 0, first.output
    out = tmp_path / "out"
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["runs"]) == 6
    assert (out / "report" / "report.html").is_file()
    before = results(out / "runs")
    assert len(before) == 6 and all(len(rows) == 5 for rows in before.values())
    again = runner.invoke(app, ["eval-set", str(sweep), "--quiet", "--no-report"])
    assert again.exit_code == 0, again.output
    assert results(out / "runs") == before  # nothing requested or written twice


def sv_eval_set(path: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.Popen(
        [sys.executable, "-m", "security_verifiers.cli", "eval-set", str(path), "--quiet",
         "--no-report"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_killed_sweep_resumes_exactly_and_keeps_the_provider_limit(tmp_path: Path):
    """Two served models under one `endpoint: 2` limit run side by side but never have more
    than two requests in flight together; kill -9 part-way, rerun: every rollout once."""
    n = 12
    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    stats = ServerStats()
    slow_a = PolicyServer(policy, "slow-a", latency_s=0.15, stats=stats)
    slow_b = PolicyServer(policy, "slow-b", latency_s=0.15, stats=stats)
    out = tmp_path / "out"
    with serve_in_thread(slow_a) as url_a, serve_in_thread(slow_b) as url_b:
        sweep = write(
            tmp_path,
            f"name: killed\noutput_dir: {out}\nmodels: [slow-a@{url_a}, slow-b@{url_b}]\n"
            f"defaults: {{n: {n}, max_concurrent: 4}}\nconcurrency: {{endpoint: 2}}\n"
            "tasks: [{env: e1}]\n",
        )
        proc = sv_eval_set(sweep)
        deadline = time.time() + 120
        while sum(map(len, results(out / "runs").values())) < 6 and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        partial = sum(map(len, results(out / "runs").values()))
        assert 6 <= partial < 2 * n, "the sweep should have been stopped part-way"
        finished = sv_eval_set(sweep)
        _, stderr = finished.communicate(timeout=180)
        assert finished.returncode == 0, stderr
    runs = results(out / "runs")
    assert len(runs) == 2
    for rows in runs.values():
        ids = [row["example_id"] for row in rows]
        assert len(ids) == n and len(set(ids)) == n
    assert stats.max_in_flight <= 2
    assert stats.requests <= 2 * n + 4  # only the missing rollouts (plus in-flight ones) again
    assert json.loads((out / "sweep.json").read_text())["status"] == "complete"


def test_errored_rollouts_are_retried_by_the_sweep(tmp_path: Path):
    """A server that fails its first requests past the client's retries leaves errored
    rollouts; the sweep's retry round requests exactly those again and ends complete."""
    n = 6
    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    flaky = PolicyServer(policy, "flaky", fail_first=3, fail_status=503)
    out = tmp_path / "out"
    with serve_in_thread(flaky) as url:
        sweep = write(
            tmp_path,
            f"name: flaky\noutput_dir: {out}\nmodels: [flaky@{url}]\n"
            f"defaults: {{n: {n}, max_concurrent: 1, max_retries: 0}}\nretry_rounds: 1\n"
            "tasks: [{env: e1}]\n",
        )
        result = CliRunner().invoke(app, ["eval-set", str(sweep), "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["status"] == "complete" and manifest["runs"][0]["n_errors"] == 0
    (rows,) = results(out / "runs").values()
    ids = [row["example_id"] for row in rows if not row.get("error")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == n
    assert flaky.stats.requests == n + 3  # each failed rollout requested once more
