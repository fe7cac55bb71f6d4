"""`expert_iteration.confidence: group`: a kept answer states its group's share of its label."""

from __future__ import annotations

import json

from security_verifiers.training.expert import group_confidences, with_confidence


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
