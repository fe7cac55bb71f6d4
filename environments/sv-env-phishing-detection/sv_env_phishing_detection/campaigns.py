"""Template text for the synthetic email campaigns: a `Template` per scenario, language, variant.

The text itself lives in data files read through `scenario_data`: the classic scenarios'
templates in `data/classic_templates.json`, the newer scenarios (link-less lures, BEC, advance
fee, thread hijack, business threads, mailing lists, ...) in `data/scenarios.json`, where each
template holds alternatives drawn per email; the locales (names, organisations, formats) in
`data/locales.json`. This module builds `Template`s and `Locale`s from them and keeps the
brand pools.

Bodies use `str.format` placeholders filled by the generator (see `PLACEHOLDERS`); paragraphs
are separated by blank lines. Greetings, sign-offs and links are added by the generator, so a
body holds only the message itself. `content` lists the content indicators the wording carries
on purpose (`credential_request`, `urgency_language`, `payment_request`); legitimate templates
carry some too (an overdue-invoice reminder, "if this wasn't you, act now"), so wording alone
never decides the label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sv_env_phishing_detection.scenario_data import (
    alternatives,
    load_classic_templates,
    load_locales,
    load_scenario_data,
)

CLASSIC_PHISHING_SCENARIOS: tuple[str, ...] = (
    "credential_harvest",
    "invoice_fraud",
    "delivery_notice",
    "ceo_fraud_bec",
    "mfa_reset_lure",
    "tech_support",
    "gift_card",
)
CLASSIC_LEGITIMATE_SCENARIOS: tuple[str, ...] = (
    "receipt",
    "password_reset",
    "shipping",
    "newsletter",
    "calendar_invite",
    "internal_memo",
)
"""Scenarios whose template text is written in this module (3 variants x 5 languages each)."""
_DATA = load_scenario_data()["scenarios"]
DATA_SCENARIOS: dict[str, dict[str, Any]] = dict(_DATA)
"""Scenarios whose template text lives in `data/scenarios.json` (see `scenario_data`)."""
PHISHING_SCENARIOS: tuple[str, ...] = CLASSIC_PHISHING_SCENARIOS + tuple(
    name for name, entry in _DATA.items() if entry["label"] == "Phishing"
)
LEGITIMATE_SCENARIOS: tuple[str, ...] = CLASSIC_LEGITIMATE_SCENARIOS + tuple(
    name for name, entry in _DATA.items() if entry["label"] == "Legitimate"
)
LANGUAGES: tuple[str, ...] = ("en", "es", "de", "fr", "pt")
PERSONAL_SCENARIOS = frozenset(
    {"ceo_fraud_bec", "gift_card", "internal_memo", "calendar_invite"}
    | {name for name, entry in _DATA.items() if entry.get("workplace")}
)
"""Scenarios written by a person (signed with a name) rather than by an organisation."""

PLACEHOLDERS = frozenset(
    {
        "brand", "city", "date", "time", "sender_name", "doc_title", "supplier", "invoice",
        "amount", "tracking", "order", "company", "product", "phone", "gift_brand", "count",
        "card_last4", "code", "carrier", "percent", "event_title", "location", "topic",
        "first", "colleague", "sender_first", "weekday", "ticket", "list_name", "date_compact",
        "supplier_short",
    }
)  # fmt: skip

C, U, P = "credential_request", "urgency_language", "payment_request"


@dataclass(frozen=True)
class Template:
    """One campaign template; `group` keeps all its emails in one split."""

    scenario: str
    language: str
    variant: int
    subject: str
    body: str
    cta: str
    content: tuple[str, ...]
    spec: dict[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)
    """Data-file templates: the alternatives to draw from (`scenario_data`); None otherwise."""

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.language}/v{self.variant}"

    @property
    def group(self) -> str:
        return f"synth:{self.scenario}:{self.language}:v{self.variant}"


# (subject, body, call-to-action text or "" for no link, content indicators)
_Text = tuple[str, str, str, tuple[str, ...]]


def _classic_text(kind: str) -> dict[str, dict[str, tuple[_Text, ...]]]:
    """The classic templates of one label ("phishing" / "legitimate") from
    `data/classic_templates.json`."""
    return {
        scenario: {
            language: tuple(
                (t["subject"], t["body"], t["cta"], tuple(t["content"])) for t in templates
            )
            for language, templates in by_language.items()
        }
        for scenario, by_language in load_classic_templates()[kind].items()
    }


_PHISHING_TEXT = _classic_text("phishing")
_LEGITIMATE_TEXT = _classic_text("legitimate")


def _build_templates() -> tuple[Template, ...]:
    out = []
    for table in (_PHISHING_TEXT, _LEGITIMATE_TEXT):
        for scenario, by_language in table.items():
            for language, variants in by_language.items():
                for variant, (subject, body, cta, content) in enumerate(variants):
                    out.append(Template(scenario, language, variant, subject, body, cta, content))
    for scenario, entry in _DATA.items():
        for language, variants in entry["templates"].items():
            for variant, spec in enumerate(variants):
                subject = alternatives(spec["subject"])[0]
                body = "\n\n".join(alternatives(p)[0] for p in spec["body"])
                out.append(
                    Template(scenario, language, variant, subject, body, spec.get("cta", ""), (),
                             spec={**spec, "plan": entry["plan"]})
                )  # fmt: skip
    return tuple(out)


TEMPLATES: tuple[Template, ...] = _build_templates()


def templates_for(scenarios: tuple[str, ...]) -> list[Template]:
    """Templates of `scenarios`, variant-major (all scenario x language pairs of variant 0 first).

    Taking the first k of this list therefore covers every scenario and language as soon as
    k >= len(scenarios) * len(LANGUAGES).
    """
    chosen = [t for t in TEMPLATES if t.scenario in scenarios]
    return sorted(
        chosen,
        key=lambda t: (t.variant, LANGUAGES.index(t.language), scenarios.index(t.scenario)),
    )


# ---------------------------------------------------------------------------- locales
@dataclass(frozen=True)
class Locale:
    """Names, organisations and formats used to fill templates in one language."""

    first_names: tuple[str, ...]
    last_names: tuple[str, ...]
    companies: tuple[tuple[str, str], ...]  # (name, domain): employers and suppliers
    shops: tuple[tuple[str, str], ...]  # (name, domain): small senders of receipts/newsletters
    cities: tuple[str, ...]
    products: tuple[str, ...]
    event_titles: tuple[str, ...]
    locations: tuple[str, ...]
    doc_titles: tuple[str, ...]
    executive_titles: tuple[str, ...]
    service_senders: tuple[str, ...]  # generic display names ("Customer Support")
    personal_greetings: tuple[str, ...]  # with {first} / {full}
    generic_greetings: tuple[str, ...]
    signoffs: tuple[str, ...]
    team_signature: str  # with {brand}
    mobile_signature: str
    months: tuple[str, ...]
    date_pattern: str  # with {day} {month} {year}
    clock_24h: bool
    currency: tuple[str, str]  # (prefix, suffix)
    separators: tuple[str, str]  # (thousands, decimal)
    phone_pattern: str  # "#" = a random digit
    invoice_prefix: str


def _locale(fields: dict[str, Any]) -> Locale:
    """A `Locale` from its JSON object: lists become tuples (pairs stay pairs)."""
    return Locale(
        **{
            key: tuple(tuple(v) if isinstance(v, list) else v for v in value)
            if isinstance(value, list)
            else value
            for key, value in fields.items()
        }
    )


LOCALES: dict[str, Locale] = {
    language: _locale(fields) for language, fields in load_locales().items()
}
"""Per language: names, organisations and formats (text in `data/locales.json`)."""

BRAND_NAMES: dict[str, str] = {
    "paypal": "PayPal", "microsoft": "Microsoft", "apple": "Apple", "google": "Google",
    "amazon": "Amazon", "netflix": "Netflix", "dhl": "DHL", "fedex": "FedEx", "ups": "UPS",
    "usps": "USPS", "docusign": "DocuSign", "dropbox": "Dropbox", "linkedin": "LinkedIn",
    "facebook": "Facebook", "instagram": "Instagram", "chase": "Chase",
    "wellsfargo": "Wells Fargo", "bankofamerica": "Bank of America", "irs": "IRS",
    "coinbase": "Coinbase", "adobe": "Adobe", "zoom": "Zoom", "slack": "Slack",
    "github": "GitHub", "ebay": "eBay", "santander": "Santander", "sparkasse": "Sparkasse",
    "laposte": "La Poste", "correos": "Correos",
}  # fmt: skip
"""brand key (as in `brands.BRAND_DOMAINS`) -> how the brand writes its name."""

_COMMON_ACCOUNT_BRANDS = ("paypal", "microsoft", "apple", "google", "amazon", "netflix",
                          "dropbox", "docusign", "linkedin", "facebook", "instagram",
                          "coinbase", "adobe", "github", "ebay")  # fmt: skip
ACCOUNT_BRANDS: dict[str, tuple[str, ...]] = {
    "en": (*_COMMON_ACCOUNT_BRANDS, "chase", "wellsfargo", "bankofamerica"),
    "es": (*_COMMON_ACCOUNT_BRANDS, "santander"),
    "de": (*_COMMON_ACCOUNT_BRANDS, "sparkasse"),
    "fr": _COMMON_ACCOUNT_BRANDS,
    "pt": (*_COMMON_ACCOUNT_BRANDS, "santander"),
}
"""Brands whose accounts credential lures (and real password mails) are about."""

CARRIERS: dict[str, tuple[str, ...]] = {
    "en": ("dhl", "fedex", "ups", "usps"),
    "es": ("correos", "dhl", "ups"),
    "de": ("dhl", "ups"),
    "fr": ("laposte", "dhl", "ups"),
    "pt": ("dhl", "ups", "fedex"),
}
WORKPLACE_BRANDS = ("microsoft", "google", "slack", "zoom", "github", "dropbox")
SHOP_BRANDS = ("amazon", "apple", "ebay", "paypal", "netflix")
NEWSLETTER_BRANDS = ("linkedin", "github", "adobe", "netflix", "zoom", "slack", "dropbox")
GIFT_BRANDS = ("Apple", "Google Play", "Amazon", "Steam")
SECURITY_PRODUCTS = ("Norton 360 Deluxe", "McAfee Total Protection", "Geek Squad Protection",
                     "Avast Premium Security", "PC Shield Pro")  # fmt: skip
PROJECT_NAMES = ("Atlas", "Phoenix", "Horizon", "Nova", "Orion", "Meridian")
