"""`expert_iteration.confidence: group`: a kept answer states its group's share of its label."""

from __future__ import annotations

import json

from security_verifiers.training.expert import (
    group_confidences,
    label_agreement,
    labels_differ,
    rewrite_group_confidences,
    stated_confidence,
    with_confidence,
)


def answer(label: str, confidence: float = 0.9) -> str:
    return json.dumps({"label": label, "confidence": confidence, "rationale": "r"})


def test_group_confidence_is_the_share_of_the_label_clipped_and_rounded():
    texts = [answer("Malicious")] * 5 + [answer("Benign")] * 2 + ["not json"]
    shares = group_confidences(texts, cap=0.95)
    assert shares[:5] == [0.62] * 5  # 5/8 = 0.625 (unparsed answers count in the group)
    assert shares[5:7] == [0.5] * 2  # 2/8 clipped up: a stated label is at least a coin flip
    assert shares[7] is None
    assert group_confidences([answer("Benign")] * 4, cap=0.95) == [0.95] * 4
    assert group_confidences([json.dumps([1, 2]), json.dumps({"x": 1})], cap=0.9) == [None, None]


def test_with_confidence_rewrites_only_the_confidence_field():
    text = '{"label": "Phishing", "confidence": 0.9, "evidence": ["caf\u00e9 link"]}'
    rewritten = with_confidence(text, 0.62)
    assert json.loads(rewritten) == {"label": "Phishing", "confidence": 0.62,
                                     "evidence": ["caf\u00e9 link"]}  # fmt: skip
    assert list(json.loads(rewritten)) == ["label", "confidence", "evidence"]
    assert "caf\u00e9" in rewritten  # the model's own characters, not \\u escapes
    for untouched in ("```json\n{}\n```", '{"label": "Phishing"}', "[0.9]"):
        assert with_confidence(untouched, 0.5) == untouched


def test_label_agreement_counts_each_answers_label_in_its_group():
    texts = [answer("Malicious")] * 3 + [answer("Benign"), "not json"]
    assert label_agreement(texts) == [3, 3, 3, 1, None]


def test_labels_differ_only_between_labelled_answers():
    assert labels_differ([answer("Malicious"), answer("Benign")])
    assert not labels_differ([answer("Malicious")] * 3 + ["not json", json.dumps({"x": 1})])
    assert not labels_differ([])


def test_a_prior_shrinks_the_share_toward_the_pooled_share():
    assert stated_confidence(8, 8, cap=0.95) == 0.95
    assert stated_confidence(8, 8, cap=0.95, prior=8, pooled=0.7) == 0.85  # (8 + 5.6) / 16
    assert stated_confidence(4, 8, cap=0.95, prior=8, pooled=0.7) == 0.6  # (4 + 5.6) / 16
    assert stated_confidence(1, 8, cap=0.95, prior=8, pooled=0.7) == 0.5  # clipped up
    assert stated_confidence(3, 4, cap=0.95, prior=0, pooled=0.1) == 0.75  # no prior: raw


def kept_item(label: str, agreement: tuple[int, int] | None) -> dict:
    item = {"prompt": [], "completion": [{"role": "assistant", "content": answer(label)}],
            "gold": label}  # fmt: skip
    if agreement:
        item["agreement"] = agreement
    return item


def test_rewrite_pools_the_round_and_removes_the_bookkeeping():
    kept = [kept_item("Malicious", (8, 8)), kept_item("Benign", (4, 8)),
            kept_item("Benign", None)]  # fmt: skip
    rewrite_group_confidences(kept, cap=0.95, prior=8)
    stated = [json.loads(item["completion"][0]["content"])["confidence"] for item in kept]
    # pooled share (8 + 4) / 16 = 0.75: (8 + 6) / 16 = 0.875 -> 0.88, (4 + 6) / 16 = 0.625 -> 0.62
    assert stated == [0.88, 0.62, 0.9]
    assert all("agreement" not in item for item in kept)
    raw = [kept_item("Malicious", (6, 8))]
    rewrite_group_confidences(raw, cap=0.95, prior=0)
    assert json.loads(raw[0]["completion"][0]["content"])["confidence"] == 0.75
