"""Weaker URL-shape signals and a combined risk score for the `lookup_url` tool.

`urls.analyze_url` raises the catalogue flags (strong, shared with the email indicators);
this module adds the softer evidence phishing URLs tend to carry (credential words in the path
of an unrelated site, a brand name in the path, the victim's e-mail in the query, ...) and
folds flags and signals into one score with a noisy-or: `1 - prod(1 - weight)`.

The weights are fixed a priori from how specific each sign is to phishing in general; they
are not fitted to any data set. Everything is read from the URL text alone.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .brands import BRAND_DOMAINS
from .urls import UrlReport, registered_domain, split_url

FLAG_WEIGHTS: dict[str, float] = {
    "ip_url": 0.6,
    "brand_lookalike": 0.6,
    "at_sign_url": 0.5,
    "punycode_domain": 0.4,
    "excessive_subdomains": 0.4,
    "risky_tld": 0.35,
    "url_shortener": 0.3,
}
"""Catalogue flags from `analyze_url` and how much each raises the risk."""

SIGNAL_WEIGHTS: dict[str, float] = {
    "brand_in_path": 0.4,
    "credential_path": 0.35,
    "email_in_url": 0.35,
    "free_hosting": 0.3,
    "embedded_url": 0.2,
    "many_hyphens": 0.2,
    "http_credentials": 0.2,
    "deep_subdomains": 0.15,
    "digits_in_host": 0.15,
    "nonstandard_port": 0.15,
    "long_url": 0.1,
}
"""Soft signals from this module and how much each raises the risk."""

CREDENTIAL_WORDS = frozenset(
    {
        *("login", "logon", "signin", "sign-in", "log-in", "verify", "verification"),
        *("account", "accounts", "myaccount", "password", "passwd", "credential", "confirm"),
        *("unlock", "suspend", "suspended", "restore", "validate", "authenticate", "auth"),
        *("webscr", "banking", "secure", "security", "update", "billing", "wallet", "recovery"),
    }
)
"""Path/query words of credential-harvesting pages."""

FREE_HOSTING = frozenset(
    {
        *("github.io", "gitlab.io", "blogspot.com", "herokuapp.com", "appspot.com", "web.app"),
        *("firebaseapp.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev", "r2.dev"),
        *("azurewebsites.net", "000webhostapp.com", "weebly.com", "glitch.me", "wixsite.com"),
        *("repl.co", "ngrok.io", "ngrok-free.app", "duckdns.org", "ddns.net", "godaddysites.com"),
        *("trycloudflare.com", "firebasestorage.app", "myshopify.com", "webflow.io"),
    }
)
"""Suffixes where anyone gets a subdomain for free (github.io, 000webhostapp.com, ...)."""

LONG_URL = 100
WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
"""An MD5-or-longer hex run: the per-victim session ids phishing kits put in their links."""


def _tokens(text: str) -> set[str]:
    words = set(WORD.findall(text.lower()))
    return words | {part for word in words for part in word.split("-")}


def url_signals(url: str, report: UrlReport) -> list[tuple[str, str]]:
    """(signal, reason) pairs for the soft signs of phishing in a URL's text."""
    parts = split_url(url)
    host, domain, official = report.host, report.registered_domain, report.verdict
    found: list[tuple[str, str]] = []
    rest = unquote(parts.rest)
    words = _tokens(rest)
    unrelated = official != "known-good" and "ip_url" not in report.flags
    credentials = sorted(words & CREDENTIAL_WORDS)
    if credentials and official != "known-good":
        found.append(("credential_path", f"credential words {credentials} on {domain}"))
        if parts.scheme == "http":
            found.append(("http_credentials", "credential page served without TLS (http)"))
    brands = sorted(words & set(BRAND_DOMAINS))
    if brands and unrelated and not report.brand:
        found.append(("brand_in_path", f"brand {brands} named in the path of {domain}"))
    if EMAIL.search(rest):
        found.append(("email_in_url", "an e-mail address is carried in the URL"))
    if re.search(r"(?:https?:/|www\.)", rest, re.IGNORECASE):
        found.append(("embedded_url", "another URL is embedded in the path or query"))
    if "ip_url" not in report.flags:
        found += _host_signals(host, domain)
    if parts.port and parts.port not in ("80", "443"):
        found.append(("nonstandard_port", f"explicit port {parts.port}"))
    if len(url) >= LONG_URL:
        found.append(("long_url", f"{len(url)} characters long"))
    return found


def _host_signals(host: str, domain: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if any(host == s or host.endswith("." + s) for s in FREE_HOSTING):
        found.append(("free_hosting", f"{domain} is on a free hosting service"))
    extra = len(host.split(".")) - len(domain.split("."))
    if extra == 3 or (extra == 2 and not host.startswith("www.")):
        found.append(("deep_subdomains", f"{extra} labels before {domain}"))
    if host.count("-") >= 3:
        found.append(("many_hyphens", f"{host.count('-')} hyphens in the host"))
    if sum(ch.isdigit() for ch in registered_domain(host).split(".")[0]) >= 4:
        found.append(("digits_in_host", f"many digits in {domain}"))
    return found


def risk_score(report: UrlReport, signals: list[str]) -> float:
    """Noisy-or of flag and signal weights in [0, 1]; reputation verdicts are final."""
    if report.verdict == "known-bad":
        return 1.0
    if report.verdict == "known-good" and not report.flags:
        return 0.0
    keep = 1.0
    for name in report.flags:
        keep *= 1.0 - FLAG_WEIGHTS.get(name, 0.0)
    for name in signals:
        keep *= 1.0 - SIGNAL_WEIGHTS.get(name, 0.0)
    return round(1.0 - keep, 4)
