"""Label-balanced SFT batches: every window holds the labels in the data's proportions."""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise

from security_verifiers.training.batching import answer_label, label_balanced_order
from security_verifiers.training.config import SFTTrain
from security_verifiers.training.sft import sampling_strategy


def example(label: str, i: int) -> dict:
    answer = json.dumps({"label": label, "confidence": 0.9})
    return {
        "prompt": [{"role": "user", "content": f"flow {i}"}],
        "completion": [{"role": "assistant", "content": answer}],
    }


def test_batches_hold_the_data_proportions():
    examples = [example("Benign", i) for i in range(60)] + [
        example("Malicious", i) for i in range(40)
    ]
    ordered = label_balanced_order(examples, seed=1)
    assert sorted(map(id, ordered)) == sorted(map(id, examples))  # a permutation
    for start in range(0, 100, 10):
        counts = Counter(answer_label(e) for e in ordered[start : start + 10])
        assert counts == {"Benign": 6, "Malicious": 4}


def test_minority_labels_are_spread_not_bunched():
    examples = [example("Benign", i) for i in range(97)] + [example("Abstain", i) for i in range(3)]
    positions = [
        i for i, e in enumerate(label_balanced_order(examples, 0)) if answer_label(e) == "Abstain"
    ]
    assert len(positions) == 3 and min(b - a for a, b in pairwise(positions)) > 20


def test_order_is_seeded_and_shuffled_within_labels():
    examples = [example("Benign", i) for i in range(20)] + [
        example("Malicious", i) for i in range(20)
    ]
    first = [e["prompt"][0]["content"] for e in label_balanced_order(examples, 7)]
    again = [e["prompt"][0]["content"] for e in label_balanced_order(examples, 7)]
    other = [e["prompt"][0]["content"] for e in label_balanced_order(examples, 8)]
    assert first == again and first != other


def test_answers_without_a_label_form_their_own_group():
    plain = {"prompt": [], "completion": [{"role": "assistant", "content": "def fix(): ..."}]}
    assert answer_label(plain) is None
    assert len(label_balanced_order([plain, example("Benign", 0)], 0)) == 2


def test_balanced_batches_are_read_in_order():
    assert sampling_strategy(SFTTrain(label_balanced=True)) == "sequential"
    assert sampling_strategy(SFTTrain()) == "group_by_length"
    assert sampling_strategy(SFTTrain(group_by_length=False)) == "random"


def test_equal_shares_by_a_key_other_than_the_answer_label() -> None:
    examples = [{"gold": "Phishing", "i": i} for i in range(30)]
    examples += [{"gold": "Legitimate", "i": i} for i in range(90)]
    ordered = label_balanced_order(examples, 3, key=lambda e: e["gold"], equal_shares=True)
    first = [e["gold"] for e in ordered[:32]]
    assert first.count("Phishing") == 16  # equal shares while both labels last
    assert sorted(e["i"] for e in ordered if e["gold"] == "Phishing") == list(range(30))
    assert len(ordered) == 120
