"""Checking evidence against the email: quotes must occur in it, indicators must fire on it.

Quotes are compared after `normalize_text` on both sides. A quote must be long enough to mean
something and short enough not to be the email itself; quotes together may not cover more
than half of the email; a repeated item counts as unverified (padding is not evidence).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .answer import EvidenceItem, classify_item
from .normalize import normalize_text

MIN_QUOTE_CHARS = 8
MAX_QUOTE_CHARS = 240
MAX_QUOTE_SHARE = 0.3
"""A single quote may cover at most this share of the (normalised) email."""
MAX_TOTAL_QUOTE_SHARE = 0.5
"""All verified quotes together may cover at most this share of the email."""


@dataclass(frozen=True)
class EvidenceCheck:
    item: EvidenceItem
    verified: bool
    reason: str


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


def check_evidence(
    raw_items: Sequence[object],
    email_text: str,
    fired: Collection[str],
    catalogue: Collection[str],
) -> list[EvidenceCheck]:
    """Verify every evidence entry of one answer against one email (pure, deterministic)."""
    known = frozenset(catalogue)
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
            if value not in known:
                checks.append(EvidenceCheck(item, False, "not an indicator of the catalogue"))
            elif value in fired:
                checks.append(EvidenceCheck(item, True, "indicator confirmed on the email"))
            else:
                checks.append(EvidenceCheck(item, False, "indicator not present in the email"))
            continue
        verified, reason = _check_quote(value, email, quoted)
        quoted += len(value) if verified else 0
        checks.append(EvidenceCheck(item, verified, reason))
    return checks


def evidence_score(checks: Sequence[EvidenceCheck], correct: bool | None) -> float:
    """Faithfulness in [-1, 1]: verified share (only when the call is right) minus unverified share.

    Verified evidence earns credit only behind a correct label, so citing true but irrelevant
    spans cannot pay for a wrong call; unverifiable evidence always costs, abstentions and
    legitimate emails included. No evidence scores 0.
    """
    if not checks:
        return 0.0
    verified = sum(check.verified for check in checks)
    unverified = len(checks) - verified
    credit = verified / len(checks) if correct else 0.0
    return credit - unverified / len(checks)
