"""Brands that phishing imitates and the domains they really send from and link to."""

from __future__ import annotations

BRAND_DOMAINS: dict[str, tuple[str, ...]] = {
    "paypal": ("paypal.com",),
    "microsoft": ("microsoft.com", "office.com", "live.com", "outlook.com", "microsoftonline.com"),
    "apple": ("apple.com", "icloud.com"),
    "google": ("google.com", "gmail.com", "accounts.google.com"),
    "amazon": ("amazon.com", "amazon.de", "amazon.co.uk"),
    "netflix": ("netflix.com",),
    "dhl": ("dhl.com", "dhl.de"),
    "fedex": ("fedex.com",),
    "ups": ("ups.com",),
    "usps": ("usps.com",),
    "docusign": ("docusign.com", "docusign.net"),
    "dropbox": ("dropbox.com",),
    "linkedin": ("linkedin.com",),
    "facebook": ("facebook.com", "meta.com"),
    "instagram": ("instagram.com",),
    "chase": ("chase.com",),
    "wellsfargo": ("wellsfargo.com",),
    "bankofamerica": ("bankofamerica.com",),
    "irs": ("irs.gov",),
    "coinbase": ("coinbase.com",),
    "adobe": ("adobe.com",),
    "zoom": ("zoom.us",),
    "slack": ("slack.com",),
    "github": ("github.com",),
    "ebay": ("ebay.com",),
    "santander": ("santander.com", "santander.es"),
    "sparkasse": ("sparkasse.de",),
    "laposte": ("laposte.fr",),
    "correos": ("correos.es",),
}
"""brand -> its legitimate registered domains (the first is the main one)."""

LEGITIMATE_DOMAINS: frozenset[str] = frozenset(d for ds in BRAND_DOMAINS.values() for d in ds)
