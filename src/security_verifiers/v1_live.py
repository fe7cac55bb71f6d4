"""Live check of the verifiers v1 plugin: one model server, two harnesses, the same scores.

A built-in policy is served over the OpenAI protocol on 127.0.0.1 (`serving.PolicyServer`);
classic `sv eval` and verifiers 0.4's `vf-eval` (the `security-verifiers-v1` taskset, its
chat harness `null` in the subprocess runtime) both evaluate it on the same items, and every
item's reward and reward components must agree. With `--tools` the environment runs in tool
mode and the served policy calls the environment's tool once before answering (E4:
`lookup_url` on the email's first link), so the v1 tool server answers a live model. E5's
target (`--target`, a defender baseline) is served too, and both harnesses attack it.

    python -m security_verifiers.v1_live --env e4 -n 4 [--tools]   (make v1-live)

Needs the v1 venv (`make test-v1` builds it). v1's chat harness is a script that `uv`
installs its dependencies for on first use (from the package index, then its cache).
Exit 0: the harnesses agree; 1: they disagree or a rollout failed; 2: a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from security_verifiers.environments import (
    baseline_policies,
    default_env,
    entries_with,
    resolve_env,
)
from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest, ToolCallReply
from security_verifiers.serving import PolicyServer, serve_in_thread

REPO = Path(__file__).resolve().parents[2]
TASKSET_ID = "security-verifiers-v1"
MODEL_ID = "sv-live-policy"
TARGET_ID = "sv-live-target"
API_KEY_VAR = "SV_LIVE_API_KEY"
SEED = 42
TOLERANCE = 1e-9
FirstToolCall = Callable[[str], tuple[str, dict[str, Any]] | None]


def scripted_tool_caller(first_call: FirstToolCall, answer: ChatPolicy) -> ChatPolicy:
    """Tool mode: make the environment's scripted tool call (its spec's `tool_policy`), then
    answer as `answer` does (prompts it makes no call for are answered at once)."""

    def policy(chat: ChatRequest) -> str | ToolCallReply:
        if not any(message.get("role") == "tool" for message in chat.messages):
            call = first_call(chat.last_user_text())
            if call is not None:
                return ToolCallReply(calls=[call])
        return answer(chat)

    return policy


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=None,
                        help="environment (any name `sv envs` lists; default: the first with a "
                        "scripted tool policy)")  # fmt: skip
    parser.add_argument("--policy", default="heuristic", help="built-in model to serve")
    parser.add_argument("--target", default="guarded",
                        help="E5: the built-in model attacked (E6 baselines too)")  # fmt: skip
    parser.add_argument("-n", "--num-examples", type=int, default=4)
    parser.add_argument("--tools", action="store_true", help="tool mode (include_tools=true)")
    parser.add_argument("--vf-eval", type=Path, default=REPO / ".venv-v1" / "bin" / "vf-eval",
                        help="verifiers 0.4's vf-eval (default: the v1 venv's)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="keep both runs here")
    args = parser.parse_args(argv)
    args.env = args.env or default_env("tool_policy")
    if args.num_examples < 1:
        parser.error(f"-n {args.num_examples}: expected a whole number >= 1")
    return args


def seedless(policy: ChatPolicy) -> ChatPolicy:
    """`policy` without the request's `seed`: `sv eval` sends one per item and v1 none, and
    seeded baselines (E5's attack frames) would otherwise answer the two runs differently."""
    return lambda chat: policy(replace(chat, seed=None))


def served_policy(env: str, policy: str, tools: bool) -> ChatPolicy:
    entry = resolve_env(env)
    policies = baseline_policies(entry)
    if policy not in policies:
        raise UserError(f"--policy {policy}: not a built-in model of {env}; "
                        f"available: {', '.join(policies)}")  # fmt: skip
    if not tools:
        return seedless(policies[policy])
    first_call = entry.hook("tool_policy")
    if first_call is None:
        have = ", ".join(e.key for e in entries_with("tool_policy")) or "none"
        raise UserError(f"--tools: no scripted tool caller for {env} (have: {have})")
    return scripted_tool_caller(first_call, seedless(policies[policy]))


def target_policy(env: str, name: str) -> ChatPolicy | None:
    """The opponent to serve for an environment that attacks one (E5), else None."""
    entry = resolve_env(env)
    if entry.spec.default_target is None:
        return None
    policies = dict(baseline_policies(entry))
    if entry.spec.opponent:
        policies.update(baseline_policies(resolve_env(entry.spec.opponent)))
    if name not in policies:
        raise UserError(f"--target {name}: not a built-in model; available: "
                        f"{', '.join(policies)}")  # fmt: skip
    return seedless(policies[name])


def run(command: list[str], env: Mapping[str, str] | None = None) -> None:
    done = subprocess.run(command, cwd=REPO, env={**os.environ, **(env or {})},
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"{Path(command[0]).name} failed (exit {done.returncode}):\n{tail}")


def classic_scores(root: Path) -> dict[str, dict[str, Any]]:
    """Item key -> reward, components and tool calls of a `sv eval` run under `root`."""
    (path,) = root.rglob("results.jsonl")
    scores = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        error = row.get("error") or row.get("model_error")
        scores[row["example_key"]] = {"reward": row["reward"], "components": row["rewards"],
                                      "error": error}  # fmt: skip
    return scores


def v1_scores(root: Path) -> dict[str, dict[str, Any]]:
    """Item key -> reward, components and errors of a `vf-eval` run under `root`."""
    (path,) = root.rglob("traces.jsonl")
    scores = {}
    for line in path.read_text().splitlines():
        rollout = json.loads(line)
        (trace,) = rollout["traces"]
        reward = (trace.get("rewards") or {}).get("reward") or {}
        scores[rollout["task"]["data"]["id"]] = {
            "reward": reward.get("score"),
            "components": trace.get("metrics") or {},
            "error": rollout.get("errors") or None,
            "tools": [tool["name"] for tool in trace.get("tools") or []],
        }
    return scores


def tool_turns(bodies: list[dict[str, Any]]) -> int:
    """Requests that carried a tool result back to the model."""
    return sum(any(m.get("role") == "tool" for m in body.get("messages") or []) for body in bodies)


def compare(classic: dict[str, dict], v1: dict[str, dict]) -> list[str]:
    """One line per disagreement (an empty list: the runs agree)."""
    problems = []
    if set(classic) != set(v1):
        problems.append(f"items differ: classic only {sorted(set(classic) - set(v1))}, "
                        f"v1 only {sorted(set(v1) - set(classic))}")  # fmt: skip
    for key in sorted(set(classic) & set(v1)):
        a, b = classic[key], v1[key]
        for name, side in (("classic", a), ("v1", b)):
            if side["error"]:
                problems.append(f"{key}: {name} rollout failed: {side['error']}")
        if a["reward"] is None or b["reward"] is None:
            continue
        if abs(a["reward"] - b["reward"]) > TOLERANCE:
            problems.append(f"{key}: reward classic {a['reward']} != v1 {b['reward']}")
        for component, value in a["components"].items():
            other = b["components"].get(component)
            if other is None or abs(float(value) - float(other)) > TOLERANCE:
                problems.append(f"{key}: {component} classic {value} != v1 {other}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        policy = served_policy(args.env, args.policy, args.tools)
        target = target_policy(args.env, args.target)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.vf_eval.is_file():
        print(f"error: --vf-eval {args.vf_eval}: not found (run `make test-v1` to build the "
              "v1 venv)", file=sys.stderr)  # fmt: skip
        return 2
    env_args: dict[str, Any] = {"include_tools": True} if args.tools else {}
    sv = str(Path(sys.executable).with_name("sv"))
    env_arg_flags = [part for k, v in env_args.items() for part in ("--env-arg", f"{k}={v}")]
    out = args.out or Path(tempfile.mkdtemp(prefix="sv-v1-live-"))
    server = PolicyServer(policy, MODEL_ID, record_bodies=True)
    with ExitStack() as stack:
        url = stack.enter_context(serve_in_thread(server))
        classic_flags = [*env_arg_flags]
        if target is not None:  # E5: both harnesses attack the same served target
            target_url = stack.enter_context(serve_in_thread(PolicyServer(target, TARGET_ID)))
            classic_flags += ["--target", f"{TARGET_ID}@{target_url}"]
            env_args |= {"target_base_url": target_url, "target_model": TARGET_ID,
                         "target_api_key_env": API_KEY_VAR}  # fmt: skip
        run([sv, "eval", args.env, "--models", f"{MODEL_ID}@{url}", "-n", str(args.num_examples),
             "--seed", str(SEED), "--quiet", "--no-cache", "--fresh",
             "--output-dir", str(out / "classic"), *classic_flags])  # fmt: skip
        classic_bodies = list(server.stats.seen_bodies)
        path = f"{args.vf_eval.parent}{os.pathsep}{os.environ.get('PATH', '')}"
        run([str(args.vf_eval), TASKSET_ID, "--env.taskset.env", args.env,
             "--env.taskset.env-args", json.dumps({"max_examples": args.num_examples,
                                                   "seed": SEED, **env_args}),
             "--env.agent.runtime.type", "subprocess", "-m", MODEL_ID,
             "--client.base-url", url, "--client.api-key-var", API_KEY_VAR,
             "-n", str(args.num_examples), "-c", "2", "--no-push", "-o", str(out / "v1")],
            env={API_KEY_VAR: "local", "PATH": path})  # fmt: skip
        v1_bodies = server.stats.seen_bodies[len(classic_bodies) :]
    classic, v1 = classic_scores(out / "classic"), v1_scores(out / "v1")
    print(f"{'item':<40} {'classic':>9} {'v1':>9}")
    for key in sorted(set(classic) | set(v1)):
        a, b = classic.get(key, {}).get("reward"), v1.get(key, {}).get("reward")
        print(f"{key:<40} {a if a is None else round(a, 4)!s:>9} "
              f"{b if b is None else round(b, 4)!s:>9}")  # fmt: skip
    problems = compare(classic, v1)
    if args.tools:
        tools = sorted({name for item in v1.values() for name in item["tools"]})
        turns = (tool_turns(classic_bodies), tool_turns(v1_bodies))
        print(f"tool mode: v1 offered {tools}; tool results sent back: classic {turns[0]}, "
              f"v1 {turns[1]}")  # fmt: skip
        if turns[0] != turns[1] or turns[1] == 0:
            problems.append(f"tool results sent back: classic {turns[0]}, v1 {turns[1]}")
    print(f"runs kept in {out}")
    for line in problems:
        print(f"MISMATCH {line}", file=sys.stderr)
    print("agree" if not problems else f"{len(problems)} disagreements")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
