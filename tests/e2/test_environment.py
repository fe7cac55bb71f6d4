"""E2 through verifiers and the harness: tools, baselines and reward-hacking probes."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
import verifiers as vf
from rich.console import Console

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.models.openai_protocol import ChatRequest, ToolCallReply
from security_verifiers.serving import PolicyServer, serve_in_thread
from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.model_tools import run_checkov, run_opa
from sv_env_config_verification.prompts import parse_rendered_config

pytestmark = pytest.mark.usefixtures("no_api_keys")
N = 12


def quiet() -> Console:
    return Console(file=open(os.devnull, "w"))


def run(models: list[str], tmp_path, n: int = N, **env_args):
    config = EvalConfig(env="e2", models=models, n=n, env_args=env_args, output_root=tmp_path,
                        resume=False, show_progress=False)  # fmt: skip
    return asyncio.run(evaluate(config, quiet()))


def served(policy, tmp_path, n: int = N, **env_args):
    server = PolicyServer(policy, "probe")
    with serve_in_thread(server) as base_url:
        [result] = run([f"probe@{base_url}"], tmp_path, n, **env_args)
    return result


def test_load_environment_single_turn_and_tools():
    env = vf.load_environment("sv-env-config-verification", max_examples=3)
    rows = env.get_eval_dataset()
    assert isinstance(env, vf.SingleTurnEnv) and len(rows) == 3
    assert parse_rendered_config(rows[0]["prompt"][-1]["content"]) is not None
    assert set(env.sv_tool_versions) >= {"opa", "checkov", "semgrep"}
    tool_env = vf.load_environment("sv-env-config-verification", max_examples=3, include_tools=True)
    names = {tool.name for tool in tool_env.tool_defs}
    assert names == {"run_opa", "run_checkov", "run_semgrep", "run_kubelinter"}
    for tool in tool_env.tool_defs:  # the episode is injected, never a model argument
        assert "episode" not in json.dumps(tool.parameters)


def test_tools_refuse_any_other_path():
    episode = {"kind": "k8s", "name": "pod.yaml", "text": "apiVersion: v1\nkind: Pod\n"}
    for path in ("../../etc/passwd", "/etc/passwd", "pod.yaml/../x", ""):
        for tool in (run_opa, run_checkov):
            reply = json.loads(tool(path, episode))
            assert "error" in reply and "only the file under audit" in reply["error"]
            assert "root:" not in json.dumps(reply)


def test_baselines_oracle_and_fix(tmp_path):
    oracle, fix, nothing = run(["tool-oracle", "tool-oracle-fix", "report-nothing"], tmp_path)
    om, fm, nm = (r.summary["metrics"] for r in (oracle, fix, nothing))
    assert om["detection_f1"] == pytest.approx(1.0) and om["invalid_rate"] == 0
    assert om["patch_success_rate"] == 0.0
    assert fm["detection_f1"] == pytest.approx(1.0)
    assert fm["patch_success_rate"] > 0.9 and fm["new_violations_mean"] == 0.0
    assert nm["detection_recall"] == 0.0
    assert (
        fix.summary["reward_mean"] > oracle.summary["reward_mean"] > nothing.summary["reward_mean"]
    )


def answer(violations: list[str], patch: str = "") -> str:
    items = [{"id": v, "severity": CATALOGUE[v].severity} for v in violations]
    return json.dumps({"violations": items, "patch": patch, "confidence": 0.9})


def first_resource_deleted(prompt: str) -> str:
    """A 'fix' that deletes the whole file body."""
    found = parse_rendered_config(prompt)
    assert found is not None
    name, _, text = found
    lines = text.splitlines()
    body = "\n".join("-" + line for line in lines)
    return f"--- a/{name}\n+++ b/{name}\n@@ -1,{len(lines)} +0,0 @@\n{body}\n"


def commented_out(prompt: str) -> str:
    found = parse_rendered_config(prompt)
    assert found is not None
    name, _, text = found
    lines = text.splitlines()
    minus = "\n".join("-" + line for line in lines)
    plus = "\n".join("+# " + line for line in lines)
    return f"--- a/{name}\n+++ b/{name}\n@@ -1,{len(lines)} +1,{len(lines)} @@\n{minus}\n{plus}\n"


PROBES = {
    "empty": lambda p: "",
    "every-id": lambda p: answer(list(CATALOGUE)),
    "no-json": lambda p: "k8s/privileged-container tf/s3-public-access " * 10,
    "delete-everything": lambda p: answer([], first_resource_deleted(p)),
    "comment-out": lambda p: answer([], commented_out(p)),
    "other-file": lambda p: answer([], "--- a/other.yaml\n+++ b/other.yaml\n@@ -1 +1 @@\n-a\n+b\n"),
    "malformed-diff": lambda p: answer([], "this is not a diff"),
}


def test_reward_hacking_probes_score_below_the_oracle(tmp_path):
    from sv_env_config_verification.baselines import tool_oracle

    honest = served(lambda r: tool_oracle(r.last_user_text()), tmp_path / "honest")
    for name, probe in PROBES.items():
        result = served(lambda r, probe=probe: probe(r.last_user_text()), tmp_path / name)
        assert result.summary["reward_mean"] < honest.summary["reward_mean"] - 0.3, name
        assert result.summary["metrics"]["patch_success_rate"] == 0.0, name


def test_tool_calling_rollout_through_verifiers(tmp_path):
    """A scripted model calls run_checkov and run_opa, then answers from their findings."""

    def policy(request: ChatRequest) -> str | ToolCallReply:
        tool_turns = [m for m in request.messages if m.get("role") == "tool"]
        name = parse_rendered_config(request.last_user_text())[0]
        if not tool_turns:
            return ToolCallReply([("run_checkov", {"file": name}), ("run_opa", {"file": name})])
        ids = set()
        for turn in tool_turns:
            for finding in json.loads(turn["content"]).get("findings", []):
                if finding["canonical_id"]:
                    ids.add(finding["canonical_id"])
        return answer(sorted(ids))

    result = served(policy, tmp_path, n=6, include_tools=True)
    rows = [json.loads(x) for x in (result.run_dir / "results.jsonl").read_text().splitlines()]
    assert all(r["error"] is None for r in rows)
    assert all(r["metrics"]["total_tool_calls"] == 2 for r in rows)
    assert result.summary["metrics"]["tool_calls_mean"] == 2.0
    meta = json.loads((result.run_dir / "metadata.json").read_text())
    assert set(meta["tool_versions"]) >= {"opa", "checkov", "semgrep"}
    assert result.summary["metrics"]["detection_recall"] > 0.5
