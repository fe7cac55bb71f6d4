"""What fills one synthetic email's template: placeholder values and the drawn text.

`draw_fields` draws the values of the `campaigns.PLACEHOLDERS` (amounts, dates, times,
order and tracking numbers in the locale's format); `draw_text` picks one alternative per slot
of a data-file template (`scenario_data`), fills it and varies its writing style. `chance` and
`digits` are the small random draws every other part of the generator uses too.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from random import Random

from sv_env_phishing_detection.campaigns import (
    DATA_SCENARIOS,
    GIFT_BRANDS,
    PHISHING_SCENARIOS,
    PROJECT_NAMES,
    SECURITY_PRODUCTS,
    Locale,
    Template,
)
from sv_env_phishing_detection.obfuscation import token
from sv_env_phishing_detection.scenario_data import alternatives, load_scenario_data

_AMOUNT_CENTS = {
    "invoice_fraud": (120_000, 4_800_000),
    "delivery_notice": (149, 499),
    "ceo_fraud_bec": (850_000, 4_950_000),
    "tech_support": (19_999, 49_999),
    "receipt": (999, 34_999),
    "internal_memo": (45_000, 1_800_000),
}
EXTRAS = load_scenario_data()
"""The scenario data file: weekdays, quote headers and disclaimers by language, list names."""


def chance(rng: Random, p: float) -> bool:
    return rng.random() < p


# ---------------------------------------------------------------------------- fields
def _format_amount(cents: int, loc: Locale) -> str:
    whole, rest = divmod(cents, 100)
    grouped = f"{whole:,}".replace(",", loc.separators[0])
    return f"{loc.currency[0]}{grouped}{loc.separators[1]}{rest:02d}{loc.currency[1]}"


def format_date(day: datetime, loc: Locale) -> str:
    month = loc.months[day.month - 1]
    return loc.date_pattern.format(day=day.day, month=month, year=day.year)


def format_time(hour: int, minute: int, loc: Locale) -> str:
    if loc.clock_24h:
        return f"{hour:02d}:{minute:02d}"
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def digits(rng: Random, count: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(count))


def _tracking(rng: Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "1Z" + token(rng, 16).upper()
    if kind == 1:
        return "JJD" + digits(rng, 18)
    if kind == 2:
        return f"LX{digits(rng, 9)}DE"
    return digits(rng, 12)


def draw_fields(rng: Random, template: Template, loc: Locale, sent: datetime) -> dict[str, str]:
    """Placeholder values; `brand` and `carrier` are set later by the scenario planner."""
    data_range = DATA_SCENARIOS.get(template.scenario, {}).get("amount")
    low, high = data_range or _AMOUNT_CENTS.get(template.scenario, (1_000, 20_000))
    cents = rng.randint(low, high)
    if template.scenario == "ceo_fraud_bec":
        cents -= cents % 5_000
    if template.scenario == "gift_card":
        cents = rng.choice((100, 200, 250, 500)) * 100
    due = sent + timedelta(days=rng.randint(1, 14))
    return {
        "brand": "",
        "carrier": "",
        "city": rng.choice(loc.cities),
        "date": format_date(due, loc),
        "time": format_time(rng.randint(8, 18), rng.choice((0, 15, 30, 45)), loc),
        "sender_name": "",
        "doc_title": rng.choice(loc.doc_titles),
        "supplier": "",
        "invoice": f"{loc.invoice_prefix}-{sent.year}-{digits(rng, 5)}",
        "amount": _format_amount(cents, loc),
        "tracking": _tracking(rng),
        "order": rng.choice((f"#{digits(rng, 7)}", f"{digits(rng, 3)}-{digits(rng, 7)}")),
        "company": "",
        "product": rng.choice(
            SECURITY_PRODUCTS if template.scenario == "tech_support" else loc.products
        ),
        "phone": "".join(str(rng.randrange(10)) if c == "#" else c for c in loc.phone_pattern),
        "gift_brand": rng.choice(GIFT_BRANDS),
        "count": str(rng.choice((3, 4, 5, 6, 8, 10))),
        "card_last4": digits(rng, 4),
        "code": digits(rng, 6),
        "percent": str(rng.choice((15, 20, 25, 30, 40, 50))),
        "event_title": rng.choice(loc.event_titles),
        "location": rng.choice(loc.locations),
        "topic": rng.choice(PROJECT_NAMES),
        "weekday": rng.choice(EXTRAS["weekdays"][template.language]),
        "ticket": digits(rng, rng.choice((5, 6, 7))),
        "list_name": rng.choice(EXTRAS["list_names"]),
        "date_compact": f"{due:%Y%m%d}",
    }


# ---------------------------------------------------------------------------- text
def _style(rng: Random, text: str, phishing: bool) -> tuple[str, str]:
    """Writing quality varies in both labels: typos, all lower case, an all-caps shout."""
    roll = rng.random()
    if roll < (0.1 if phishing else 0.06):
        return text.upper(), "all_caps"
    if roll < (0.22 if phishing else 0.16):
        return text.lower(), "lower_case"
    if roll < (0.4 if phishing else 0.28):
        words = text.split(" ")
        for _ in range(max(1, len(words) // 25)):
            i = rng.randrange(len(words))
            w = words[i]
            if len(w) > 4 and w.isalpha():
                j = rng.randrange(1, len(w) - 2)
                words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        return " ".join(words), "typos"
    return text, ""


def escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def draw_text(rng: Random, template: Template, fields: dict[str, str]) -> tuple[Template, str]:
    """A data-file template with one alternative drawn per slot, filled and styled."""
    spec = template.spec or {}
    subject = rng.choice(alternatives(spec["subject"])).format_map(fields)
    paragraphs = [rng.choice(alternatives(slot)).format_map(fields) for slot in spec["body"]]
    body = "\n\n".join(p for p in paragraphs if p)
    phishing = template.scenario in PHISHING_SCENARIOS
    body, style = _style(rng, body, phishing)
    if style == "all_caps" and chance(rng, 0.5):
        subject = subject.upper()
    return replace(template, subject=escape_braces(subject), body=escape_braces(body)), style
