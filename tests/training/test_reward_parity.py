"""GRPO rewards are the evaluation's rewards: same rollout code, same rubric, same weights."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.training.envs import LoopThread, load_training_env, row_key
from security_verifiers.training.rewards import EnvScorer, RewardBridge, reward_components

pytestmark = pytest.mark.usefixtures("no_api_keys")

WEIGHTS = {"decision": 1.0, "calibration": 0.5, "format": 0.25, "accuracy": 0.1}
COMPLETIONS = [
    '{"label": "Benign", "confidence": 0.7, "rationale": "web"}',
    '{"label": "Malicious", "confidence": 0.95}',
    '{"label": "Abstain", "confidence": 0.5}',
    "I think this is malicious.",
    '```json\n{"label": "benign", "confidence": 1.2}\n```',
    "",
]


def call(bridge: RewardBridge, rows: list[dict], keys: list[str], texts: list[str]):
    completions = [[{"role": "assistant", "content": t}] for t in texts]
    sv_row = [json.dumps(r) for r in rows]
    per_func = [
        f(prompts=[r["prompt"] for r in rows], completions=completions, sv_env=keys, sv_row=sv_row)
        for f in bridge.funcs
    ]
    return per_func, bridge.total(per_func)


@pytest.fixture(scope="module")
def e1_bridge():
    env = load_training_env("e1", {"split": "train"}, reward_weights=WEIGHTS)
    return env, RewardBridge({"e1": EnvScorer(env, LoopThread())})


def test_weights_come_from_the_config(e1_bridge) -> None:
    env, bridge = e1_bridge
    assert dict(reward_components(env.env.rubric)) == WEIGHTS
    assert bridge.weight_table() == {"e1": WEIGHTS}
    assert [f.__name__ for f in bridge.funcs] == [f"e1/{n}" for n in WEIGHTS]


def test_grpo_reward_equals_the_rubric_score(e1_bridge) -> None:
    env, bridge = e1_bridge
    rows = env.rows[: len(COMPLETIONS)]
    per_func, totals = call(bridge, rows, ["e1"] * len(rows), COMPLETIONS)
    for row, text, total, parts in zip(
        rows, COMPLETIONS, totals, zip(*per_func, strict=True), strict=True
    ):
        state = {"prompt": row["prompt"], "completion": [{"role": "assistant", "content": text}],
                 "answer": row["answer"], "info": row["info"], "input": row}  # fmt: skip
        asyncio.run(env.env.rubric.score_rollout(state))
        assert total == pytest.approx(state["reward"], abs=1e-12)
        assert dict(zip(WEIGHTS, parts, strict=True)) == {k: state["metrics"][k] for k in WEIGHTS}
    assert totals[3] < 0 and totals[5] < 0  # unparseable answers pay the invalid payoff


def test_grpo_reward_equals_what_sv_eval_recorded(e1_bridge, tmp_path: Path) -> None:
    env, bridge = e1_bridge
    config = EvalConfig(env="e1", models=["heuristic", "random"], n=10, output_root=tmp_path,
                        env_args={"split": "train", "reward_weights": WEIGHTS},
                        show_progress=False)  # fmt: skip
    with open("/dev/null", "w") as sink:
        runs = asyncio.run(evaluate(config, Console(file=sink)))
    by_key = {row_key(r): r for r in env.rows}
    for run in runs:
        results = [
            json.loads(line) for line in (run.run_dir / "results.jsonl").read_text().splitlines()
        ]
        rows = [by_key[r["example_key"]] for r in results]
        _, totals = call(bridge, rows, ["e1"] * len(rows), [r["completion"] for r in results])
        assert totals == pytest.approx([r["reward"] for r in results], abs=1e-12)


def test_mixed_batches_score_each_row_with_its_own_env(e1_bridge) -> None:
    e1, _ = e1_bridge
    e4 = load_training_env("e4", {"split": "train"}, max_examples=4)
    bridge = RewardBridge({"e1": EnvScorer(e1, LoopThread()), "e4": EnvScorer(e4, LoopThread())})
    rows = [e1.rows[0], e4.rows[0], e1.rows[1], e4.rows[1]]
    keys = ["e1", "e4", "e1", "e4"]
    texts = [
        '{"label": "Benign", "confidence": 0.8}',
        '{"label": "Phishing", "confidence": 0.8, "evidence": []}',
        "nonsense",
        '{"label": "Legitimate", "confidence": 0.6}',
    ]
    per_func, totals = call(bridge, rows, keys, texts)
    for func, values in zip(bridge.funcs, per_func, strict=True):
        owner = func.__name__.split("/")[0]
        assert all((v is None) == (k != owner) for v, k in zip(values, keys, strict=True))
    for i, (row, key, text) in enumerate(zip(rows, keys, texts, strict=True)):
        scorer = bridge.scorers[key]
        [expected] = scorer.score([row], [text])
        assert totals[i] == pytest.approx(expected["reward"], abs=1e-12)
    e1_funcs, e1_weights = bridge.for_envs(["e1"])
    assert all(f.__name__.startswith("e1/") for f in e1_funcs) and len(e1_weights) == 4
