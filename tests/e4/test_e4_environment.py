"""E4 end to end: the environment, the rubric on probes, and the harness with the baselines."""

from __future__ import annotations

import asyncio
import json

import pytest

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from sv_env_phishing_detection import load_environment
from sv_env_phishing_detection.baselines import heuristic
from sv_env_phishing_detection.indicators import CATALOGUE
from sv_env_phishing_detection.reward import TriageWeights, default_payoffs
from sv_env_phishing_detection.scoring import score_answer
from sv_env_phishing_detection.sources import SourceError


@pytest.fixture(scope="module")
def env():
    return load_environment(split="test", max_examples=60, seed=3)


def mean_reward(env, policy) -> float:
    weights = TriageWeights().as_dict()
    parser, payoffs = env.parser, default_payoffs()
    catalogue = frozenset(CATALOGUE)
    totals = []
    for row in env.eval_dataset:
        reply = policy(row["question"], row["info"])
        parts = score_answer(reply, row["answer"], row["info"], parser, payoffs, catalogue)
        totals.append(sum(weights[k] * parts[k] for k in weights))
    return sum(totals) / len(totals)


def answer(label, confidence=1.0, evidence=()):
    return json.dumps({"label": label, "confidence": confidence, "evidence": list(evidence)})


def test_rows_carry_what_scoring_needs(env):
    row = env.eval_dataset[0]
    assert row["answer"] in ("Phishing", "Legitimate")
    assert row["info"]["text"] == row["question"]
    assert isinstance(row["info"]["indicators"], list)
    assert env.sv_reward_config["weights"] == TriageWeights().as_dict()
    assert {"label", "confidence", "evidence"} <= set(env.sv_answer_schema["properties"])


def test_probes_score_far_below_the_heuristic(env):
    best = mean_reward(env, lambda q, info: heuristic(q))
    probes = {
        "always phishing": lambda q, info: answer("Phishing"),
        "always legitimate": lambda q, info: answer("Legitimate"),
        "always abstain": lambda q, info: answer("Abstain", 0.5),
        "copy the email as evidence": lambda q, info: answer("Phishing", 0.9, [q]),
        "invented indicators": lambda q, info: answer(
            "Phishing", 0.9, ["spf_fail", "dkim_fail", "dmarc_fail", "risky_attachment"]),
    }  # fmt: skip
    assert best > 0.8  # v2 adds link-less lures (romance, "are you free?") no indicator sees
    for name, policy in probes.items():
        assert mean_reward(env, policy) < best - 0.4, name
    for name in ("always phishing", "always legitimate", "always abstain", "invented indicators"):
        assert mean_reward(env, probes[name]) < 0.35, name


def test_spamming_indicators_loses_to_citing_the_ones_present(env):
    spam = list(CATALOGUE)[:12]
    honest = mean_reward(env, lambda q, info: answer(info["gold"], 0.9, info["indicators"][:12]))
    silent = mean_reward(env, lambda q, info: answer(info["gold"], 0.9))
    spamming = mean_reward(env, lambda q, info: answer(info["gold"], 0.9, spam))
    assert spamming < silent < honest
    assert honest - spamming > 0.3


def test_harness_runs_the_baselines(tmp_path, no_api_keys):
    config = EvalConfig(env="e4", models=["heuristic", "always-legitimate"], n=30,
                        output_root=tmp_path, max_concurrent=4)  # fmt: skip
    runs = asyncio.run(evaluate(config))
    summaries = {r.spec.name: json.loads((r.run_dir / "summary.json").read_text()) for r in runs}
    good, naive = summaries["heuristic"], summaries["always-legitimate"]
    assert good["reward_mean"] > naive["reward_mean"] + 0.8
    assert good["metrics"]["evidence_precision"] == 1.0
    assert naive["metrics"]["fnr"] == 1.0 and naive["metrics"]["evidence_precision"] is None
    assert good["metrics"]["risk_coverage"][-1][0] <= 1.0


def test_bad_source_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match=r"^sv-env-phishing-detection: source: .*\(got 'gmail'\)"):
        load_environment(source="gmail")
    with pytest.raises(SourceError, match="needs path"):
        load_environment(source="mbox", label="Phishing")
    with pytest.raises(SourceError, match="has no 'train' split"):
        load_environment(source="csv", path=str(tmp_path), split="train")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    with pytest.raises(SourceError, match=r"bad\.jsonl:1"):
        load_environment(source="jsonl", path=str(bad))


def test_tool_env_offers_lookup_url():
    tool_env = load_environment(split="test", max_examples=2, include_tools=True)
    assert list(tool_env.tool_map) == ["lookup_url"]
    report = json.loads(tool_env.tool_map["lookup_url"]("http://paypa1.com@198.51.100.7/login"))
    assert "ip_url" in json.dumps(report)
