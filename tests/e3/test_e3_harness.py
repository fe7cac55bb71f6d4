"""E3 end to end through the harness: baselines served over HTTP, artifacts, metrics."""

from __future__ import annotations

import asyncio
import json

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate


def test_eval_baselines(tmp_path, no_api_keys):
    config = EvalConfig(env="e3", models=["reference-fix", "scanner-oracle"], n=3,
                        output_root=tmp_path, max_concurrent=2)  # fmt: skip
    runs = asyncio.run(evaluate(config))
    summaries = {r.spec.name: json.loads((r.run_dir / "summary.json").read_text()) for r in runs}
    ref, oracle = summaries["reference-fix"], summaries["scanner-oracle"]
    assert ref["metrics"]["repair_rate"] == 1.0 and ref["reward_mean"] > 1.3
    assert ref["metrics"]["new_finding_rate"] == 0.0
    assert oracle["metrics"]["repair_rate"] == 0.0 and oracle["reward_mean"] == 0.0


def test_tool_env_runs_tools():
    from sv_env_code_vulnerability import load_environment
    from sv_env_code_vulnerability.model_tools import run_bandit, run_tests, view_file

    env = load_environment(split="all", include_tools=True, max_examples=1)
    info = env.eval_dataset[0]["info"]
    episode = {k: info[k] for k in ("module_file", "vulnerable", "visible_tests", "visible_file")}
    assert "1  " in view_file(info["module_file"], episode)
    assert "error" in json.loads(view_file("../../etc/passwd", episode))
    results = json.loads(run_tests("", episode))["results"]
    assert results and all(v[0] == "passed" for v in results.values())
    assert "findings" in json.loads(run_bandit("", episode))
    assert "does not apply" in json.loads(run_tests("garbage", episode))["error"]
