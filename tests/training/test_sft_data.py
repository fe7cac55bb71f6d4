"""SFT examples: verified gold answers, reference answers, and rejection-sampled rollouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.training.config import RolloutSource, SFTData
from security_verifiers.training.envs import LoopThread, load_training_env, row_key
from security_verifiers.training.rewards import EnvScorer
from security_verifiers.training.sft_data import build_sft_examples
from sv_env_network_logs.reward import LABELS
from sv_shared.parsers import JsonClassificationParser


@pytest.fixture(scope="module")
def e1_train():
    env = load_training_env("e1", {"split": "train"}, max_examples=40)
    return env, EnvScorer(env, LoopThread())


def test_gold_answers_use_the_answer_format_and_are_verified(e1_train) -> None:
    env, scorer = e1_train
    examples, summary = build_sft_examples(SFTData(max_examples=12), env, scorer)
    assert summary["n_examples"] == 12 and summary["by_source"] == {"gold": 12}
    assert len(summary["sha256"]) == 64
    parser = JsonClassificationParser(allowed_labels=LABELS)
    gold = {row_key(r): r["answer"] for r in env.rows}
    for item in examples:
        assert item["prompt"][0]["role"] == "system" and item["prompt"][-1]["role"] == "user"
        [message] = item["completion"]
        answer = json.loads(message["content"])
        assert parser.parse_completion(item["completion"]).ok
        assert answer["label"] == gold[item["key"]] and answer["confidence"] == 0.9
        assert answer["rationale"]


def test_examples_below_min_reward_are_rejected(e1_train) -> None:
    env, scorer = e1_train
    with pytest.raises(UserError, match="no SFT examples"):
        build_sft_examples(SFTData(min_reward=5.0), env, scorer)


def test_reference_policy_answers_are_kept_only_when_they_score(e1_train) -> None:
    env, scorer = e1_train
    data = SFTData(gold=False, reference_policy="always-benign", min_reward=1.0)
    examples, summary = build_sft_examples(data, env, scorer)
    gold = {row_key(r): r["answer"] for r in env.rows}
    assert examples and all(gold[e["key"]] == "Benign" for e in examples)
    assert summary["filtered"]["reference_rejected"] == sum(
        1 for v in gold.values() if v != "Benign"
    )


def test_rollouts_are_filtered_by_reward_and_training_split(e1_train, tmp_path: Path) -> None:
    env, scorer = e1_train
    keys = [row_key(r) for r in env.rows[:3]]
    rows = [
        {
            "example_key": keys[0],
            "completion": '{"label": "Benign", "confidence": 1}',
            "reward": 1.3,
        },
        {
            "example_key": keys[0],
            "completion": '{"label": "Benign", "confidence": 1}',
            "reward": 1.3,
        },
        {"example_key": keys[1], "completion": "no idea", "reward": -2.0},
        {"example_key": "syn-test-only-key", "completion": "{}", "reward": 1.3},
        {"example_key": keys[2], "completion": "x", "reward": 1.2, "error": "boom"},
    ]
    run = tmp_path / "run1"
    run.mkdir()
    (run / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    data = SFTData(
        gold=False, rollouts=[RolloutSource(path=str(tmp_path / "run*"), min_reward=1.0)]
    )
    examples, summary = build_sft_examples(data, env, scorer)
    assert [e["key"] for e in examples] == [keys[0]]  # duplicates removed
    assert examples[0]["source"] == "rollout"
    assert summary["filtered"] == {
        "rollouts_seen": 5,
        "rollouts_below_threshold": 2,
        "rollouts_not_in_train": 1,
    }


def test_missing_rollout_files_and_unsupported_env(e1_train, tmp_path: Path) -> None:
    env, scorer = e1_train
    data = SFTData(gold=False, rollouts=[RolloutSource(path=str(tmp_path / "nothing"))])
    with pytest.raises(UserError, match=r"no results\.jsonl"):
        build_sft_examples(data, env, scorer)
    e6 = load_training_env("e6", {}, max_examples=2)
    with pytest.raises(UserError, match="reference_policy"):
        build_sft_examples(SFTData(env="e6"), e6, EnvScorer(e6, LoopThread()))


def test_gold_evidence_orders_indicators_by_name_or_by_frequency() -> None:
    from collections import Counter

    from sv_env_phishing_detection.sft import gold_evidence, indicator_counts

    rows = [
        {"answer": "Phishing", "info": {"indicators": ["b_flag", "urgency"]}},
        {"answer": "Phishing", "info": {"indicators": ["urgency", "a_flag", "urgency"]}},
        {"answer": "Legitimate", "info": {"indicators": ["a_flag", "a_flag"]}},
    ]
    counts = indicator_counts(rows)
    assert counts == Counter({"urgency": 2, "b_flag": 1, "a_flag": 1})  # phishing rows, once each
    row = {"info": {"indicators": ["b_flag", "urgency", "a_flag"]}}
    assert gold_evidence(row, SFTData(), counts) == ["a_flag", "b_flag", "urgency"]
    frequency = SFTData(evidence_order="frequency", evidence_max=2)
    assert gold_evidence(row, frequency, counts) == ["urgency", "a_flag"]  # ties by name


def test_e4_gold_answers_name_the_most_frequent_indicators_first() -> None:
    env = load_training_env("e4", {"split": "train", "prompt_style": "compact"}, max_examples=60)
    data = SFTData(env="e4", rationale=False, evidence_order="frequency", evidence_max=3,
                   max_examples=60, min_reward=-10.0)  # fmt: skip
    examples, _ = build_sft_examples(data, env, EnvScorer(env, LoopThread()))
    from sv_env_phishing_detection.sft import indicator_counts

    counts = indicator_counts(env.rows)
    firsts = []
    for item in examples:
        answer = json.loads(item["completion"][0]["content"])
        evidence = answer["evidence"]
        assert len(evidence) <= 3 and (answer["label"] == "Phishing" or evidence == [])
        ranks = [counts[name] for name in evidence]
        assert ranks == sorted(ranks, reverse=True)
        firsts += evidence[:1]
    assert firsts  # some phishing answers name indicators
