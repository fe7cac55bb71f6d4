"""The weighted-indicator heuristic baseline."""

from __future__ import annotations

import pytest

from sv_env_phishing_detection.heuristic import (
    INDICATOR_WEIGHTS,
    LEGITIMATE_AT,
    PHISHING_AT,
    heuristic_answer,
    indicator_score,
    label_for_score,
)
from sv_env_phishing_detection.indicators import CATALOGUE
from sv_env_phishing_detection.message import build_message, parse_message

PHISH = """From: "PayPal" <service@paypa1-security.com>
To: bob@example.org
Reply-To: help.desk@gmail.com
Subject: Urgent: your account will be suspended
Authentication-Results: mx.example.org; spf=fail; dkim=fail; dmarc=fail
Content-Type: text/html; charset=utf-8

<p>Please verify your account within 24 hours.</p>
<a href="http://203.0.113.9/login">https://www.paypal.com/signin</a>
"""

LEGIT = """From: Example Shop <orders@shop.example.com>
To: bob@example.org
Subject: Your receipt
Authentication-Results: mx.example.org; spf=pass; dkim=pass; dmarc=pass
Content-Type: text/plain; charset=utf-8

Payment received - thank you! Order 1234 ships Monday: https://shop.example.com/orders/1234
"""


def test_every_catalogue_id_has_a_positive_weight():
    assert set(INDICATOR_WEIGHTS) == set(CATALOGUE)
    assert all(weight > 0 for weight in INDICATOR_WEIGHTS.values())


def test_indicator_score_sums_weights_and_ignores_unknown_ids():
    found = {"ip_url": ["x"], "return_path_mismatch": ["y"], "not_an_indicator": ["z"]}
    assert indicator_score(found) == INDICATOR_WEIGHTS["ip_url"] + 0.3
    assert indicator_score({}) == 0.0


@pytest.mark.parametrize(
    ("score", "label"),
    [(0.0, "Legitimate"), (LEGITIMATE_AT, "Legitimate"), (1.5, "Abstain"),
     (PHISHING_AT, "Phishing"), (12.0, "Phishing")],
)  # fmt: skip
def test_label_bands(score, label):
    assert label_for_score(score)[0] == label


def test_confidence_grows_away_from_the_band():
    assert label_for_score(8.0)[1] > label_for_score(2.5)[1] > 0.5
    assert label_for_score(0.0)[1] > label_for_score(0.8)[1] > 0.5
    assert label_for_score(1.5)[1] == 0.5
    assert max(label_for_score(100.0)[1], label_for_score(0.0)[1]) <= 0.97


def test_textbook_phishing():
    answer = heuristic_answer(parse_message(PHISH))
    assert answer["label"] == "Phishing" and answer["confidence"] >= 0.9
    assert {"brand_lookalike", "ip_url", "reply_to_mismatch", "dmarc_fail"} <= set(
        answer["evidence"]
    )
    weights = [INDICATOR_WEIGHTS[e] for e in answer["evidence"]]
    assert weights == sorted(weights, reverse=True)


def test_ordinary_receipt_is_legitimate_without_evidence():
    answer = heuristic_answer(parse_message(LEGIT))
    assert answer == {"label": "Legitimate", "confidence": 0.9, "evidence": []}


def test_receipt_disclaimer_and_tracking_line_are_not_requests():
    raw = build_message(
        subject="Your receipt",
        body=(
            "Thanks for your payment of $20.00.\nIf you did not authorize this charge, "
            "contact us.\nConfirm address: https://login.shop.example.com/orders/1234"
        ),
        sender="Example Shop <orders@shop.example.com>",
    )
    assert heuristic_answer(parse_message(raw)) == {
        "label": "Legitimate", "confidence": 0.9, "evidence": [],
    }  # fmt: skip


def test_single_weak_signal_is_not_phishing():
    raw = build_message(
        subject="Your password was changed",
        body="If this wasn't you, act now: your account will be locked.",
        sender="Example <security@example.com>",
    )
    answer = heuristic_answer(parse_message(raw))
    assert answer["label"] == "Legitimate" and answer["evidence"] == ["urgency_language"]


def test_weak_signals_together_abstain():
    raw = build_message(
        subject="Invoice",
        body="Please pay the outstanding invoice.",
        sender="Accounts <ap@vendor.example>",
    )
    assert heuristic_answer(parse_message(raw))["label"] == "Abstain"
