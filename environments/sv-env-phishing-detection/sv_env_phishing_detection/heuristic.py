"""The `heuristic` baseline: a weighted sum of catalogue indicators, abstaining when unsure.

`INDICATOR_WEIGHTS` encodes general anti-phishing knowledge, not a fit to any data set:
deception that honest senders have no reason to use (look-alike domains, `@` URLs, IP hosts,
password forms, executable attachments, spoofed display names) weighs 2.0-2.5; signals that
legitimate mail also shows now and then (urgency, shorteners, failed SPF/DKIM from
misconfigured small senders, a different bounce domain) weigh 0.3-1.2. A total of at least
`PHISHING_AT` is Phishing, at most `LEGITIMATE_AT` is Legitimate, in between Abstain.
"""

from __future__ import annotations

from collections.abc import Mapping

from .indicators import extract_indicators
from .records import ABSTAIN, LEGITIMATE, PHISHING
from .view import EmailView

INDICATOR_WEIGHTS: dict[str, float] = {
    "brand_lookalike": 2.5,
    "at_sign_url": 2.0,
    "ip_url": 2.0,
    "html_form": 2.0,
    "risky_attachment": 2.0,
    "display_name_spoof": 2.0,
    "link_text_mismatch": 1.5,
    "punycode_domain": 1.5,
    "zero_width_chars": 1.5,
    "dmarc_fail": 1.5,
    "credential_request": 1.5,
    "payment_request": 1.2,
    "reply_to_mismatch": 1.0,
    "urgency_language": 1.0,
    "risky_tld": 1.0,
    "excessive_subdomains": 1.0,
    "url_shortener": 0.8,
    "spf_fail": 0.8,
    "dkim_fail": 0.8,
    "return_path_mismatch": 0.3,
}
"""Indicator id -> weight (every catalogue id has one)."""

PHISHING_AT = 2.0
LEGITIMATE_AT = 1.0
ABSTAIN_CONFIDENCE = 0.5


def indicator_score(found: Mapping[str, list[str]]) -> float:
    """Sum of `INDICATOR_WEIGHTS` over the indicators that fired (unknown ids count 0)."""
    return round(sum(INDICATOR_WEIGHTS.get(indicator, 0.0) for indicator in found), 3)


def label_for_score(score: float) -> tuple[str, float]:
    """(label, confidence): confidence grows with the distance from the uncertain band."""
    if score >= PHISHING_AT:
        return PHISHING, round(min(0.97, 0.65 + 0.08 * (score - PHISHING_AT)), 3)
    if score <= LEGITIMATE_AT:
        return LEGITIMATE, round(min(0.9, 0.9 - 0.25 * score), 3)
    return ABSTAIN, ABSTAIN_CONFIDENCE


def heuristic_answer(view: EmailView) -> dict:
    """The baseline's answer: label, confidence and the fired indicator ids as evidence
    (strongest first)."""
    found = extract_indicators(view)
    label, confidence = label_for_score(indicator_score(found))
    evidence = sorted(found, key=lambda indicator: -INDICATOR_WEIGHTS.get(indicator, 0.0))
    return {"label": label, "confidence": confidence, "evidence": evidence}
