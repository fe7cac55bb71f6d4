"""Planners of the phishing scenarios: each one fills a `mime.Draft` for its template.

Brand lures (credential harvest, delivery notice, MFA reset, invoice, tech support, linked lures)
choose how the attacker sends (look-alike, spoofed, compromised, free-mail or attacker domain),
where the link goes and which HTML and attachment tricks it uses; person lures (CEO fraud, gift
cards, supplier bank-detail changes, text, thread and attachment lures) are often plain text
without links and pass authentication. The shared pieces are in `draft_parts`.
"""

from __future__ import annotations

from random import Random

from sv_env_phishing_detection import draft_parts as parts
from sv_env_phishing_detection.brands import LEGITIMATE_DOMAINS
from sv_env_phishing_detection.campaigns import (
    ACCOUNT_BRANDS,
    BRAND_NAMES,
    CARRIERS,
    DATA_SCENARIOS,
    WORKPLACE_BRANDS,
)
from sv_env_phishing_detection.draft_fields import chance, digits
from sv_env_phishing_detection.mime import Draft, ascii_name, domain_of, same_organisation
from sv_env_phishing_detection.obfuscation import (
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
from sv_shared.sampling import weighted_pick as _pick

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
_LURE_SENDERS = ("Voicemail", "Fax Service", "HR Department", "Payroll", "IT Helpdesk",
                 "Mail Administrator", "Accounts", "Document Center", "Notifications")  # fmt: skip


# ---------------------------------------------------------------------------- look-alikes
def _lookalike(d: Draft, brand: str) -> tuple[str, str]:
    """(domain as written in links, domain as written in addresses) imitating `brand`."""
    rng, main = d.rng, parts.main_domain(brand)
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
    if chance(d.rng, risky):
        d.use("risky_tld")
        return d.rng.choice(RISKY_TLDS)
    return d.rng.choice(SAFE_TLDS)


# ---------------------------------------------------------------------------- brand lures
def _brand_display(brand: str, rng: Random) -> str:
    name = BRAND_NAMES[brand]
    return rng.choice((name, name, f"{name} Support", f"{name} Security", f"{name} Service"))


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
        domain = parts.main_domain(brand)
        d.auth = {"spf": rng.choice(("fail", "softfail")), "dkim": rng.choice(("none", "fail")),
                  "dmarc": "fail"}  # fmt: skip
        d.use("spoofed_brand_domain")
    elif strategy == "compromised":
        domain = parts.other_company(d)[1]
    elif strategy == "freemail":
        domain = parts.free_mail(rng, brand)
        local = f"{(brand or 'support')}.{rng.choice(('help', 'team', 'desk'))}{digits(rng, 2)}"
    else:
        domain = attacker_domain(rng, _attacker_tld(d, 0.4))
    roll = rng.random()
    if brand and roll < 0.65:
        name = _brand_display(brand, rng)
    elif brand and roll < 0.8:
        name = f"{local}@{parts.main_domain(brand)}"
        d.use("display_name_address")
    else:
        name = rng.choice(loc.service_senders)
    parts.set_sender(d, name, f"{local}@{domain}")
    if strategy == "spoofed":
        d.return_path = f"bounce@{attacker_domain(rng, _attacker_tld(d, 0.3))}"
        return registered_domain(domain_of(d.return_path))
    if chance(rng, 0.15):
        parts.esp_return_path(d)
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
        href = parts.url(rng.choice((shown, f"www.{shown}", f"login.{shown}")), rng, path)
    elif kind == "ip":
        href = f"http://{ip_host(rng)}/{brand or 'secure'}/{path}"
        d.use("ip_host")
    elif kind == "shortener":
        href = shortener_url(rng)
        d.use("url_shortener")
    elif kind == "userinfo" and brand:
        host = attacker_domain(rng, _attacker_tld(d, 0.4))
        href = userinfo_url(f"www.{parts.main_domain(brand)}", host, f"/{path}")
        d.use("userinfo_url")
    elif kind == "subdomains":
        href = parts.url(
            subdomain_chain(attacker_domain(rng, _attacker_tld(d, 0.4)), rng), rng, path
        )
        d.use("many_subdomains")
    elif kind == "same_as_sender" and sender_domain not in LEGITIMATE_DOMAINS | set(FREE_MAIL):
        href = parts.url(f"www.{sender_domain}", rng, path)
    elif kind == "compromised_site":
        href = parts.url(
            parts.other_company(d)[1], rng, "wp-content", "uploads", token(rng, 6), path
        )
        d.use("compromised_site")
    else:
        href = parts.url(attacker_domain(rng, _attacker_tld(d, 0.4)), rng, path)
    d.cta_href = href


def _phish_html_tricks(d: Draft, brand: str | None, form: float) -> None:
    rng = d.rng
    if d.cta_href and brand and chance(rng, 0.4):
        shown = f"www.{parts.main_domain(brand)}"
        d.cta_text = rng.choice((shown, f"https://{shown}/{rng.choice(('signin', 'account'))}"))
        d.use("anchor_text_mismatch")
    if d.cta_href and chance(rng, form):
        d.form_action = d.cta_href
        d.use("html_password_form")
    if brand and chance(rng, 0.35):
        d.footer = parts.site_footer(d, f"www.{parts.main_domain(brand)}")
        d.use("copied_brand_footer")
    needs_html = bool(d.form_action) or "anchor_text_mismatch" in d.techniques
    mode = _pick(rng, (("plain", 0.0 if needs_html else 0.3), ("html", 0.4), ("alternative", 0.3)))
    d.mode = mode
    if mode == "html":
        d.use("html_only")


def _phish_extras(d: Draft, brand: str | None, risky_file: float) -> None:
    rng = d.rng
    if chance(rng, 0.22):
        d.zero_width = rng.randint(2, 4)
        d.zero_width_subject = chance(rng, 0.5)
        d.use("zero_width_chars")
    if chance(rng, 0.18):
        local = f"{ascii_name(d.sender_name) or 'help'}{digits(rng, 3)}"
        free = parts.free_mail(rng)
        if same_organisation(free, domain_of(d.sender_address)):  # outlook.com vs microsoft.com
            free = parts.free_mail(rng, brand)
        d.reply_to = f"{local}@{free}"
        d.use("reply_to_freemail")
    else:
        parts.same_domain_reply_to(d, 0.12)
    if chance(rng, risky_file):
        patterns = _RISKY_LURE_FILES.get(d.template.scenario, _DEFAULT_RISKY_FILES)
        d.attachments.append(parts.risky_attachment(d, rng.choice(patterns)))
    if "spoofed_brand_domain" not in d.techniques:
        parts.soften_auth(d, spf=0.12, dkim=0.12, dmarc=0.08)
    if chance(rng, 0.2):
        d.list_unsubscribe = f"<{parts.url(domain_of(d.return_path), rng, 'unsubscribe')}>"


def _plan_brand_lure(d: Draft, brand: str | None, *, form: float, risky_file: float) -> None:
    if brand:
        d.brand = brand
        d.fields["brand"] = BRAND_NAMES[brand]
    sender_domain = _phish_sender(d, brand)
    if d.template.cta:
        _phish_link(d, brand, sender_domain)
    _phish_html_tricks(d, brand, form)
    _phish_extras(d, brand, risky_file)
    parts.greet(d, 0.45)
    parts.org_signature(d, d.fields["brand"] or d.sender_name)
    d.cta_first = chance(d.rng, 0.3)


def plan_credential_harvest(d: Draft) -> None:
    brand = d.rng.choice(ACCOUNT_BRANDS[d.template.language])
    _plan_brand_lure(d, brand, form=0.15, risky_file=0.1)
    if d.template.variant == 2 and chance(d.rng, 0.25):
        d.attachments.append(parts.ics(d, description=d.cta_href))
        d.use("calendar_lure")


def plan_delivery_notice(d: Draft) -> None:
    brand = d.rng.choice(CARRIERS[d.template.language])
    _plan_brand_lure(d, brand, form=0.05, risky_file=0.12)


def plan_mfa_reset(d: Draft) -> None:
    brand = d.rng.choice(WORKPLACE_BRANDS) if d.template.variant == 1 else "microsoft"
    _plan_brand_lure(d, brand, form=0.15, risky_file=0.08)
    if (
        d.template.variant != 1
        and "display_name_address" not in d.techniques
        and chance(d.rng, 0.4)
    ):
        d.sender_name = d.rng.choice(("IT Service Desk", "IT Helpdesk", f"{d.company[0]} IT"))


def plan_invoice_fraud(d: Draft) -> None:
    if d.template.variant == 1:
        _plan_supplier_fraud(d)
        return
    brand = d.rng.choice(("docusign", "adobe", "dropbox", "microsoft", "paypal", None, None))
    _plan_brand_lure(d, brand, form=0.05, risky_file=0.3)
    if not brand:
        d.sender_name = d.fields["supplier"]
    if not any(a.filename.endswith(".pdf") for a in d.attachments) and chance(d.rng, 0.3):
        d.attachments.append(parts.pdf(f"{d.fields['invoice']}.pdf"))


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
        domain = parts.free_mail(rng)
    name = d.person.full if chance(rng, 0.5) else d.fields["supplier"]
    parts.set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.7)
    if chance(rng, 0.45):
        d.attachments.append(
            parts.risky_attachment(d, rng.choice(_RISKY_LURE_FILES["invoice_fraud"]))
        )
    else:
        d.attachments.append(parts.pdf(rng.choice(("Bank_details.pdf", "Letter.pdf"))))
    parts.person_signature(d)


def plan_executive_lure(d: Draft) -> None:
    """CEO fraud and gift cards: a person, plain text, no links, usually passing auth."""
    rng = d.rng
    kind = _pick(rng, (("freemail", 0.55), ("company_lookalike", 0.35), ("compromised", 0.1)))
    d.use(f"sender_{kind}")
    if kind == "freemail":
        domain = parts.free_mail(rng)
    elif kind == "company_lookalike":
        domain = company_lookalike(d.company[1], rng)
        d.use("company_lookalike_domain")
    else:
        domain = parts.other_company(d)[1]
    name = d.person.full
    if chance(rng, 0.12):
        name = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("display_name_address")
    parts.set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.85)
    parts.person_signature(d, executive=True, mobile=chance(rng, 0.4))


def _person_lure_common(d: Draft, plain: float, reply_to: float = 0.3) -> None:
    rng = d.rng
    if chance(rng, reply_to):
        d.reply_to = f"{d.person.local_part(rng)}{digits(rng, 2)}@{parts.free_mail(rng)}"
        d.use("reply_to_freemail")
    parts.soften_auth(d, spf=0.08, dkim=0.15, dmarc=0.04)
    d.mode = "plain" if chance(rng, plain) else rng.choice(("html", "alternative"))
    if d.mode == "html":
        d.use("html_only")
    if chance(rng, 0.08):
        d.zero_width = rng.randint(1, 3)
        d.use("zero_width_chars")
    parts.greet(d, 0.8)


def plan_tech_support(d: Draft) -> None:
    rng = d.rng
    if d.template.variant == 1:
        _plan_brand_lure(d, "microsoft", form=0.0, risky_file=0.15)
        return
    kind = _pick(rng, (("freemail", 0.5), ("attacker", 0.5)))
    d.use(f"sender_{kind}")
    domain = (
        parts.free_mail(rng) if kind == "freemail" else attacker_domain(rng, _attacker_tld(d, 0.3))
    )
    product = d.fields["product"]
    name = rng.choice(
        (f"{product.split()[0]} Billing", "Support Center", *d.locale.service_senders)
    )
    parts.set_sender(d, name, f"{rng.choice(('billing', 'support', 'renewals'))}@{domain}")
    _person_lure_common(d, plain=0.6, reply_to=0.45)
    if chance(rng, 0.35):
        d.attachments.append(
            parts.risky_attachment(d, rng.choice(_RISKY_LURE_FILES["tech_support"]))
        )
    elif chance(rng, 0.5):
        d.attachments.append(parts.pdf(f"Invoice_{d.fields['order'].strip('#')}.pdf"))
    parts.org_signature(d, name)


# ---------------------------------------------------------------------------- data-file scenarios
def _lure_person_sender(d: Draft, weights: tuple[tuple[str, float], ...]) -> str:
    rng = d.rng
    kind = _pick(rng, weights)
    d.use(f"sender_{kind}")
    if kind == "freemail":
        domain = parts.free_mail(rng)
    elif kind == "company_lookalike":
        domain = company_lookalike(rng.choice((d.company, d.supplier))[1], rng)
        d.use("company_lookalike_domain")
    elif kind == "supplier_lookalike":
        domain = company_lookalike(d.supplier[1], rng)
        d.use("company_lookalike_domain")
    elif kind == "compromised":
        domain = parts.other_company(d)[1]
    else:
        domain = attacker_domain(rng, _attacker_tld(d, 0.3))
    return domain


def plan_text_lure(d: Draft) -> None:
    """Link-less text: call a number, reply to me, claim money, pay in bitcoin."""
    rng, spec = d.rng, DATA_SCENARIOS[d.template.scenario]
    free = spec.get("freemail", 0.5)
    domain = _lure_person_sender(
        d, (("freemail", free), ("compromised", (1 - free) / 2), ("attacker", (1 - free) / 2))
    )
    if chance(rng, 0.6):
        name = d.person.full
        local = d.person.local_part(rng) + (digits(rng, 2) if chance(rng, 0.4) else "")
    else:
        name = rng.choice(d.locale.service_senders)
        local = rng.choice(("info", "support", "billing", "service", "office"))
    parts.set_sender(d, name, f"{local}@{domain}")
    if not domain.endswith(tuple(FREE_MAIL)) and chance(rng, 0.4):
        d.reply_to = f"{d.person.local_part(rng)}{digits(rng, 2)}@{parts.free_mail(rng)}"
        d.use("reply_to_freemail")
    parts.soften_auth(d, spf=0.1, dkim=0.15, dmarc=0.05)
    parts.plain_or_html(d, 0.75)
    parts.casual_greeting(d, 0.3, 0.35)
    if name == d.person.full:
        parts.person_signature(d, mobile=chance(rng, 0.2))
        if chance(rng, 0.3):
            d.signature = [d.signature[0]]
    else:
        parts.org_signature(d, name)
    parts.add_disclaimer(d, 0.05)


def plan_person_lure(d: Draft) -> None:
    """BEC: bank-detail change, payroll redirection, a confidential wire."""
    rng = d.rng
    domain = _lure_person_sender(
        d, (("freemail", 0.35), ("company_lookalike", 0.35), ("compromised", 0.3))
    )
    name = d.person.full
    if chance(rng, 0.1):
        name = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("display_name_address")
    parts.set_sender(d, name, f"{d.person.local_part(rng)}@{domain}")
    _person_lure_common(d, plain=0.8, reply_to=0.3)
    parts.casual_greeting(d, 0.7, 0.3)
    parts.person_signature(d, executive=chance(rng, 0.3), mobile=chance(rng, 0.35))
    parts.add_disclaimer(d, 0.15)


def plan_thread_lure(d: Draft) -> None:
    """A reply or forward in a thread from a compromised or look-alike partner mailbox."""
    rng = d.rng
    domain = _lure_person_sender(
        d, (("compromised", 0.5), ("supplier_lookalike", 0.3), ("freemail", 0.2))
    )
    parts.set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
    if d.template.cta:
        _phish_link(d, None, domain)
        d.cta_text = d.template.cta
    parts.template_attachments(d, 1.0 if not d.template.cta else 0.3, risky=True)
    _person_lure_common(d, plain=0.6, reply_to=0.15)
    parts.casual_greeting(d, 0.6, 0.4)
    parts.person_signature(d, mobile=chance(rng, 0.2))
    parts.add_disclaimer(d, 0.2)
    parts.quote(d, name=d.recipient.full)


def plan_attachment_lure(d: Draft) -> None:
    """Voicemail, fax, e-signature, remittance: the payload is the attachment."""
    rng = d.rng
    domain = _lure_person_sender(d, (("attacker", 0.4), ("compromised", 0.4), ("freemail", 0.2)))
    if chance(rng, 0.5):
        parts.set_sender(
            d,
            rng.choice(_LURE_SENDERS),
            f"{rng.choice(('noreply', 'voicemail', 'scanner', 'docs'))}@{domain}",
        )
        parts.org_signature(d, d.sender_name)
    else:
        parts.set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
        parts.person_signature(d)
    parts.template_attachments(d, 1.0, risky=True)
    parts.soften_auth(d, spf=0.12, dkim=0.15, dmarc=0.06)
    parts.plain_or_html(d, 0.5)
    parts.casual_greeting(d, 0.3, 0.5)
    parts.add_disclaimer(d, 0.1)


def plan_linked_lure(d: Draft) -> None:
    """Mailbox quota, password expiry, customs fee, payroll portal: a link, often no brand."""
    rng = d.rng
    brand = rng.choice(WORKPLACE_BRANDS) if chance(rng, 0.25) else None
    _plan_brand_lure(d, brand, form=0.08, risky_file=0.06)
    if brand is None and chance(rng, 0.5):
        d.sender_name = rng.choice((*_LURE_SENDERS, f"{d.company[0]} IT", f"{d.company[0]} HR"))
        d.signature = [d.signature[0], d.sender_name]
    if chance(rng, 0.3):
        d.greeting = ""
        d.use("no_greeting")
