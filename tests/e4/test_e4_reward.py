"""E4 reward: evidence verification and the components, on hand-made emails (pure functions)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sv_env_phishing_detection.answer import TriageParser, classify_item
from sv_env_phishing_detection.evidence import check_evidence, evidence_score
from sv_env_phishing_detection.indicators import CATALOGUE
from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.reward import TriageWeights, default_payoffs, triage_components

EMAIL = normalize_text(
    "From: PayPal Security <alert@paypa1-secure.com>\nSubject: Account suspended\n\n"
    "Dear customer, your account has been SUSPENDED. Verify your password within 24 hours "
    "at http://paypa1-secure.com/login or it will be closed permanently."
)
FIRED = {"brand_lookalike", "credential_request", "urgency_language"}
KNOWN = frozenset(CATALOGUE)
PARSER = TriageParser()
PAYOFFS = default_payoffs()


def score(reply: dict, gold: str = "Phishing") -> dict:
    result = PARSER.parse(json.dumps(reply))
    return triage_components(result, gold, EMAIL, FIRED, KNOWN, PAYOFFS)


DEFAULT_WEIGHTS = TriageWeights()


def total(parts: dict, weights: TriageWeights = DEFAULT_WEIGHTS) -> float:
    return sum(w * parts[name] for name, w in weights.as_dict().items())


def test_quotes_and_indicators_are_verified():
    checks = check_evidence(
        ["Verify your PASSWORD within 24 hours", "brand_lookalike", {"indicator": "spf_fail"},
         "indicator:credential_request", {"quote": "closed permanently"}],
        EMAIL, FIRED, KNOWN,
    )  # fmt: skip
    assert [c.verified for c in checks] == [True, True, False, True, True]
    assert "not present" in checks[2].reason


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ("made-up words that are not there", "not found"),
        ("short", "shorter"),
        (EMAIL, "too long"),
        ("indicator:totally_invented", "not an indicator"),
    ],
)
def test_unverifiable_evidence_is_rejected(item, reason):
    (check,) = check_evidence([item], EMAIL, FIRED, KNOWN)
    assert not check.verified and reason in check.reason


def test_repeats_and_chopped_email_do_not_pay():
    checks = check_evidence(["brand_lookalike", "brand_lookalike"], EMAIL, FIRED, KNOWN)
    assert [c.verified for c in checks] == [True, False]
    words = EMAIL.split(" ")
    chunks = [" ".join(words[i : i + 5]) for i in range(0, len(words), 5)]
    chopped = check_evidence(chunks, EMAIL, FIRED, KNOWN)
    assert sum(c.verified for c in chopped) / len(chopped) < 0.7


def test_evidence_score_gates_credit_on_a_correct_call():
    checks = check_evidence(["brand_lookalike", "nonexistent quote here"], EMAIL, FIRED, KNOWN)
    assert evidence_score(checks, label="Phishing", gold="Phishing") == -0.5
    assert evidence_score(checks, label="Phishing", gold="Legitimate") == -1.0
    assert evidence_score(checks[:1], label="Abstain", gold="Phishing") == 0.0
    assert evidence_score([], label="Phishing", gold="Phishing") == 0.0


def test_good_answer_beats_every_probe():
    good = {"label": "Phishing", "confidence": 0.9,
            "evidence": ["brand_lookalike", "verify your password within 24 hours"]}  # fmt: skip
    best = total(score(good))
    probes = {
        "whole email as evidence": {"label": "Phishing", "confidence": 0.9, "evidence": [EMAIL]},
        "invented indicators": {"label": "Phishing", "confidence": 0.9,
                                "evidence": ["spf_fail", "dkim_fail", "risky_attachment"]},
        "abstain": {"label": "Abstain", "confidence": 0.5, "evidence": []},
        "missed phish": {"label": "Legitimate", "confidence": 1.0, "evidence": []},
        "overconfident wrong with true quotes": {"label": "Legitimate", "confidence": 1.0,
                                                 "evidence": ["dear customer, your account"]},
    }  # fmt: skip
    for name, reply in probes.items():
        assert total(score(reply)) < best - 0.3, name
    assert total(score(probes["whole email as evidence"])) < 1.0
    assert total(score(probes["missed phish"])) < -1.5


def test_false_alarm_costs_less_than_a_missed_phish():
    false_alarm = score({"label": "Phishing", "confidence": 1.0, "evidence": []}, "Legitimate")
    missed = score({"label": "Legitimate", "confidence": 1.0, "evidence": []}, "Phishing")
    assert missed["decision"] < false_alarm["decision"] < 0


def test_invalid_answers_earn_nothing():
    result = PARSER.parse("I think it's phishing")
    parts = triage_components(result, "Phishing", EMAIL, FIRED, KNOWN, PAYOFFS)
    assert parts["format"] == 0 and parts["evidence"] == 0 and parts["decision"] < 0
    too_many = {"label": "Phishing", "confidence": 0.9, "evidence": ["brand_lookalike"] * 40}
    assert not PARSER.parse(json.dumps(too_many)).ok


def test_catalogue_ids_are_recognised_as_indicators():
    for name in CATALOGUE:
        assert classify_item(name, KNOWN).kind == "indicator"
        assert classify_item(name.upper(), KNOWN).kind == "indicator"
    assert classify_item("urgent wire transfer", KNOWN).kind == "quote"


@given(
    st.lists(st.one_of(st.text(max_size=60), st.sampled_from(sorted(KNOWN))), max_size=12),
    st.sampled_from(["Phishing", "Legitimate", "Abstain"]),
    st.sampled_from(["Phishing", "Legitimate"]),
)
def test_evidence_score_is_bounded_and_zero_mean_for_truth_blind_citations(items, label, gold):
    checks = check_evidence(items, EMAIL, FIRED, KNOWN)
    value = evidence_score(checks, label=label, gold=gold, fired=len(FIRED))
    assert -1.0 <= value <= 0.0
    if label != "Legitimate":
        on_phish = evidence_score(checks, label=label, gold="Phishing", fired=len(FIRED))
        bare = evidence_score([], label=label, gold="Phishing", fired=len(FIRED))
        on_legit = evidence_score(checks, label=label, gold="Legitimate", fired=len(FIRED))
        assert (on_phish - bare) + on_legit <= 1e-9


def test_weights_reject_unknown_names():
    with pytest.raises(ValueError, match="unknown reward weight"):
        TriageWeights.from_mapping({"evidnce": 1.0})
