"""Checking evidence against the email: present in it, and supporting the call.

Presence. Quotes are compared after `normalize_text` on both sides. A quote must be long
enough to mean something and short enough not to be the email itself; quotes together may not
cover more than half of the email; a repeated item counts as unverified (padding is not
evidence). An indicator id is verified when the extractor fires it on the email.

Relevance. An item *supports* the indicators it confirms: a verified indicator id supports
itself; a verified quote supports each indicator that fires on the email AND that the
extractor's own rules find inside the quote (`quote_indicators`): a flagged link or domain,
a sender/Reply-To/Return-Path line of a mismatch, a failing authentication result, a
credential/urgency/payment request phrase, a risky attachment name, the From line of a spoofed
display name. Header boilerplate (To:, Date:, an ordinary Subject:), dates and arbitrary
fragments support nothing.

Score (`evidence_score`, in [-1, 0]), with ``precision`` = supporting items / items and
``support = coverage * precision``, ``coverage = min(1, covered indicators /
min(fired, COVERAGE_TARGET))`` (naming or quoting up to three confirmed indicators is full
coverage). ``cost`` is ``1 - precision`` (every unsupported item costs its share, so padding
and stuffing cannot pay), except that a Legitimate call needs no evidence and pays only for
unverifiable items (a quote not in the email, an indicator that does not fire).

* A Phishing call on a phishing email with confirmed indicators scores ``support - 1``: the
  call is only fully paid with its evidence, and each right citation takes back its share of
  the shortfall. Where nothing is confirmed there is nothing to cite: ``-cost``.
* An Abstain or Legitimate answer on a phishing email earns nothing back and pays ``cost``.
* On an email that is not phishing, any answer pays ``support + cost`` (at most 1): citing
  confirmed indicators there loses exactly what the same citations gain on a phishing email.

Evidence can only lower a call's payoff, never raise it above the decision's own: a constant
Phishing answer citing everything the extractor confirms earns at most what the bare constant
earns on phishing mail and less on the rest, so no label-blind policy can buy its way past
abstaining with citations, and for one email and one evidence list the gain if it is phishing
equals the loss if it is not (zero-mean for citations that ignore the truth). No evidence on
an email that is not phishing scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from .answer import EvidenceItem, classify_item
from .indicators import (
    AUTH_RESULT,
    CREDENTIAL,
    FORM,
    PAYMENT,
    SENDER_FLAGS,
    URGENCY,
    WEB_ADDRESS,
    fold_text,
    risky_attachment_reason,
)
from .normalize import normalize_text
from .records import LEGITIMATE, PHISHING
from .urls import analyze_url, domain_flags

MIN_QUOTE_CHARS = 8
MAX_QUOTE_CHARS = 240
MAX_QUOTE_SHARE = 0.3
"""A single quote may cover at most this share of the (normalised) email."""
MAX_TOTAL_QUOTE_SHARE = 0.5
"""All verified quotes together may cover at most this share of the email."""
COVERAGE_TARGET = 3
"""Confirmed indicators a correct Phishing call must support for full evidence credit."""

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.I)
_DOMAIN = re.compile(r"\b(?:[\w-]+\.)+(?:[a-z]{2,24}|xn--[a-z0-9-]+)\b", re.I)
_ADDRESS = re.compile(r"[\w.+-]+@((?:[\w-]+\.)+[\w-]+)")
_FILENAME = re.compile(r"(?<![/\w.])[\w-]+(?:\.[\w-]+)+")
_RECEIVED_SPF_FAIL = re.compile(r"received-spf:\s*(?:fail|softfail)\b")
_LINK_LINE = re.compile(r"\S.* -> \S")
_URL_FLAGS = frozenset(
    {"ip_url", "brand_lookalike", "punycode_domain", "url_shortener", "risky_tld",
     "at_sign_url", "excessive_subdomains"}
)  # fmt: skip


@dataclass(frozen=True)
class EvidenceCheck:
    item: EvidenceItem
    verified: bool
    reason: str
    supports: frozenset[str] = field(default_factory=frozenset)
    """Confirmed indicators this item evidences (empty: it supports no call)."""


def quote_indicators(quote: str) -> set[str]:
    """Indicators whose evidence the extractor's rules find inside one quote."""
    folded = fold_text(quote)
    found: set[str] = set()
    for url in _URL.findall(quote):
        found.update(flag for flag in analyze_url(url).flags if flag in _URL_FLAGS)
    for domain in _DOMAIN.findall(WEB_ADDRESS.sub(" ", quote)):
        found.update(flag for flag in analyze_url(domain).flags if flag in _URL_FLAGS)
    for domain in _ADDRESS.findall(quote):
        found.update(flag for flag in domain_flags(domain)[0] if flag in SENDER_FLAGS)
    words = WEB_ADDRESS.sub("link", folded)
    for indicator, pattern in (
        ("credential_request", CREDENTIAL),
        ("urgency_language", URGENCY),
        ("payment_request", PAYMENT),
    ):
        if pattern.search(words):
            found.add(indicator)
    found.update(name for name, pattern in AUTH_RESULT.items() if pattern.search(folded))
    if _RECEIVED_SPF_FAIL.search(folded):
        found.add("spf_fail")
    if any(risky_attachment_reason(name) for name in _FILENAME.findall(quote)):
        found.add("risky_attachment")
    if FORM.search(quote):
        found.add("html_form")
    has_address = bool(_ADDRESS.search(quote))
    if has_address and "reply-to:" in folded:
        found.add("reply_to_mismatch")
    if has_address and "return-path:" in folded:
        found.add("return_path_mismatch")
    if "from:" in folded:
        found.add("display_name_spoof")
    if _LINK_LINE.search(quote) and _URL.search(quote):
        found.add("link_text_mismatch")
    return found


def _check_quote(quote: str, email: str, quoted_so_far: int) -> tuple[bool, str]:
    if len(quote) < MIN_QUOTE_CHARS:
        return False, f"quote shorter than {MIN_QUOTE_CHARS} characters"
    if len(quote) > MAX_QUOTE_CHARS or len(quote) > MAX_QUOTE_SHARE * len(email):
        return False, "quote too long: copying the email is not evidence"
    if quote not in email:
        return False, "quote not found in the email"
    if quoted_so_far + len(quote) > MAX_TOTAL_QUOTE_SHARE * len(email):
        return False, "quotes cover too much of the email"
    return True, "quote found in the email"


def _indicator_check(
    item: EvidenceItem, known: frozenset[str], fired: Collection[str]
) -> EvidenceCheck:
    if item.value not in known:
        return EvidenceCheck(item, False, "not an indicator of the catalogue")
    if item.value in fired:
        return EvidenceCheck(
            item, True, "indicator confirmed on the email", frozenset([item.value])
        )
    return EvidenceCheck(item, False, "indicator not present in the email")


def check_evidence(
    raw_items: Sequence[object],
    email_text: str,
    fired: Collection[str],
    catalogue: Collection[str],
) -> list[EvidenceCheck]:
    """Verify every evidence entry of one answer against one email (pure, deterministic)."""
    known = frozenset(catalogue)
    confirmed = frozenset(fired)
    email = normalize_text(email_text)
    seen: set[tuple[str, str]] = set()
    quoted = 0
    checks: list[EvidenceCheck] = []
    for raw in raw_items:
        item = classify_item(raw, known)
        value = item.value if item.kind == "indicator" else normalize_text(item.value)
        if (item.kind, value) in seen:
            checks.append(EvidenceCheck(item, False, "repeated evidence"))
            continue
        seen.add((item.kind, value))
        if item.kind == "indicator":
            checks.append(_indicator_check(item, known, confirmed))
            continue
        verified, reason = _check_quote(value, email, quoted)
        quoted += len(value) if verified else 0
        supports = frozenset(quote_indicators(value) & confirmed) if verified else frozenset()
        if verified and not supports:
            reason = "quote found in the email but shows no confirmed indicator"
        checks.append(EvidenceCheck(item, verified, reason, supports))
    return checks


def evidence_score(
    checks: Sequence[EvidenceCheck],
    *,
    label: str,
    gold: str,
    fired: int | None = None,
) -> float:
    """Evidence score in [-1, 0] of an answer ``label`` on an email whose truth is ``gold``
    (see the module docstring).

    ``fired`` is the number of indicators confirmed on the email (default: as many as the
    answer supports).
    """
    covered = frozenset().union(*(check.supports for check in checks)) if checks else frozenset()
    precision = sum(bool(check.supports) for check in checks) / len(checks) if checks else 1.0
    needed = min(len(covered) if fired is None else fired, COVERAGE_TARGET)
    support = min(1.0, len(covered) / needed) * precision if needed else 0.0
    if label == LEGITIMATE:
        cost = sum(not check.verified for check in checks) / len(checks) if checks else 0.0
    else:
        cost = 1.0 - precision
    if gold == PHISHING:
        if label == PHISHING and needed:
            return support - 1.0
        return -cost
    return max(-1.0, -support - cost)
