"""Deterministic synthetic phishing and legitimate emails, built as full RFC 5322 messages.

`generate_corpus(n, seed)` returns `n` `EmailRecord`s, half phishing and half legitimate. Each
label's budget is dealt round-robin over its templates (`campaigns.templates_for`), so every
scenario x language pair appears once n >= 70, and each email draws everything else (people,
brands, amounts, obfuscation techniques, MIME layout) from a `Random` seeded by
(seed, template, round): an id always names the same message for a given seed, whatever `n`.

No single surface feature gives the label away: legitimate mail is also HTML-only, urgent, full
of links, sent through bulk-mail providers (Return-Path elsewhere, click-tracking anchors),
from misconfigured small senders (softfail, no DKIM) or from free-mail; phishing BEC and
gift-card lures often pass authentication from free-mail or look-alike company domains with
plain text and no links.

This module plans each email (a `mime.Draft`: sender, links, tricks, layout, attachments);
`mime.render` turns the plan into the RFC 5322 message and `meta["planted"]`, the catalogue
indicators really present in it: content ones come from the template, the rest are read back
from what was built.
"""

from __future__ import annotations

import html
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from random import Random
from typing import Any

from sv_env_phishing_detection.brands import BRAND_DOMAINS, LEGITIMATE_DOMAINS
from sv_env_phishing_detection.campaigns import (
    ACCOUNT_BRANDS,
    BRAND_NAMES,
    CARRIERS,
    DATA_SCENARIOS,
    GIFT_BRANDS,
    LANGUAGES,
    LEGITIMATE_SCENARIOS,
    LOCALES,
    NEWSLETTER_BRANDS,
    PERSONAL_SCENARIOS,
    PHISHING_SCENARIOS,
    PROJECT_NAMES,
    SECURITY_PRODUCTS,
    SHOP_BRANDS,
    WORKPLACE_BRANDS,
    Locale,
    Template,
    templates_for,
)
from sv_env_phishing_detection.mime import (
    RISKY_EXTENSIONS,
    Draft,
    MailAttachment,
    Person,
    ascii_name,
    domain_of,
    render,
    same_organisation,
)
from sv_env_phishing_detection.obfuscation import (
    ESP_DOMAINS,
    FREE_MAIL,
    RISKY_TLDS,
    SAFE_TLDS,
    attacker_domain,
    can_homoglyph,
    company_lookalike,
    digit_swap_domain,
    embedded_brand_host,
    homoglyph_domain,
    ip_host,
    registered_domain,
    shortener_url,
    subdomain_chain,
    to_ascii,
    token,
    typo_domain,
    userinfo_url,
)
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING, EmailRecord
from sv_env_phishing_detection.scenario_data import alternatives, load_scenario_data
from sv_shared.sampling import weighted_pick as _pick

__all__ = [
    "GENERATOR_VERSION",
    "LANGUAGES",
    "LEGITIMATE_SCENARIOS",
    "PHISHING_SCENARIOS",
    "RISKY_EXTENSIONS",
    "generate_corpus",
]

GENERATOR_VERSION = "e4-synthetic-v2"
SOURCE = "synthetic"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_TZ_HOURS = {"en": (-8, -5, 0), "es": (1, 2), "de": (1, 2), "fr": (1, 2), "pt": (-3, 0, 1)}
_AMOUNT_CENTS = {
    "invoice_fraud": (120_000, 4_800_000),
    "delivery_notice": (149, 499),
    "ceo_fraud_bec": (850_000, 4_950_000),
    "tech_support": (19_999, 49_999),
    "receipt": (999, 34_999),
    "internal_memo": (45_000, 1_800_000),
}
_BRAND_PRODUCTS = {
    "netflix": "Netflix Standard",
    "apple": "iCloud+ 200 GB",
    "linkedin": "LinkedIn Premium",
    "github": "GitHub Copilot",
    "adobe": "Acrobat Pro",
    "zoom": "Zoom Workplace Pro",
    "slack": "Slack Pro",
    "dropbox": "Dropbox Plus",
}
"""What brands sell in receipts and newsletters (shops sell the locale's products)."""
_EXTRAS = load_scenario_data()
_FOOTER_WORDS = {
    "en": ("Help", "Privacy"),
    "es": ("Ayuda", "Privacidad"),
    "de": ("Hilfe", "Datenschutz"),
    "fr": ("Aide", "Confidentialité"),
    "pt": ("Ajuda", "Privacidade"),
}


def _chance(rng: Random, p: float) -> bool:
    return rng.random() < p


def _main_domain(brand: str) -> str:
    return BRAND_DOMAINS[brand][0]


# ---------------------------------------------------------------------------- fields
def _format_amount(cents: int, loc: Locale) -> str:
    whole, rest = divmod(cents, 100)
    grouped = f"{whole:,}".replace(",", loc.separators[0])
    return f"{loc.currency[0]}{grouped}{loc.separators[1]}{rest:02d}{loc.currency[1]}"


def _format_date(day: datetime, loc: Locale) -> str:
    month = loc.months[day.month - 1]
    return loc.date_pattern.format(day=day.day, month=month, year=day.year)


def _format_time(hour: int, minute: int, loc: Locale) -> str:
    if loc.clock_24h:
        return f"{hour:02d}:{minute:02d}"
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def _digits(rng: Random, count: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(count))


def _tracking(rng: Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "1Z" + token(rng, 16).upper()
    if kind == 1:
        return "JJD" + _digits(rng, 18)
    if kind == 2:
        return f"LX{_digits(rng, 9)}DE"
    return _digits(rng, 12)


def _fields(rng: Random, template: Template, loc: Locale, sent: datetime) -> dict[str, str]:
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
        "date": _format_date(due, loc),
        "time": _format_time(rng.randint(8, 18), rng.choice((0, 15, 30, 45)), loc),
        "sender_name": "",
        "doc_title": rng.choice(loc.doc_titles),
        "supplier": "",
        "invoice": f"{loc.invoice_prefix}-{sent.year}-{_digits(rng, 5)}",
        "amount": _format_amount(cents, loc),
        "tracking": _tracking(rng),
        "order": rng.choice((f"#{_digits(rng, 7)}", f"{_digits(rng, 3)}-{_digits(rng, 7)}")),
        "company": "",
        "product": rng.choice(
            SECURITY_PRODUCTS if template.scenario == "tech_support" else loc.products
        ),
        "phone": "".join(str(rng.randrange(10)) if c == "#" else c for c in loc.phone_pattern),
        "gift_brand": rng.choice(GIFT_BRANDS),
        "count": str(rng.choice((3, 4, 5, 6, 8, 10))),
        "card_last4": _digits(rng, 4),
        "code": _digits(rng, 6),
        "percent": str(rng.choice((15, 20, 25, 30, 40, 50))),
        "event_title": rng.choice(loc.event_titles),
        "location": rng.choice(loc.locations),
        "topic": rng.choice(PROJECT_NAMES),
        "weekday": rng.choice(_EXTRAS["weekdays"][template.language]),
        "ticket": _digits(rng, rng.choice((5, 6, 7))),
        "list_name": rng.choice(_EXTRAS["list_names"]),
        "date_compact": f"{due:%Y%m%d}",
    }


# ---------------------------------------------------------------------------- shared pieces
def _free_mail(rng: Random, avoid: str | None = None) -> str:
    allowed = BRAND_DOMAINS.get(avoid or "", ())
    return rng.choice([d for d in FREE_MAIL if d not in allowed])


def _brand_display(brand: str, rng: Random) -> str:
    name = BRAND_NAMES[brand]
    return rng.choice((name, name, f"{name} Support", f"{name} Security", f"{name} Service"))


def _brand_sender_host(brand: str, rng: Random, language: str) -> str:
    domains = BRAND_DOMAINS[brand]
    local = [d for d in domains if d.endswith((".de", ".es")) and d[-2:] == language]
    domain = local[0] if local and _chance(rng, 0.7) else domains[0]
    if _chance(rng, 0.35) and domain.count(".") == 1:
        return f"{rng.choice(('mail', 'email', 'notify', 'account'))}.{domain}"
    return domain


def _url(host: str, rng: Random, *segments: str) -> str:
    path = "/".join(s.strip("/") for s in segments if s)
    query = f"?id={token(rng, 10)}" if _chance(rng, 0.5) else ""
    return f"https://{host}/{path}{query}"


def _set_sender(d: Draft, name: str, address: str, *, return_path: str = "") -> None:
    d.sender_name, d.sender_address = name, address
    d.return_path = return_path or address


def _org_signature(d: Draft, org: str) -> None:
    d.signature = [d.rng.choice(d.locale.signoffs), d.locale.team_signature.format(brand=org)]


def _person_signature(d: Draft, *, executive: bool = False, mobile: bool = False) -> None:
    lines = [d.rng.choice(d.locale.signoffs), d.person.first if _chance(d.rng, 0.5) else ""]
    if executive and not lines[1]:
        lines[1] = f"{d.person.full}\n{d.rng.choice(d.locale.executive_titles)}"
    lines[1] = lines[1] or d.person.full
    if mobile:
        lines.append(d.locale.mobile_signature)
    d.signature = lines


def _greet(d: Draft, personal: float) -> None:
    loc = d.locale
    if _chance(d.rng, personal):
        pattern = d.rng.choice(loc.personal_greetings)
        d.greeting = pattern.format(first=d.recipient.first, full=d.recipient.full)
    else:
        d.greeting = d.rng.choice(loc.generic_greetings)


def _same_domain_reply_to(d: Draft, p: float) -> None:
    """A Reply-To on the sender's own domain (no mismatch), as many senders set one."""
    if not d.reply_to and _chance(d.rng, p):
        local = d.rng.choice(("support", "hello", "reply", "contact"))
        d.reply_to = f"{local}@{domain_of(d.sender_address)}"


def _esp_return_path(d: Draft) -> None:
    esp = d.rng.choice(ESP_DOMAINS)
    d.return_path = f"bounces+{token(d.rng, 8).lower()}@{esp}"
    d.use("bulk_mail_provider")


def _soften_auth(d: Draft, spf: float, dkim: float, dmarc: float = 0.0) -> None:
    """Misconfigured or forwarded senders: softfail SPF, unsigned or broken DKIM."""
    if _chance(d.rng, spf):
        d.auth["spf"] = d.rng.choice(("softfail", "softfail", "fail"))
        d.use("spf_not_pass")
    if _chance(d.rng, dkim):
        d.auth["dkim"] = d.rng.choice(("none", "none", "fail"))
        d.use("dkim_not_pass")
    if _chance(d.rng, dmarc):
        d.auth["dmarc"] = "fail"
        d.use("dmarc_fail")
    elif d.auth["dkim"] != "pass" and d.auth["spf"] != "pass":
        d.auth["dmarc"] = d.rng.choice(("none", "fail"))


def _pdf(name: str) -> MailAttachment:
    data = b"%PDF-1.4\n% synthetic placeholder document\n1 0 obj << >> endobj\n%%EOF\n"
    return MailAttachment(name, "application", "pdf", data)


# ---------------------------------------------------------------------------- look-alikes
def _lookalike(d: Draft, brand: str) -> tuple[str, str]:
    """(domain as written in links, domain as written in addresses) imitating `brand`."""
    rng, main = d.rng, _main_domain(brand)
    kinds = ["digit_swap", "typo", "brand_embedded", "brand_embedded"]
    if can_homoglyph(main):
        kinds += ["homoglyph_domain", "punycode_domain"]
    kind = rng.choice(kinds)
    d.use(kind)
    if kind in ("homoglyph_domain", "punycode_domain"):
        unicode_domain = homoglyph_domain(main, rng)
        shown = unicode_domain if kind == "homoglyph_domain" else to_ascii(unicode_domain)
        address = to_ascii(unicode_domain)
    elif kind == "digit_swap":
        shown = address = digit_swap_domain(main, rng)
    elif kind == "typo":
        shown = address = typo_domain(main, rng)
    else:
        shown = address = embedded_brand_host(brand, main, rng, _attacker_tld(d, 0.3))
    d.lookalikes += [shown, address]
    return shown, address


def _attacker_tld(d: Draft, risky: float) -> str:
    if _chance(d.rng, risky):
        d.use("risky_tld")
        return d.rng.choice(RISKY_TLDS)
    return d.rng.choice(SAFE_TLDS)


def _other_company(d: Draft) -> tuple[str, str]:
    """A small organisation from another locale (a compromised mailbox or web site)."""
    language = d.rng.choice([lang for lang in LANGUAGES if lang != d.template.language])
    loc = LOCALES[language]
    return d.rng.choice(loc.companies + loc.shops)


# ---------------------------------------------------------------------------- phishing
_LURE_PATHS = {
    "credential_harvest": ("signin", "account/verify", "login.php", "secure/session"),
    "delivery_notice": ("track", "redelivery", "customs/pay", "parcel/status"),
    "mfa_reset_lure": ("mfa/register", "auth/2fa", "sso/setup", "security/enroll"),
    "invoice_fraud": ("invoice/view", "documents/open", "billing/statement"),
    "tech_support": ("support/tool", "download/cleaner", "remote/assist"),
}
_RISKY_LURE_FILES = {
    "invoice_fraud": ("{invoice}.pdf.exe", "Remittance_{invoice}.html", "Invoice_{invoice}.docm",
                      "{invoice}.iso", "Payment_advice.htm"),
    "tech_support": ("Invoice_{code}.html", "Refund_form.htm", "Support_Tool.exe",
                     "Renewal_{code}.pdf.exe"),
    "delivery_notice": ("Shipping_label_{tracking}.iso", "Label_{tracking}.pdf.exe",
                        "Delivery_form.html", "Parcel_{tracking}.js"),
}  # fmt: skip
_DEFAULT_RISKY_FILES = ("Secure_Message.html", "Document_{code}.docm", "Review.pdf.exe",
                        "Scan_{code}.img", "Statement.lnk", "Shared_file.htm")  # fmt: skip
_MIME_BY_EXT = {
    "html": ("text", "html"), "htm": ("text", "html"),
    "docm": ("application", "vnd.ms-word.document.macroEnabled.12"),
    "xlsm": ("application", "vnd.ms-excel.sheet.macroEnabled.12"),
    "iso": ("application", "x-iso9660-image"), "img": ("application", "octet-stream"),
    "exe": ("application", "x-msdownload"), "js": ("text", "javascript"),
    "lnk": ("application", "x-ms-shortcut"),
}  # fmt: skip


def _risky_attachment(d: Draft, pattern: str) -> MailAttachment:
    name = pattern.format(**d.fields)
    ext = name.rpartition(".")[2]
    maintype, subtype = _MIME_BY_EXT.get(ext, ("application", "octet-stream"))
    if maintype == "text" and subtype == "html":
        action = d.cta_href or _url(attacker_domain(d.rng, "com"), d.rng, "auth")
        data: bytes | str = (
            '<html><body><form method="post" action="' + html.escape(action) + '">'
            '<input type="email" name="email"><input type="password" name="password">'
            "<button>Open</button></form></body></html>\n"
        )
    else:
        data = b"synthetic placeholder, not executable\n"
    d.use("risky_attachment")
    return MailAttachment(name, maintype, subtype, data)


def _phish_sender(d: Draft, brand: str | None) -> str:
    """Choose how a brand lure is sent; returns the attacker's main domain (for links)."""
    rng, loc = d.rng, d.locale
    strategies = (("lookalike", 0.3), ("spoofed", 0.12), ("compromised", 0.18),
                  ("freemail", 0.12), ("attacker", 0.28))  # fmt: skip
    if brand is None:
        strategies = tuple(s for s in strategies if s[0] not in ("lookalike", "spoofed"))
    strategy = _pick(rng, strategies)
    d.use(f"sender_{strategy}")
    local = rng.choice(("service", "security", "no-reply", "support", "account", "info"))
    if strategy == "lookalike" and brand:
        _, address_domain = _lookalike(d, brand)
        domain = address_domain
    elif strategy == "spoofed" and brand:
        domain = _main_domain(brand)
        d.auth = {"spf": rng.choice(("fail", "softfail")), "dkim": rng.choice(("none", "fail")),
                  "dmarc": "fail"}  # fmt: skip
        d.use("spoofed_brand_domain")
    elif strategy == "compromised":
        domain = _other_company(d)[1]
    elif strategy == "freemail":
        domain = _free_mail(rng, brand)
        local = f"{(brand or 'support')}.{rng.choice(('help', 'team', 'desk'))}{_digits(rng, 2)}"
    else:
        domain = attacker_domain(rng, _attacker_tld(d, 0.4))
    roll = rng.random()
    if brand and roll < 0.65:
        name = _brand_display(brand, rng)
    elif brand and roll < 0.8:
        name = f"{local}@{_main_domain(brand)}"
        d.use("display_name_address")
    else:
        name = rng.choice(loc.service_senders)
    _set_sender(d, name, f"{local}@{domain}")
    if strategy == "spoofed":
        d.return_path = f"bounce@{attacker_domain(rng, _attacker_tld(d, 0.3))}"
        return registered_domain(domain_of(d.return_path))
    if _chance(rng, 0.15):
        _esp_return_path(d)
    return domain


def _phish_link(d: Draft, brand: str | None, sender_domain: str) -> None:
    """The lure URL behind the call to action."""
    rng = d.rng
    path = rng.choice(_LURE_PATHS.get(d.template.scenario, ("login",)))
    kinds = (("lookalike", 0.26 if brand else 0.0), ("attacker", 0.24), ("ip", 0.1),
             ("shortener", 0.12), ("userinfo", 0.08 if brand else 0.0), ("subdomains", 0.1),
             ("same_as_sender", 0.05), ("compromised_site", 0.05))  # fmt: skip
    kind = _pick(rng, kinds)
    if kind == "lookalike" and brand:
        shown, _ = _lookalike(d, brand)
        href = _url(rng.choice((shown, f"www.{shown}", f"login.{shown}")), rng, path)
    elif kind == "ip":
        href = f"http://{ip_host(rng)}/{brand or 'secure'}/{path}"
        d.use("ip_host")
    elif kind == "shortener":
        href = shortener_url(rng)
        d.use("url_shortener")
    elif kind == "userinfo" and brand:
        host = attacker_domain(rng, _attacker_tld(d, 0.4))
        href = userinfo_url(f"www.{_main_domain(brand)}", host, f"/{path}")
        d.use("userinfo_url")
    elif kind == "subdomains":
        href = _url(subdomain_chain(attacker_domain(rng, _attacker_tld(d, 0.4)), rng), rng, path)
        d.use("many_subdomains")
    elif kind == "same_as_sender" and sender_domain not in LEGITIMATE_DOMAINS | set(FREE_MAIL):
        href = _url(f"www.{sender_domain}", rng, path)
    elif kind == "compromised_site":
        href = _url(_other_company(d)[1], rng, "wp-content", "uploads", token(rng, 6), path)
        d.use("compromised_site")
    else:
        href = _url(attacker_domain(rng, _attacker_tld(d, 0.4)), rng, path)
    d.cta_href = href


def _phish_html_tricks(d: Draft, brand: str | None, form: float) -> None:
    rng = d.rng
    if d.cta_href and brand and _chance(rng, 0.4):
        shown = f"www.{_main_domain(brand)}"
        d.cta_text = rng.choice((shown, f"https://{shown}/{rng.choice(('signin', 'account'))}"))
        d.use("anchor_text_mismatch")
    if d.cta_href and _chance(rng, form):
        d.form_action = d.cta_href
        d.use("html_password_form")
    if brand and _chance(rng, 0.35):
        d.footer = _site_footer(d, f"www.{_main_domain(brand)}")
        d.use("copied_brand_footer")
    needs_html = bool(d.form_action) or "anchor_text_mismatch" in d.techniques
    mode = _pick(rng, (("plain", 0.0 if needs_html else 0.3), ("html", 0.4), ("alternative", 0.3)))
    d.mode = mode
    if mode == "html":
        d.use("html_only")


def _phish_extras(d: Draft, brand: str | None, risky_file: float) -> None:
    rng = d.rng
    if _chance(rng, 0.22):
        d.zero_width = rng.randint(2, 4)
        d.zero_width_subject = _chance(rng, 0.5)
        d.use("zero_width_chars")
    if _chance(rng, 0.18):
        local = f"{ascii_name(d.sender_name) or 'help'}{_digits(rng, 3)}"
        free = _free_mail(rng)
        if same_organisation(free, domain_of(d.sender_address)):  # outlook.com vs microsoft.com
            free = _free_mail(rng, brand)
        d.reply_to = f"{local}@{free}"
        d.use("reply_to_freemail")
    else:
        _same_domain_reply_to(d, 0.12)
    if _chance(rng, risky_file):
        patterns = _RISKY_LURE_FILES.get(d.template.scenario, _DEFAULT_RISKY_FILES)
        d.attachments.append(_risky_attachment(d, rng.choice(patterns)))
    if "spoofed_brand_domain" not in d.techniques:
        _soften_auth(d, spf=0.12, dkim=0.12, dmarc=0.08)
    if _chance(rng, 0.2):
        d.list_unsubscribe = f"<{_url(domain_of(d.return_path), rng, 'unsubscribe')}>"


def _plan_brand_lure(d: Draft, brand: str | None, *, form: float, risky_file: float) -> None:
    if brand:
        d.brand = brand
        d.fields["brand"] = BRAND_NAMES[brand]
    sender_domain = _phish_sender(d, brand)
    if d.template.cta:
        _phish_link(d, brand, sender_domain)
    _phish_html_tricks(d, brand, form)
    _phish_extras(d, brand, risky_file)
    _greet(d, 0.45)
    _org_signature(d, d.fields["brand"] or d.sender_name)
    d.cta_first = _chance(d.rng, 0.3)


def _plan_credential_harvest(d: Draft) -> None:
    brand = d.rng.choice(ACCOUNT_BRANDS[d.template.language])
    _plan_brand_lure(d, brand, form=0.15, risky_file=0.1)
    if d.template.variant == 2 and _chance(d.rng, 0.25):
        d.attachments.append(_ics(d, description=d.cta_href))
        d.use("calendar_lure")


def _plan_delivery_notice(d: Draft) -> None:
    brand = d.rng.choice(CARRIERS[d.template.language])
    _plan_brand_lure(d, brand, form=0.05, risky_file=0.12)


def _plan_mfa_reset(d: Draft) -> None:
    brand = d.rng.choice(WORKPLACE_BRANDS) if d.template.variant == 1 else "microsoft"
    _plan_brand_lure(d, brand, form=0.15, risky_file=0.08)
    if (
        d.template.variant != 1
        and "display_name_address" not in d.techniques
        and _chance(d.rng, 0.4)
    ):
        d.sender_name = d.rng.choice(("IT Service Desk", "IT Helpdesk", f"{d.company[0]} IT"))


def _plan_invoice_fraud(d: Draft) -> None:
    if d.template.variant == 1:
        _plan_supplier_fraud(d)
        return
    brand = d.rng.choice(("docusign", "adobe", "dropbox", "microsoft", "paypal", None, None))
    _plan_brand_lure(d, brand, form=0.05, risky_file=0.3)
    if not brand:
        d.sender_name = d.fields["supplier"]
    if not any(a.filename.endswith(".pdf") for a in d.attachments) and _chance(d.rng, 0.3):
        d.attachments.append(_pdf(f"{d.fields['invoice']}.pdf"))


def _plan_supplier_fraud(d: Draft) -> None:
    """Bank-detail change from a (look-alike or compromised) supplier: often no link at all."""
    rng = d.rng
    supplier_domain = d.supplier[1]
    kind = _pick(rng, (("lookalike", 0.5), ("compromised", 0.2), ("freemail", 0.3)))
    d.use(f"sender_{kind}")
    if kind == "lookalike":
        domain = company_lookalike(supplier_domain, rng)
        d.use("company_lookalike_domain")
    elif kind == "compromised":
        domain = supplier_domain
    else:
        domain = _free_mail(rng)
    name = d.person.full if _chance(rng, 0.5) else d.fields["supplier"]
    _set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.7)
    if _chance(rng, 0.45):
        d.attachments.append(_risky_attachment(d, rng.choice(_RISKY_LURE_FILES["invoice_fraud"])))
    else:
        d.attachments.append(_pdf(rng.choice(("Bank_details.pdf", "Letter.pdf"))))
    _person_signature(d)


def _plan_executive_lure(d: Draft) -> None:
    """CEO fraud and gift cards: a person, plain text, no links, usually passing auth."""
    rng = d.rng
    kind = _pick(rng, (("freemail", 0.55), ("company_lookalike", 0.35), ("compromised", 0.1)))
    d.use(f"sender_{kind}")
    if kind == "freemail":
        domain = _free_mail(rng)
    elif kind == "company_lookalike":
        domain = company_lookalike(d.company[1], rng)
        d.use("company_lookalike_domain")
    else:
        domain = _other_company(d)[1]
    name = d.person.full
    if _chance(rng, 0.12):
        name = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("display_name_address")
    _set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.85)
    _person_signature(d, executive=True, mobile=_chance(rng, 0.4))


def _person_lure_common(d: Draft, plain: float, reply_to: float = 0.3) -> None:
    rng = d.rng
    if _chance(rng, reply_to):
        d.reply_to = f"{d.person.local_part(rng)}{_digits(rng, 2)}@{_free_mail(rng)}"
        d.use("reply_to_freemail")
    _soften_auth(d, spf=0.08, dkim=0.15, dmarc=0.04)
    d.mode = "plain" if _chance(rng, plain) else rng.choice(("html", "alternative"))
    if d.mode == "html":
        d.use("html_only")
    if _chance(rng, 0.08):
        d.zero_width = rng.randint(1, 3)
        d.use("zero_width_chars")
    _greet(d, 0.8)


def _plan_tech_support(d: Draft) -> None:
    rng = d.rng
    if d.template.variant == 1:
        _plan_brand_lure(d, "microsoft", form=0.0, risky_file=0.15)
        return
    kind = _pick(rng, (("freemail", 0.5), ("attacker", 0.5)))
    d.use(f"sender_{kind}")
    domain = _free_mail(rng) if kind == "freemail" else attacker_domain(rng, _attacker_tld(d, 0.3))
    product = d.fields["product"]
    name = rng.choice(
        (f"{product.split()[0]} Billing", "Support Center", *d.locale.service_senders)
    )
    _set_sender(d, name, f"{rng.choice(('billing', 'support', 'renewals'))}@{domain}")
    _person_lure_common(d, plain=0.6, reply_to=0.45)
    if _chance(rng, 0.35):
        d.attachments.append(_risky_attachment(d, rng.choice(_RISKY_LURE_FILES["tech_support"])))
    elif _chance(rng, 0.5):
        d.attachments.append(_pdf(f"Invoice_{d.fields['order'].strip('#')}.pdf"))
    _org_signature(d, name)


# ---------------------------------------------------------------------------- legitimate
def _brand_or_shop(d: Draft, brands: tuple[str, ...], p_brand: float) -> tuple[str, str]:
    """(display name, sending domain) of a real brand or a small shop of this locale."""
    if _chance(d.rng, p_brand):
        brand = d.rng.choice(brands)
        d.brand = brand
        d.fields["product"] = _BRAND_PRODUCTS.get(brand, d.fields["product"])
        return BRAND_NAMES[brand], _brand_sender_host(brand, d.rng, d.template.language)
    name, domain = d.rng.choice(d.locale.shops)
    d.use("small_sender")
    return name, domain


def _legit_sender(d: Draft, name: str, host: str, *, esp: float, soft: float) -> None:
    local = d.rng.choice(("no-reply", "noreply", "info", "service", "orders", "hello"))
    _set_sender(d, name, f"{local}@{host}")
    if _chance(d.rng, esp):
        _esp_return_path(d)
    _same_domain_reply_to(d, 0.25)
    small = "small_sender" in d.techniques
    _soften_auth(d, spf=soft if small else 0.02, dkim=soft if small else 0.03, dmarc=0.02)


def _legit_layout(d: Draft, html_only: float, plain: float) -> None:
    weights = (("html", html_only), ("plain", plain), ("alternative", 1 - html_only - plain))
    d.mode = _pick(d.rng, weights)
    if d.mode == "html":
        d.use("html_only")


def _click_tracking(d: Draft, site: str, p_show_url: float) -> None:
    """Route the call to action through a bulk-mail click tracker (as real campaigns do)."""
    rng = d.rng
    prefix = rng.choice(("click", "links", "email", f"u{_digits(rng, 4)}"))
    tracker = f"{prefix}.{rng.choice(ESP_DOMAINS)}"
    d.cta_href = f"https://{tracker}/ls/click?upn={token(rng, 24)}"
    d.use("click_tracking")
    if d.mode != "plain" and _chance(rng, p_show_url):
        d.cta_text = f"www.{registered_domain(site)}"
        d.use("tracking_anchor_shows_site")


def _plan_receipt(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, SHOP_BRANDS, 0.4)
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.3, soft=0.15)
    site = registered_domain(host)
    segment = "invoices" if d.template.variant == 2 else "orders"
    d.cta_href = _url(f"www.{site}", rng, segment, token(rng, 8))
    if _chance(rng, 0.06):
        helpdesk = rng.choice(("zendesk.com", "freshdesk.com", "helpscoutapp.com"))
        d.reply_to = f"support@{site.split('.')[0]}.{helpdesk}"
        d.use("helpdesk_reply_to")
    if d.brand is None and _chance(rng, 0.04):
        d.sender_name = f"{name} via {rng.choice(('eBay', 'Amazon Marketplace', 'PayPal'))}"
        d.use("marketplace_display_name")
    if _chance(rng, 0.4):
        d.attachments.append(_pdf(f"{d.fields['invoice']}.pdf"))
    elif _chance(rng, 0.05):
        d.attachments.append(_risky_attachment(d, "Statement_{code}.html"))
    _legit_layout(d, html_only=0.45, plain=0.15)
    _legit_footer(d, site)
    _greet(d, 0.65)
    _org_signature(d, name)


def _plan_password_reset(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, ACCOUNT_BRANDS[d.template.language], 0.75)
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.1 if d.brand else 0.25, soft=0.15)
    site = registered_domain(host)
    if d.template.cta:
        account_host = rng.choice((f"www.{site}", f"account.{site}", f"accounts.{site}"))
        d.cta_href = _url(account_host, rng, "security" if d.template.variant else "reset")
    _legit_layout(d, html_only=0.4, plain=0.2)
    _legit_footer(d, site)
    _greet(d, 0.6)
    _org_signature(d, name)


def _plan_shipping(d: Draft) -> None:
    rng = d.rng
    carrier = rng.choice(CARRIERS[d.template.language])
    d.fields["carrier"] = BRAND_NAMES[carrier]
    shop, shop_host = _brand_or_shop(d, ("amazon", "ebay", "apple"), 0.4)
    d.fields["brand"] = shop
    if d.template.variant == 1:
        d.brand = carrier
        name, host = BRAND_NAMES[carrier], _brand_sender_host(carrier, rng, d.template.language)
        d.techniques = [t for t in d.techniques if t != "small_sender"]
    else:
        name, host = shop, shop_host
    _legit_sender(d, name, host, esp=0.3, soft=0.2)
    _legit_layout(d, html_only=0.4, plain=0.25)
    track_site = _main_domain(carrier)
    d.cta_href = _url(f"www.{track_site}", rng, "tracking", d.fields["tracking"])
    roll = rng.random()
    if roll < 0.1:
        d.cta_href = shortener_url(rng)
        d.use("url_shortener")
    elif roll < 0.22:
        _click_tracking(d, track_site, 0.6)
    _legit_footer(d, registered_domain(host))
    _greet(d, 0.6)
    _org_signature(d, name)


def _plan_newsletter(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, NEWSLETTER_BRANDS, 0.35)
    if d.brand is None and _chance(rng, 0.04):
        label = host.split(".")[0]
        host = f"{label}.{rng.choice(('xyz', 'work', 'click', 'top'))}"
        d.use("risky_tld")
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.75, soft=0.15)
    _legit_layout(d, html_only=0.65, plain=0.0)
    site = registered_domain(host)
    if _chance(rng, 0.55):
        _click_tracking(d, site, 0.25)
    else:
        d.cta_href = _url(f"www.{site}", rng, "newsletter", str(d.sent.year), token(rng, 6))
    _legit_footer(d, site)
    if _chance(rng, 0.12):
        d.footer.append(("Instagram", shortener_url(rng)))
        d.use("url_shortener")
    if d.mode != "plain" and _chance(rng, 0.12):
        pad = "\u200c\u00a0" * rng.randint(8, 30)
        d.preheader = f"{d.template.subject.split(':')[0].format(**d.fields)} {pad}"
        d.use("preheader_padding")
    if d.mode != "plain" and _chance(rng, 0.03):
        d.form_action = _url(f"survey.{site}", rng, "vote")
        d.use("survey_form")
    d.list_unsubscribe = f"<{_url(f'www.{site}', rng, 'unsubscribe')}>"
    _greet(d, 0.4)
    _org_signature(d, name)


def _plan_calendar_invite(d: Draft) -> None:
    rng = d.rng
    d.fields["sender_name"] = d.person.full
    kind = _pick(rng, (("colleague", 0.7), ("calendar_service", 0.2), ("partner", 0.1)))
    d.use(f"sender_{kind}")
    if kind == "calendar_service":
        _set_sender(d, "Google Calendar", "calendar-notification@google.com")
    else:
        domain = d.company[1] if kind == "colleague" else _other_company(d)[1]
        _set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
    _soften_auth(d, spf=0.03, dkim=0.15)
    if d.template.cta:
        d.cta_href = rng.choice(
            (
                f"https://zoom.us/j/{_digits(rng, 10)}?pwd={token(rng, 12)}",
                f"https://teams.microsoft.com/l/meetup-join/{token(rng, 24)}",
                f"https://meet.google.com/{token(rng, 3).lower()}-{token(rng, 4).lower()}",
            )
        )
    d.attachments.append(_ics(d, description=d.cta_href))
    d.mode = _pick(rng, (("plain", 0.4), ("alternative", 0.6)))
    _greet(d, 0.7)
    _person_signature(d)


def _plan_internal_memo(d: Draft) -> None:
    rng = d.rng
    if _chance(rng, 0.2):
        _set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{_free_mail(rng)}")
        d.use("sender_freemail")
        if _chance(rng, 0.5):
            d.reply_to = f"{d.person.local_part(rng)}@{d.company[1]}"
            d.use("reply_to_work_address")
    else:
        _set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{d.company[1]}")
        d.use("sender_colleague")
    _soften_auth(d, spf=0.1, dkim=0.15, dmarc=0.04)
    roll = rng.random()
    if d.template.variant == 1 and roll < 0.5:
        d.cta_href = rng.choice(
            (
                f"https://drive.google.com/drive/folders/{token(rng, 20)}",
                _url(f"intranet.{d.company[1]}", rng, "teams", "notes"),
            )
        )
    elif roll < 0.07:
        host = f"10.{rng.randint(0, 40)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
        d.cta_href = f"http://{host}:8080/wiki/{d.fields['topic']}"
        d.use("intranet_ip_link")
    if d.template.variant == 2:
        d.attachments.append(_pdf(f"{d.fields['invoice']}.pdf"))
    if _chance(rng, 0.07):
        name = rng.choice(
            ("Budget_{topic}.xlsm", "Timesheet_{topic}.xlsm", "Template_{topic}.docm")
        )
        d.attachments.append(_risky_attachment(d, name))
        d.use("macro_spreadsheet")
    d.mode = "plain" if _chance(rng, 0.75) else "alternative"
    d.cta_text = d.cta_text or d.cta_href
    _greet(d, 0.85)
    _same_domain_reply_to(d, 0.1)
    _person_signature(d, mobile=_chance(rng, 0.25))


def _site_footer(d: Draft, site: str) -> list[tuple[str, str]]:
    help_word, privacy_word = _FOOTER_WORDS[d.template.language]
    return [(help_word, f"https://{site}/help"), (privacy_word, f"https://{site}/privacy")]


def _legit_footer(d: Draft, site: str) -> None:
    if _chance(d.rng, 0.6):
        d.footer = _site_footer(d, f"www.{site}")


# ---------------------------------------------------------------------------- ics
def _ics(d: Draft, *, description: str = "", organizer: str = "") -> MailAttachment:
    start = (d.sent + timedelta(days=d.rng.randint(1, 10))).astimezone(UTC)
    start = start.replace(hour=d.rng.randint(7, 16), minute=0, second=0, microsecond=0)
    stamp = "%Y%m%dT%H%M%SZ"
    organizer = organizer or d.sender_address or f"{d.person.local_part(d.rng)}@{d.company[1]}"
    lines = [
        "BEGIN:VCALENDAR",
        "PRODID:-//Security Verifiers//Synthetic Calendar//EN",
        "VERSION:2.0",
        "METHOD:REQUEST",
        "BEGIN:VEVENT",
        f"UID:{token(d.rng, 16)}@{domain_of(organizer)}",
        f"DTSTAMP:{d.sent.astimezone(UTC).strftime(stamp)}",
        f"DTSTART:{start.strftime(stamp)}",
        f"DTEND:{(start + timedelta(minutes=d.rng.choice((30, 45, 60)))).strftime(stamp)}",
        f"SUMMARY:{d.fields['event_title'] or d.fields['doc_title']}",
        f"ORGANIZER;CN={d.person.full}:mailto:{organizer}",
        f"ATTENDEE;CN={d.recipient.full};RSVP=TRUE:mailto:{d.recipient_address}",
        f"LOCATION:{d.fields['location']}",
    ]
    if description:
        lines.append(f"DESCRIPTION:{description}")
    lines += ["END:VEVENT", "END:VCALENDAR", ""]
    return MailAttachment("invite.ics", "text", "calendar", "\n".join(lines), {"method": "REQUEST"})


# ---------------------------------------------------------------------------- data-file scenarios
_DOC_MIME = {
    "pdf": ("application", "pdf"), "docx": ("application", "vnd.openxmlformats-officedocument"
    ".wordprocessingml.document"), "xlsx": ("application", "vnd.openxmlformats-officedocument"
    ".spreadsheetml.sheet"), "zip": ("application", "zip"),
}  # fmt: skip
_HR_IT_SENDERS = {
    "en": ("HR Team", "People Operations", "IT Service Desk", "Facilities", "Payroll",
           "Internal Communications"),
    "es": ("Recursos Humanos", "Soporte IT"), "de": ("Personalabteilung", "IT-Service"),
    "fr": ("Ressources humaines", "Support informatique"), "pt": ("Recursos Humanos", "Suporte TI"),
}  # fmt: skip
_LURE_SENDERS = ("Voicemail", "Fax Service", "HR Department", "Payroll", "IT Helpdesk",
                 "Mail Administrator", "Accounts", "Document Center", "Notifications")  # fmt: skip


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


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _draw_text(rng: Random, template: Template, fields: dict[str, str]) -> tuple[Template, str]:
    """A data-file template with one alternative drawn per slot, filled and styled."""
    spec = template.spec or {}
    subject = rng.choice(alternatives(spec["subject"])).format_map(fields)
    paragraphs = [rng.choice(alternatives(slot)).format_map(fields) for slot in spec["body"]]
    body = "\n\n".join(p for p in paragraphs if p)
    phishing = template.scenario in PHISHING_SCENARIOS
    body, style = _style(rng, body, phishing)
    if style == "all_caps" and _chance(rng, 0.5):
        subject = subject.upper()
    return replace(template, subject=_escape(subject), body=_escape(body)), style


def _quote(d: Draft, *, name: str) -> None:
    """Earlier mail below the signature: a reply's quoted message or a forwarded one."""
    spec, rng = d.template.spec or {}, d.rng
    lines = [str(line).format_map(d.fields) for line in spec.get("quote", ())]
    if not lines:
        return
    kind = spec.get("thread") or "reply"
    headers = _EXTRAS["quote_headers"][d.template.language][kind]
    earlier = d.sent - timedelta(hours=rng.randint(2, 200))
    clock = _format_time(earlier.hour, earlier.minute, d.locale)
    head = rng.choice(headers).format(
        quote_name=name,
        quote_date=f"{_format_date(earlier, d.locale)} {clock}",
        quote_subject=d.template.subject.format_map(d.fields).split(":", 1)[-1].strip(),
    )
    text = "\n\n".join(lines)
    if kind == "reply" and _chance(rng, 0.6):
        text = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    d.trailer.append(
        f"{head}\n\n{text}" if "\n" in head or kind == "forward" else f"{head}\n{text}"
    )
    d.use(f"quoted_{kind}")


def _disclaimer(d: Draft, p: float) -> None:
    if _chance(d.rng, p):
        d.trailer.append(d.rng.choice(_EXTRAS["disclaimers"][d.template.language]))
        d.use("disclaimer")


def _doc_attachment(name: str) -> MailAttachment:
    ext = name.rpartition(".")[2].lower()
    if ext == "pdf":
        return _pdf(name)
    maintype, subtype = _DOC_MIME.get(ext, ("application", "octet-stream"))
    return MailAttachment(name, maintype, subtype, b"PK\x03\x04 synthetic placeholder\n")


def _template_attachments(d: Draft, p: float, *, risky: bool) -> None:
    patterns = (d.template.spec or {}).get("attach") or ()
    if patterns and _chance(d.rng, p):
        name = d.rng.choice(patterns).format_map(d.fields)
        name = name.replace("/", "-").replace(":", "")
        if risky:
            d.attachments.append(_risky_attachment(d, _escape(name)))
        else:
            d.attachments.append(_doc_attachment(name))


def _casual_greeting(d: Draft, p_personal: float, p_none: float) -> None:
    if _chance(d.rng, p_none):
        d.greeting = ""
        d.use("no_greeting")
    else:
        _greet(d, p_personal)


def _plain_or_html(d: Draft, plain: float) -> None:
    d.mode = "plain" if _chance(d.rng, plain) else d.rng.choice(("alternative", "html"))
    if d.mode == "html":
        d.use("html_only")


def _lure_person_sender(d: Draft, weights: tuple[tuple[str, float], ...]) -> str:
    rng = d.rng
    kind = _pick(rng, weights)
    d.use(f"sender_{kind}")
    if kind == "freemail":
        domain = _free_mail(rng)
    elif kind == "company_lookalike":
        domain = company_lookalike(rng.choice((d.company, d.supplier))[1], rng)
        d.use("company_lookalike_domain")
    elif kind == "supplier_lookalike":
        domain = company_lookalike(d.supplier[1], rng)
        d.use("company_lookalike_domain")
    elif kind == "compromised":
        domain = _other_company(d)[1]
    else:
        domain = attacker_domain(rng, _attacker_tld(d, 0.3))
    return domain


def _plan_text_lure(d: Draft) -> None:
    """Link-less text: call a number, reply to me, claim money, pay in bitcoin."""
    rng, spec = d.rng, DATA_SCENARIOS[d.template.scenario]
    free = spec.get("freemail", 0.5)
    domain = _lure_person_sender(
        d, (("freemail", free), ("compromised", (1 - free) / 2), ("attacker", (1 - free) / 2))
    )
    if _chance(rng, 0.6):
        name = d.person.full
        local = d.person.local_part(rng) + (_digits(rng, 2) if _chance(rng, 0.4) else "")
    else:
        name = rng.choice(d.locale.service_senders)
        local = rng.choice(("info", "support", "billing", "service", "office"))
    _set_sender(d, name, f"{local}@{domain}")
    if not domain.endswith(tuple(FREE_MAIL)) and _chance(rng, 0.4):
        d.reply_to = f"{d.person.local_part(rng)}{_digits(rng, 2)}@{_free_mail(rng)}"
        d.use("reply_to_freemail")
    _soften_auth(d, spf=0.1, dkim=0.15, dmarc=0.05)
    _plain_or_html(d, 0.75)
    _casual_greeting(d, 0.3, 0.35)
    if name == d.person.full:
        _person_signature(d, mobile=_chance(rng, 0.2))
        if _chance(rng, 0.3):
            d.signature = [d.signature[0]]
    else:
        _org_signature(d, name)
    _disclaimer(d, 0.05)


def _plan_person_lure(d: Draft) -> None:
    """BEC: bank-detail change, payroll redirection, a confidential wire."""
    rng = d.rng
    domain = _lure_person_sender(
        d, (("freemail", 0.35), ("company_lookalike", 0.35), ("compromised", 0.3))
    )
    name = d.person.full
    if _chance(rng, 0.1):
        name = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("display_name_address")
    _set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.8, reply_to=0.3)
    _casual_greeting(d, 0.7, 0.3)
    _person_signature(d, executive=_chance(rng, 0.3), mobile=_chance(rng, 0.35))
    _disclaimer(d, 0.15)


def _plan_thread_lure(d: Draft) -> None:
    """A reply or forward in a thread from a compromised or look-alike partner mailbox."""
    rng = d.rng
    domain = _lure_person_sender(
        d, (("compromised", 0.5), ("supplier_lookalike", 0.3), ("freemail", 0.2))
    )
    _set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
    if d.template.cta:
        _phish_link(d, None, domain)
        d.cta_text = d.template.cta
    _template_attachments(d, 1.0 if not d.template.cta else 0.3, risky=True)
    _person_lure_common(d, plain=0.6, reply_to=0.15)
    _casual_greeting(d, 0.6, 0.4)
    _person_signature(d, mobile=_chance(rng, 0.2))
    _disclaimer(d, 0.2)
    _quote(d, name=d.recipient.full)


def _plan_attachment_lure(d: Draft) -> None:
    """Voicemail, fax, e-signature, remittance: the payload is the attachment."""
    rng = d.rng
    domain = _lure_person_sender(d, (("attacker", 0.4), ("compromised", 0.4), ("freemail", 0.2)))
    if _chance(rng, 0.5):
        _set_sender(
            d,
            rng.choice(_LURE_SENDERS),
            f"{rng.choice(('noreply', 'voicemail', 'scanner', 'docs'))}@{domain}",
        )
        _org_signature(d, d.sender_name)
    else:
        _set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
        _person_signature(d)
    _template_attachments(d, 1.0, risky=True)
    _soften_auth(d, spf=0.12, dkim=0.15, dmarc=0.06)
    _plain_or_html(d, 0.5)
    _casual_greeting(d, 0.3, 0.5)
    _disclaimer(d, 0.1)


def _plan_linked_lure(d: Draft) -> None:
    """Mailbox quota, password expiry, customs fee, payroll portal: a link, often no brand."""
    rng = d.rng
    brand = rng.choice(WORKPLACE_BRANDS) if _chance(rng, 0.25) else None
    _plan_brand_lure(d, brand, form=0.08, risky_file=0.06)
    if brand is None and _chance(rng, 0.5):
        d.sender_name = rng.choice((*_LURE_SENDERS, f"{d.company[0]} IT", f"{d.company[0]} HR"))
        d.signature = [d.signature[0], d.sender_name]
    if _chance(rng, 0.3):
        d.greeting = ""
        d.use("no_greeting")


def _legit_person(d: Draft, domain: str) -> None:
    _set_sender(d, d.person.full, f"{d.person.local_part(d.rng)}@{domain}")


def _legit_common(d: Draft, *, plain: float, greet_none: float, disclaimer: float) -> None:
    rng = d.rng
    _soften_auth(d, spf=0.15, dkim=0.15, dmarc=0.03)
    if _chance(rng, 0.1):
        _esp_return_path(d)  # sent through a CRM or a mailing tool
    _plain_or_html(d, plain)
    _casual_greeting(d, 0.75, greet_none)
    _person_signature(d, mobile=_chance(rng, 0.2))
    if _chance(rng, 0.3):
        d.signature = [d.person.first] if _chance(rng, 0.5) else [d.signature[0], d.person.first]
    _disclaimer(d, disclaimer)
    _same_domain_reply_to(d, 0.05)


def _plan_colleague(d: Draft) -> None:
    """Internal business mail: threads, status, drafts, numbers, forwards, short notes."""
    rng = d.rng
    kind = _pick(rng, (("colleague", 0.75), ("partner", 0.15), ("freemail", 0.1)))
    d.use(f"sender_{kind}")
    domain = {"colleague": d.company[1], "partner": _other_company(d)[1]}.get(kind)
    _legit_person(d, domain or _free_mail(rng))
    if kind == "freemail" and _chance(rng, 0.5):
        d.reply_to = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("reply_to_work_address")
    _template_attachments(d, 0.55, risky=False)
    if _chance(rng, 0.04):
        d.attachments.append(_risky_attachment(d, "{topic}_model.xlsm"))
        d.use("macro_spreadsheet")
    if _chance(rng, 0.12):
        d.cta_href = rng.choice((
            f"https://drive.google.com/file/d/{token(rng, 22)}/view",
            _url(f"intranet.{d.company[1]}", rng, "sites", d.fields["topic"].lower()),
            f"https://{d.company[1]}/docs/{token(rng, 8)}",
        ))  # fmt: skip
        d.cta_text = d.cta_href
    _legit_common(d, plain=0.7, greet_none=0.45, disclaimer=0.25)
    _quote(d, name=d.recipient.full if (d.template.spec or {}).get("thread") == "reply"
           else d.fields["colleague"])  # fmt: skip


def _plan_partner(d: Draft) -> None:
    rng = d.rng
    if _chance(rng, 0.5):
        name, host = rng.choice(d.locale.shops + d.locale.companies)
        d.use("small_sender")
        d.fields["brand"] = name
        _legit_sender(d, name, host, esp=0.35, soft=0.15)
        _org_signature(d, name)
        _plain_or_html(d, 0.3)
        _casual_greeting(d, 0.7, 0.2)
    else:
        _legit_person(d, rng.choice((d.company[1], _other_company(d)[1])))
        _legit_common(d, plain=0.7, greet_none=0.4, disclaimer=0.2)
    _template_attachments(d, 0.5, risky=False)
    _quote(d, name=d.recipient.full)


def _plan_vendor(d: Draft) -> None:
    """Real invoices, statements and reminders from the company's supplier."""
    rng = d.rng
    supplier_name, domain = d.supplier
    if _chance(rng, 0.5):
        local = rng.choice(("accounts", "billing", "invoices", "ar"))
        name = rng.choice((supplier_name, f"{supplier_name} Accounts"))
        _set_sender(d, name, f"{local}@{domain}")
        if _chance(rng, 0.25):
            _esp_return_path(d)
        _soften_auth(d, spf=0.1, dkim=0.1, dmarc=0.02)
        _plain_or_html(d, 0.45)
        _casual_greeting(d, 0.6, 0.15)
        _org_signature(d, supplier_name)
        _disclaimer(d, 0.2)
    else:
        _legit_person(d, domain)
        _legit_common(d, plain=0.75, greet_none=0.3, disclaimer=0.2)
    _template_attachments(d, 0.85, risky=False)
    _quote(d, name=d.recipient.full)


def _plan_company(d: Draft) -> None:
    """HR and IT announcements from the recipient's own organisation."""
    rng = d.rng
    if _chance(rng, 0.6):
        names = _HR_IT_SENDERS.get(d.template.language, _HR_IT_SENDERS["en"])
        name = rng.choice(names)
        _set_sender(
            d, name, f"{rng.choice(('hr', 'it', 'servicedesk', 'announce', 'info'))}@{d.company[1]}"
        )
        if _chance(rng, 0.3):
            _esp_return_path(d)
        _soften_auth(d, spf=0.05, dkim=0.08)
        _plain_or_html(d, 0.45)
        _casual_greeting(d, 0.2, 0.3)
        _org_signature(d, name)
    else:
        _legit_person(d, d.company[1])
        _legit_common(d, plain=0.6, greet_none=0.3, disclaimer=0.1)
    if _chance(rng, 0.25):
        d.cta_href = _url(f"intranet.{d.company[1]}", rng, rng.choice(("hr", "it", "news")))
        d.cta_text = d.cta_href


def _plan_service(d: Draft) -> None:
    """Customer-support replies from a brand or a small shop."""
    rng = d.rng
    name, host = _brand_or_shop(d, ACCOUNT_BRANDS[d.template.language], 0.5)
    d.fields["brand"] = name
    agent = d.person.first
    _set_sender(d, rng.choice((f"{agent} ({name} Support)", f"{name} Support", name)),
                f"{rng.choice(('support', 'help', 'care'))}@{host}")  # fmt: skip
    if _chance(rng, 0.3):
        helpdesk = rng.choice(("zendesk.com", "freshdesk.com", "helpscoutapp.com"))
        d.reply_to = f"support@{registered_domain(host).split('.')[0]}.{helpdesk}"
        d.use("helpdesk_reply_to")
    if _chance(rng, 0.2):
        _esp_return_path(d)
    _soften_auth(d, spf=0.08 if "small_sender" in d.techniques else 0.02, dkim=0.08)
    _plain_or_html(d, 0.4)
    _casual_greeting(d, 0.8, 0.1)
    d.signature = [rng.choice(d.locale.signoffs), f"{agent}\n{name}"]
    _quote(d, name=d.recipient.full)


def _plan_list(d: Draft) -> None:
    """Mailing-list traffic: a member posts, the list sets Reply-To and List-Unsubscribe."""
    rng = d.rng
    domain = rng.choice((_free_mail(rng), _other_company(d)[1], d.company[1]))
    _legit_person(d, domain)
    list_host = f"lists.{rng.choice((d.company, _other_company(d)))[1]}"
    if _chance(rng, 0.6):
        d.reply_to = f"{d.fields['list_name']}@{list_host}"
        d.use("list_reply_to")
    d.return_path = f"{d.fields['list_name']}-bounces@{list_host}"
    d.list_unsubscribe = f"<mailto:{d.fields['list_name']}-leave@{list_host}>"
    _soften_auth(d, spf=0.15, dkim=0.25)
    _plain_or_html(d, 0.85)
    _casual_greeting(d, 0.2, 0.6)
    _person_signature(d)
    if _chance(rng, 0.5):
        d.signature = [d.person.first]
    _quote(d, name=rng.choice(d.locale.first_names))
    name = d.fields["list_name"]
    d.trailer.append(f"{'_' * 47}\n{name} mailing list\n{name}@{list_host}")


def _plan_personal(d: Draft) -> None:
    rng = d.rng
    domain = _free_mail(rng) if _chance(rng, 0.6) else d.company[1]
    _legit_person(d, domain)
    _soften_auth(d, spf=0.05, dkim=0.05)
    _plain_or_html(d, 0.7)
    _casual_greeting(d, 0.8, 0.5)
    d.signature = [
        rng.choice(
            (
                d.person.first,
                d.person.first[0],
                f"{rng.choice(d.locale.signoffs)}\n{d.person.first}",
            )
        )
    ]
    if _chance(rng, 0.25):
        d.signature.append(d.locale.mobile_signature)
    if _chance(rng, 0.3):
        d.attachments.append(_doc_attachment(f"IMG_{_digits(rng, 4)}.jpg"))
    _quote(d, name=d.recipient.full)


_DATA_PLANNERS = {
    "text_lure": _plan_text_lure,
    "person_lure": _plan_person_lure,
    "thread_lure": _plan_thread_lure,
    "attachment_lure": _plan_attachment_lure,
    "linked_lure": _plan_linked_lure,
    "colleague": _plan_colleague,
    "partner": _plan_partner,
    "vendor": _plan_vendor,
    "company": _plan_company,
    "service": _plan_service,
    "list": _plan_list,
    "personal": _plan_personal,
}


_PLANNERS = {
    "credential_harvest": _plan_credential_harvest,
    "invoice_fraud": _plan_invoice_fraud,
    "delivery_notice": _plan_delivery_notice,
    "ceo_fraud_bec": _plan_executive_lure,
    "mfa_reset_lure": _plan_mfa_reset,
    "tech_support": _plan_tech_support,
    "gift_card": _plan_executive_lure,
    "receipt": _plan_receipt,
    "password_reset": _plan_password_reset,
    "shipping": _plan_shipping,
    "newsletter": _plan_newsletter,
    "calendar_invite": _plan_calendar_invite,
    "internal_memo": _plan_internal_memo,
} | {name: _DATA_PLANNERS[entry["plan"]] for name, entry in DATA_SCENARIOS.items()}


# ---------------------------------------------------------------------------- assembly
def _build(template: Template, round_: int, seed: int) -> EmailRecord:
    rng = Random(f"{GENERATOR_VERSION}|{seed}|{template.key}|{round_}")
    loc = LOCALES[template.language]
    offset = timedelta(hours=rng.choice(_TZ_HOURS[template.language]))
    sent = (_EPOCH + timedelta(seconds=rng.randrange(540 * 86_400))).astimezone(timezone(offset))
    people = [Person(rng.choice(loc.first_names), rng.choice(loc.last_names)) for _ in range(2)]
    if people[0] == people[1]:
        people[1] = Person(people[1].first, rng.choice(loc.last_names[:1] + loc.last_names[2:]))
    company, supplier = rng.sample(loc.companies, 2)
    fields = _fields(rng, template, loc, sent)
    fields |= {"company": company[0], "supplier": supplier[0], "sender_name": people[0].full}
    third = Person(rng.choice(loc.first_names), rng.choice(loc.last_names))
    fields |= {
        "first": people[1].first,
        "colleague": third.full,
        "sender_first": people[0].first,
        "supplier_short": "".join(ch for ch in supplier[0].split()[0] if ch.isalnum()),
    }
    style = ""
    if template.spec is not None:
        template, style = _draw_text(rng, template, fields)
    recipient = people[1]
    workplace = template.scenario in PERSONAL_SCENARIOS or template.scenario in (
        "mfa_reset_lure", "invoice_fraud",
    )  # fmt: skip
    mailbox = company[1] if workplace or _chance(rng, 0.5) else _free_mail(rng)
    draft = Draft(
        template=template,
        locale=loc,
        rng=rng,
        sent=sent,
        person=people[0],
        recipient=recipient,
        recipient_address=f"{recipient.local_part(rng)}@{mailbox}",
        company=company,
        supplier=supplier,
        fields=fields,
    )
    _PLANNERS[template.scenario](draft)
    raw, planted = render(draft)
    phishing = template.scenario in PHISHING_SCENARIOS
    index = round_ * (3 if template.spec is None else 100) + template.variant
    if style:
        draft.use(f"style_{style}")
    meta: dict[str, Any] = {
        "planted": planted,
        "template": template.key,
        "techniques": list(draft.techniques),
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "brand": draft.brand,
    }
    return EmailRecord(
        id=f"synth-{template.scenario}-{template.language}-{index:04d}",
        raw=raw,
        label=PHISHING if phishing else LEGITIMATE,
        source=SOURCE,
        scenario=template.scenario,
        group=template.group,
        language=template.language,
        meta=meta,
    )


def generate_corpus(n: int = 2000, seed: int = 42) -> list[EmailRecord]:
    """`n` synthetic emails (n // 2 phishing, the rest legitimate), shuffled by `seed`.

    Deterministic: the same (n, seed) always gives the same records in the same order.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    records = []
    for scenarios, count in ((PHISHING_SCENARIOS, n // 2), (LEGITIMATE_SCENARIOS, n - n // 2)):
        order = templates_for(scenarios)
        for i in range(count):
            records.append(_build(order[i % len(order)], i // len(order), seed))
    Random(f"shuffle|{seed}").shuffle(records)
    return records
