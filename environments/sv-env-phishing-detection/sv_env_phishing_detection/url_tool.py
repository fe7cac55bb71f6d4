"""The model-facing `lookup_url` tool (for verifiers' ToolEnv): static URL analysis as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from .url_signals import risk_score, url_signals
from .urls import UrlReport, analyze_url, load_reputation

MAX_URL_LENGTH = 4096
SUSPICIOUS_SCORE = 0.5
"""A neutral URL whose soft signals reach this risk score is reported as suspicious."""


class ToolReport(UrlReport):
    """`UrlReport` plus the soft signals and the combined risk score in [0, 1]."""

    signals: list[str]
    risk_score: float


def tool_report(url: str, reputation: Mapping[str, str] | None = None) -> ToolReport:
    """Analyse one URL (flags, soft signals, risk score); raises on unusable input."""
    report = analyze_url(url, reputation)
    found = url_signals(url, report) if report.host else []
    names = [name for name, _ in found]
    score = risk_score(report, names)
    verdict = report.verdict
    if verdict == "neutral" and score >= SUSPICIOUS_SCORE:
        verdict = "suspicious"
    fields = report.model_dump() | {"verdict": verdict}
    fields["reasons"] = [*report.reasons, *(reason for _, reason in found)]
    return ToolReport(**fields, signals=names, risk_score=score)


def _lookup(url: object, reputation: Mapping[str, str] | None) -> str:
    if not isinstance(url, str) or not url.strip():
        return json.dumps({"error": "expected a non-empty URL string"})
    if len(url) > MAX_URL_LENGTH:
        return json.dumps({"error": f"URL longer than {MAX_URL_LENGTH} characters"})
    try:
        report = tool_report(url.strip(), reputation)
    except Exception as exc:  # the tool must answer, whatever the model sends
        return json.dumps({"error": f"could not analyse this URL ({type(exc).__name__})"})
    if not report.host:
        return json.dumps({"url": report.url, "error": "no host could be read from this URL"})
    return report.model_dump_json(exclude_none=True)


def lookup_url(url: str) -> str:
    """Analyse a URL offline; the URL is never visited, fetched or resolved.

    Returns compact JSON: `host`, `registered_domain`, `flags` (indicator ids among
    brand_lookalike, ip_url, punycode_domain, url_shortener, risky_tld, at_sign_url,
    excessive_subdomains, plus known_bad/known_good from a reputation list), `signals` (softer
    signs such as credential_path, brand_in_path, email_in_url, free_hosting), `risk_score`
    (0 to 1), `brand` (the brand the domain belongs to or imitates), `reasons`, and `verdict`
    (suspicious, neutral, known-good or known-bad); or `{"error": ...}` when the input is not
    a usable URL.

    Args:
        url: the link to check, e.g. "https://paypa1-login.com/verify" or "bit.ly/x".
    """
    return _lookup(url, None)


def make_lookup_url(reputation_path: str | None = None) -> Callable[[str], str]:
    """`lookup_url`, optionally consulting a `domain_or_url,verdict` reputation file.

    The file is read once, here (a malformed file raises `urls.ReputationError`).
    """
    if not reputation_path:
        return lookup_url
    reputation = load_reputation(reputation_path)

    def bound_lookup_url(url: str) -> str:
        return _lookup(url, reputation)

    bound_lookup_url.__name__ = "lookup_url"
    bound_lookup_url.__qualname__ = "lookup_url"
    bound_lookup_url.__doc__ = lookup_url.__doc__
    return bound_lookup_url
