"""E4 evidence must support the call: a quote earns credit only when it shows an indicator the
extractor confirms; boilerplate, fragments and padding earn nothing."""

from __future__ import annotations

import pytest

from sv_env_phishing_detection.evidence import check_evidence, evidence_score, quote_indicators
from sv_env_phishing_detection.indicators import CATALOGUE, extract_indicators
from sv_env_phishing_detection.rendered import parse_rendered_email

EMAIL = (
    "From: microsoft service <support@confirm-recovery-parcel.work>\n"
    "To: hannah foster <hannahf@terra.com.br>\n"
    "Subject: unusual sign-in activity on your microsoft account\n"
    "Date: tue, 22 oct 2024 19:36:11 +0000\n"
    "Links:\n"
    "[1] https://login.parcel-microsoft.cf/login.php\n"
    "[2] https://www.microsoft.com/help\n"
    "Attachments:\n"
    "- shared_file.htm (text/html, 200 bytes)\n\n"
    "dear hannah foster, we detected a sign-in attempt on your microsoft account from manila. "
    "https://login.parcel-microsoft.cf/login.php if this was not you, verify your identity and "
    "confirm your password within 24 hours. otherwise your account will be suspended."
)
FIRED = frozenset(extract_indicators(parse_rendered_email(EMAIL)))
KNOWN = frozenset(CATALOGUE)


def score(items: list[object], label: str = "Phishing", gold: str = "Phishing") -> float:
    checks = check_evidence(items, EMAIL, FIRED, KNOWN)
    return evidence_score(checks, label=label, gold=gold, fired=len(FIRED))


def test_the_fixture_fires_several_indicators():
    assert {"credential_request", "risky_attachment", "risky_tld"} <= FIRED


@pytest.mark.parametrize(
    ("quote", "indicator"),
    [
        ("https://login.parcel-microsoft.cf/login.php", "risky_tld"),
        ("verify your identity and confirm your password", "credential_request"),
        ("shared_file.htm", "risky_attachment"),
        ("support@confirm-recovery-parcel.work", "risky_tld"),
    ],
)
def test_quotes_of_confirmed_indicators_support_them(quote: str, indicator: str):
    (check,) = check_evidence([quote], EMAIL, FIRED, KNOWN)
    assert check.verified and indicator in check.supports


@pytest.mark.parametrize(
    "quote",
    [
        "Date: tue, 22 oct 2024 19:36:11 +0000",
        "To: hannah foster <hannahf@terra.com.br>",
        "https://www.microsoft.com/help",
        "dear hannah foster, we detected",
    ],
)
def test_present_but_irrelevant_quotes_support_nothing(quote: str):
    (check,) = check_evidence([quote], EMAIL, FIRED, KNOWN)
    assert check.verified and not check.supports
    assert score([quote]) == -1.0


def test_confirmed_indicators_earn_full_credit():
    assert score([]) == -1.0
    assert score(sorted(FIRED)) == 0.0
    assert score(["credential_request", "risky_attachment", "risky_tld"]) == 0.0
    quotes = ["confirm your password within 24 hours", "shared_file.htm", "parcel-microsoft.cf"]
    assert score(quotes) == 0.0


def test_padding_and_stuffing_do_not_pay():
    real = ["credential_request", "risky_attachment", "risky_tld"]
    fragments = [EMAIL[i : i + 12] for i in range(0, 12 * 9, 12)]
    assert score(real + fragments) < score(real) - 0.5
    assert score(sorted(KNOWN)[:12]) < -0.5
    assert score(["credential_request"]) < score(real)


def test_no_credit_without_a_correct_phishing_call():
    assert score(["credential_request"], label="Abstain") == 0.0
    assert score(["Date: tue, 22 oct 2024"], label="Abstain") == -1.0
    assert score(["credential_request"], label="Legitimate") == 0.0
    assert score([], gold="Legitimate") == 0.0


REAL = ["credential_request", "risky_attachment", "risky_tld"]


@pytest.mark.parametrize("label", ["Phishing", "Abstain", "Legitimate"])
def test_citing_on_a_mail_that_is_not_phishing_loses_what_a_right_citation_gains(label: str):
    for items in (REAL, REAL[:1], ["confirm your password within 24 hours", "shared_file.htm"]):
        gain = score(items) - score([])
        assert gain > 0
        assert score(items, label=label, gold="Legitimate") == pytest.approx(-gain)


def test_evidence_is_zero_mean_for_citations_that_ignore_the_truth():
    """Whatever a policy cites, if it cites the same whatever the truth, its evidence on a
    balanced pair of emails (one phishing, one not) sums to at most zero."""
    lists = [REAL, REAL[:2], sorted(FIRED), sorted(KNOWN)[:6], ["Date: tue, 22 oct 2024"],
             [*REAL, "a quote that is not there"]]  # fmt: skip
    for items in lists:
        for label in ("Phishing", "Abstain"):
            gain = score(items, label=label) - score([], label=label)
            assert gain + score(items, label=label, gold="Legitimate") <= 1e-9


def test_a_legitimate_call_needs_no_evidence_and_cannot_earn_any():
    assert score(["Date: tue, 22 oct 2024"], label="Legitimate", gold="Legitimate") == 0.0
    assert score(["a quote that is not there"], label="Legitimate", gold="Legitimate") == -1.0
    assert score(["credential_request"], label="Legitimate", gold="Legitimate") < 0.0


def test_quote_indicators_ignore_plain_text():
    assert quote_indicators("tue, 22 oct 2024 19:36:11 +0000") == set()
