"""The learned E1 baseline: fit on the synthetic train split only, answers with the decision
of best expected payoff, and is exposed as the `learned` model."""

from __future__ import annotations

import json

import pytest

from sv_env_network_logs.baselines import baseline_policies
from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.learned import decide, default_model
from sv_env_network_logs.prompts import render_flow


@pytest.mark.parametrize(
    ("p", "label"),
    [(0.9, "Malicious"), (0.51, "Malicious"), (0.45, "Abstain"), (0.34, "Abstain"),
     (0.3, "Benign"), (0.01, "Benign")],
)  # fmt: skip
def test_decision_follows_the_payoffs(p: float, label: str):
    """A missed attack costs 2, a false alarm 1: Malicious above 1/2, Benign below 1/3."""
    assert decide(p)[0] == label


def test_the_baseline_beats_the_constants_on_dev():
    items, _ = load_flows("synthetic", split="dev")
    probs = default_model().proba(items)
    pairs = zip(probs, items, strict=True)
    right = sum((p > 0.5) == (item.label == "Malicious") for p, item in pairs)
    assert right / len(items) > 0.8


def test_learned_is_a_baseline_model_and_reads_only_the_prompt():
    policy = baseline_policies()["learned"]
    item = load_flows("synthetic", split="test")[0][0]
    reply = json.loads(policy(render_flow(item.flow), 0))
    assert reply["label"] in ("Benign", "Malicious", "Abstain")
    assert 0.0 <= reply["confidence"] <= 1.0
    assert json.loads(policy("no flow here", 0))["label"] == "Abstain"
