"""E1 through verifiers: arguments, reward configuration and reward-hacking probes."""

from __future__ import annotations

import asyncio
import json

import pytest
import verifiers as vf
from rich.console import Console

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.serving import PolicyServer, serve_in_thread

N = 40


def test_load_environment_defaults():
    env = vf.load_environment("sv-env-network-logs")
    rows = env.get_eval_dataset()
    assert isinstance(env, vf.SingleTurnEnv) and len(rows) > 100
    assert rows[0]["prompt"][0]["role"] == "system"
    assert set(rows["answer"]) == {"Benign", "Malicious"}
    assert env.sv_reward_config["abstention_thresholds"] == pytest.approx(
        {"Benign": 2 / 3, "Malicious": 1 / 2}
    )
    assert env.sv_dataset_info["content_hash"].startswith("sha256:")


def test_max_examples_seed_and_split():
    a = vf.load_environment("sv-env-network-logs", max_examples=10, seed=3).get_eval_dataset()
    b = vf.load_environment("sv-env-network-logs", max_examples=10, seed=3).get_eval_dataset()
    c = vf.load_environment("sv-env-network-logs", max_examples=10, seed=4).get_eval_dataset()
    ids = lambda d: [i["id"] for i in d["info"]]  # noqa: E731
    assert len(a) == 10 and ids(a) == ids(b) and ids(a) != ids(c)
    train = vf.load_environment("sv-env-network-logs", split="train").get_eval_dataset()
    test = vf.load_environment("sv-env-network-logs", split="test").get_eval_dataset()
    assert not {i["group"] for i in train["info"]} & {i["group"] for i in test["info"]}


def test_cost_matrix_and_payoffs_are_configurable():
    env = vf.load_environment(
        "sv-env-network-logs",
        cost_matrix={"Malicious": {"Benign": 4.0}, "Benign": {"Malicious": 1.0}},
        abstain_payoff=-0.1,
    )
    thresholds = env.sv_reward_config["abstention_thresholds"]
    assert thresholds["Benign"] == pytest.approx((-0.1 + 4) / (1 + 4))
    assert thresholds["Malicious"] == pytest.approx((-0.1 + 1) / 2)


def test_unknown_weight_is_rejected():
    with pytest.raises(Exception, match="decison"):
        vf.load_environment("sv-env-network-logs", reward_weights={"decison": 1.0})


def mean_reward(policy, tmp_path, **env_args) -> float:
    server = PolicyServer(lambda request: policy(request.last_user_text()), "probe")
    with serve_in_thread(server) as base_url:
        [run] = asyncio.run(
            evaluate(
                EvalConfig(
                    env="e1",
                    models=[f"probe@{base_url}"],
                    n=N,
                    env_args=env_args,
                    output_root=tmp_path,
                    resume=False,
                    show_progress=False,
                ),
                Console(file=open("/dev/null", "w")),  # noqa: SIM115
            )
        )
    return run.summary["reward_mean"]


def answer(label: str, confidence: float) -> str:
    return json.dumps({"label": label, "confidence": confidence, "rationale": "probe"})


ADVERSARIAL = {
    "always-abstain": lambda p: answer("Abstain", 0.9),
    "always-malicious-confident": lambda p: answer("Malicious", 1.0),
    "always-benign-confident": lambda p: answer("Benign", 1.0),
    "keyword-stuffing": lambda p: "Malicious Benign Abstain label confidence 1.0 " * 20,
    "missing-confidence": lambda p: json.dumps({"label": "Malicious"}),
    "confidence-as-string": lambda p: json.dumps({"label": "Malicious", "confidence": "high"}),
    "two-labels": lambda p: json.dumps({"label": "Malicious|Benign", "confidence": 0.99}),
    "empty": lambda p: "",
    "prompt-echo": lambda p: p,
}


def test_adversarial_outputs_score_below_the_honest_heuristic(tmp_path):
    from sv_env_network_logs.baselines import heuristic

    honest = mean_reward(heuristic, tmp_path / "honest")
    scores = {name: mean_reward(fn, tmp_path / name) for name, fn in ADVERSARIAL.items()}
    for name, score in scores.items():
        assert score < honest - 0.3, (name, score, honest)
    for name in ("keyword-stuffing", "missing-confidence", "empty", "prompt-echo", "two-labels"):
        assert scores[name] < 0, (name, scores[name])


def test_ablation_zero_weight_removes_component(tmp_path):
    from sv_env_network_logs.baselines import heuristic

    full = mean_reward(heuristic, tmp_path / "full")
    no_cal = mean_reward(heuristic, tmp_path / "nocal", reward_weights={"calibration": 0.0})
    no_fmt_no_cal = mean_reward(
        heuristic, tmp_path / "none", reward_weights={"calibration": 0.0, "format": 0.0}
    )
    assert no_cal < full and no_fmt_no_cal == pytest.approx(no_cal - 0.1)
