"""Planners of the legitimate scenarios: each one fills a `mime.Draft` for its template.

Brand and small-shop mail (receipts, password resets, shipping, newsletters, support replies) is
often HTML-only, bulk-sent through a mail provider with click tracking, or softly authenticated;
person mail (colleagues, partners, vendors, company announcements, lists, personal notes) is
mostly plain text, sometimes from free-mail, with quoted threads and disclaimers. The shared
pieces are in `draft_parts`.
"""

from __future__ import annotations

from random import Random

from sv_env_phishing_detection import draft_parts as parts
from sv_env_phishing_detection.brands import BRAND_DOMAINS
from sv_env_phishing_detection.campaigns import (
    ACCOUNT_BRANDS,
    BRAND_NAMES,
    CARRIERS,
    NEWSLETTER_BRANDS,
    SHOP_BRANDS,
)
from sv_env_phishing_detection.draft_fields import chance, digits
from sv_env_phishing_detection.mime import Draft
from sv_env_phishing_detection.obfuscation import (
    ESP_DOMAINS,
    registered_domain,
    shortener_url,
    token,
)
from sv_shared.sampling import weighted_pick as _pick

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
_HR_IT_SENDERS = {
    "en": ("HR Team", "People Operations", "IT Service Desk", "Facilities", "Payroll",
           "Internal Communications"),
    "es": ("Recursos Humanos", "Soporte IT"), "de": ("Personalabteilung", "IT-Service"),
    "fr": ("Ressources humaines", "Support informatique"), "pt": ("Recursos Humanos", "Suporte TI"),
}  # fmt: skip


# ---------------------------------------------------------------------------- brands and shops
def _brand_sender_host(brand: str, rng: Random, language: str) -> str:
    domains = BRAND_DOMAINS[brand]
    local = [d for d in domains if d.endswith((".de", ".es")) and d[-2:] == language]
    domain = local[0] if local and chance(rng, 0.7) else domains[0]
    if chance(rng, 0.35) and domain.count(".") == 1:
        return f"{rng.choice(('mail', 'email', 'notify', 'account'))}.{domain}"
    return domain


def _brand_or_shop(d: Draft, brands: tuple[str, ...], p_brand: float) -> tuple[str, str]:
    """(display name, sending domain) of a real brand or a small shop of this locale."""
    if chance(d.rng, p_brand):
        brand = d.rng.choice(brands)
        d.brand = brand
        d.fields["product"] = _BRAND_PRODUCTS.get(brand, d.fields["product"])
        return BRAND_NAMES[brand], _brand_sender_host(brand, d.rng, d.template.language)
    name, domain = d.rng.choice(d.locale.shops)
    d.use("small_sender")
    return name, domain


def _legit_sender(d: Draft, name: str, host: str, *, esp: float, soft: float) -> None:
    local = d.rng.choice(("no-reply", "noreply", "info", "service", "orders", "hello"))
    parts.set_sender(d, name, f"{local}@{host}")
    if chance(d.rng, esp):
        parts.esp_return_path(d)
    parts.same_domain_reply_to(d, 0.25)
    small = "small_sender" in d.techniques
    parts.soften_auth(d, spf=soft if small else 0.02, dkim=soft if small else 0.03, dmarc=0.02)


def _legit_layout(d: Draft, html_only: float, plain: float) -> None:
    weights = (("html", html_only), ("plain", plain), ("alternative", 1 - html_only - plain))
    d.mode = _pick(d.rng, weights)
    if d.mode == "html":
        d.use("html_only")


def _click_tracking(d: Draft, site: str, p_show_url: float) -> None:
    """Route the call to action through a bulk-mail click tracker (as real campaigns do)."""
    rng = d.rng
    prefix = rng.choice(("click", "links", "email", f"u{digits(rng, 4)}"))
    tracker = f"{prefix}.{rng.choice(ESP_DOMAINS)}"
    d.cta_href = f"https://{tracker}/ls/click?upn={token(rng, 24)}"
    d.use("click_tracking")
    if d.mode != "plain" and chance(rng, p_show_url):
        d.cta_text = f"www.{registered_domain(site)}"
        d.use("tracking_anchor_shows_site")


def _legit_footer(d: Draft, site: str) -> None:
    if chance(d.rng, 0.6):
        d.footer = parts.site_footer(d, f"www.{site}")


def plan_receipt(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, SHOP_BRANDS, 0.4)
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.3, soft=0.15)
    site = registered_domain(host)
    segment = "invoices" if d.template.variant == 2 else "orders"
    d.cta_href = parts.url(f"www.{site}", rng, segment, token(rng, 8))
    if chance(rng, 0.06):
        helpdesk = rng.choice(("zendesk.com", "freshdesk.com", "helpscoutapp.com"))
        d.reply_to = f"support@{site.split('.')[0]}.{helpdesk}"
        d.use("helpdesk_reply_to")
    if d.brand is None and chance(rng, 0.04):
        d.sender_name = f"{name} via {rng.choice(('eBay', 'Amazon Marketplace', 'PayPal'))}"
        d.use("marketplace_display_name")
    if chance(rng, 0.4):
        d.attachments.append(parts.pdf(f"{d.fields['invoice']}.pdf"))
    elif chance(rng, 0.05):
        d.attachments.append(parts.risky_attachment(d, "Statement_{code}.html"))
    _legit_layout(d, html_only=0.45, plain=0.15)
    _legit_footer(d, site)
    parts.greet(d, 0.65)
    parts.org_signature(d, name)


def plan_password_reset(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, ACCOUNT_BRANDS[d.template.language], 0.75)
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.1 if d.brand else 0.25, soft=0.15)
    site = registered_domain(host)
    if d.template.cta:
        account_host = rng.choice((f"www.{site}", f"account.{site}", f"accounts.{site}"))
        d.cta_href = parts.url(account_host, rng, "security" if d.template.variant else "reset")
    _legit_layout(d, html_only=0.4, plain=0.2)
    _legit_footer(d, site)
    parts.greet(d, 0.6)
    parts.org_signature(d, name)


def plan_shipping(d: Draft) -> None:
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
    track_site = parts.main_domain(carrier)
    d.cta_href = parts.url(f"www.{track_site}", rng, "tracking", d.fields["tracking"])
    roll = rng.random()
    if roll < 0.1:
        d.cta_href = shortener_url(rng)
        d.use("url_shortener")
    elif roll < 0.22:
        _click_tracking(d, track_site, 0.6)
    _legit_footer(d, registered_domain(host))
    parts.greet(d, 0.6)
    parts.org_signature(d, name)


def plan_newsletter(d: Draft) -> None:
    rng = d.rng
    name, host = _brand_or_shop(d, NEWSLETTER_BRANDS, 0.35)
    if d.brand is None and chance(rng, 0.04):
        label = host.split(".")[0]
        host = f"{label}.{rng.choice(('xyz', 'work', 'click', 'top'))}"
        d.use("risky_tld")
    d.fields["brand"] = name
    _legit_sender(d, name, host, esp=0.75, soft=0.15)
    _legit_layout(d, html_only=0.65, plain=0.0)
    site = registered_domain(host)
    if chance(rng, 0.55):
        _click_tracking(d, site, 0.25)
    else:
        d.cta_href = parts.url(f"www.{site}", rng, "newsletter", str(d.sent.year), token(rng, 6))
    _legit_footer(d, site)
    if chance(rng, 0.12):
        d.footer.append(("Instagram", shortener_url(rng)))
        d.use("url_shortener")
    if d.mode != "plain" and chance(rng, 0.12):
        pad = "\u200c\u00a0" * rng.randint(8, 30)
        d.preheader = f"{d.template.subject.split(':')[0].format(**d.fields)} {pad}"
        d.use("preheader_padding")
    if d.mode != "plain" and chance(rng, 0.03):
        d.form_action = parts.url(f"survey.{site}", rng, "vote")
        d.use("survey_form")
    d.list_unsubscribe = f"<{parts.url(f'www.{site}', rng, 'unsubscribe')}>"
    parts.greet(d, 0.4)
    parts.org_signature(d, name)


def plan_calendar_invite(d: Draft) -> None:
    rng = d.rng
    d.fields["sender_name"] = d.person.full
    kind = _pick(rng, (("colleague", 0.7), ("calendar_service", 0.2), ("partner", 0.1)))
    d.use(f"sender_{kind}")
    if kind == "calendar_service":
        parts.set_sender(d, "Google Calendar", "calendar-notification@google.com")
    else:
        domain = d.company[1] if kind == "colleague" else parts.other_company(d)[1]
        parts.set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{domain}")
    parts.soften_auth(d, spf=0.03, dkim=0.15)
    if d.template.cta:
        d.cta_href = rng.choice(
            (
                f"https://zoom.us/j/{digits(rng, 10)}?pwd={token(rng, 12)}",
                f"https://teams.microsoft.com/l/meetup-join/{token(rng, 24)}",
                f"https://meet.google.com/{token(rng, 3).lower()}-{token(rng, 4).lower()}",
            )
        )
    d.attachments.append(parts.ics(d, description=d.cta_href))
    d.mode = _pick(rng, (("plain", 0.4), ("alternative", 0.6)))
    parts.greet(d, 0.7)
    parts.person_signature(d)


def plan_internal_memo(d: Draft) -> None:
    rng = d.rng
    if chance(rng, 0.2):
        parts.set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{parts.free_mail(rng)}")
        d.use("sender_freemail")
        if chance(rng, 0.5):
            d.reply_to = f"{d.person.local_part(rng)}@{d.company[1]}"
            d.use("reply_to_work_address")
    else:
        parts.set_sender(d, d.person.full, f"{d.person.local_part(rng)}@{d.company[1]}")
        d.use("sender_colleague")
    parts.soften_auth(d, spf=0.1, dkim=0.15, dmarc=0.04)
    roll = rng.random()
    if d.template.variant == 1 and roll < 0.5:
        d.cta_href = rng.choice(
            (
                f"https://drive.google.com/drive/folders/{token(rng, 20)}",
                parts.url(f"intranet.{d.company[1]}", rng, "teams", "notes"),
            )
        )
    elif roll < 0.07:
        host = f"10.{rng.randint(0, 40)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
        d.cta_href = f"http://{host}:8080/wiki/{d.fields['topic']}"
        d.use("intranet_ip_link")
    if d.template.variant == 2:
        d.attachments.append(parts.pdf(f"{d.fields['invoice']}.pdf"))
    if chance(rng, 0.07):
        name = rng.choice(
            ("Budget_{topic}.xlsm", "Timesheet_{topic}.xlsm", "Template_{topic}.docm")
        )
        d.attachments.append(parts.risky_attachment(d, name))
        d.use("macro_spreadsheet")
    d.mode = "plain" if chance(rng, 0.75) else "alternative"
    d.cta_text = d.cta_text or d.cta_href
    parts.greet(d, 0.85)
    parts.same_domain_reply_to(d, 0.1)
    parts.person_signature(d, mobile=chance(rng, 0.25))


# ---------------------------------------------------------------------------- data-file scenarios
def _legit_person(d: Draft, domain: str) -> None:
    parts.set_sender(d, d.person.full, f"{d.person.local_part(d.rng)}@{domain}")


def _legit_common(d: Draft, *, plain: float, greet_none: float, disclaimer: float) -> None:
    rng = d.rng
    parts.soften_auth(d, spf=0.15, dkim=0.15, dmarc=0.03)
    if chance(rng, 0.1):
        parts.esp_return_path(d)  # sent through a CRM or a mailing tool
    parts.plain_or_html(d, plain)
    parts.casual_greeting(d, 0.75, greet_none)
    parts.person_signature(d, mobile=chance(rng, 0.2))
    if chance(rng, 0.3):
        d.signature = [d.person.first] if chance(rng, 0.5) else [d.signature[0], d.person.first]
    parts.add_disclaimer(d, disclaimer)
    parts.same_domain_reply_to(d, 0.05)


def plan_colleague(d: Draft) -> None:
    """Internal business mail: threads, status, drafts, numbers, forwards, short notes."""
    rng = d.rng
    kind = _pick(rng, (("colleague", 0.75), ("partner", 0.15), ("freemail", 0.1)))
    d.use(f"sender_{kind}")
    domain = {"colleague": d.company[1], "partner": parts.other_company(d)[1]}.get(kind)
    _legit_person(d, domain or parts.free_mail(rng))
    if kind == "freemail" and chance(rng, 0.5):
        d.reply_to = f"{d.person.local_part(rng)}@{d.company[1]}"
        d.use("reply_to_work_address")
    parts.template_attachments(d, 0.55, risky=False)
    if chance(rng, 0.04):
        d.attachments.append(parts.risky_attachment(d, "{topic}_model.xlsm"))
        d.use("macro_spreadsheet")
    if chance(rng, 0.12):
        d.cta_href = rng.choice((
            f"https://drive.google.com/file/d/{token(rng, 22)}/view",
            parts.url(f"intranet.{d.company[1]}", rng, "sites", d.fields["topic"].lower()),
            f"https://{d.company[1]}/docs/{token(rng, 8)}",
        ))  # fmt: skip
        d.cta_text = d.cta_href
    _legit_common(d, plain=0.7, greet_none=0.45, disclaimer=0.25)
    parts.quote(d, name=d.recipient.full if (d.template.spec or {}).get("thread") == "reply"
           else d.fields["colleague"])  # fmt: skip


def plan_partner(d: Draft) -> None:
    rng = d.rng
    if chance(rng, 0.5):
        name, host = rng.choice(d.locale.shops + d.locale.companies)
        d.use("small_sender")
        d.fields["brand"] = name
        _legit_sender(d, name, host, esp=0.35, soft=0.15)
        parts.org_signature(d, name)
        parts.plain_or_html(d, 0.3)
        parts.casual_greeting(d, 0.7, 0.2)
    else:
        _legit_person(d, rng.choice((d.company[1], parts.other_company(d)[1])))
        _legit_common(d, plain=0.7, greet_none=0.4, disclaimer=0.2)
    parts.template_attachments(d, 0.5, risky=False)
    parts.quote(d, name=d.recipient.full)


def plan_vendor(d: Draft) -> None:
    """Real invoices, statements and reminders from the company's supplier."""
    rng = d.rng
    supplier_name, domain = d.supplier
    if chance(rng, 0.5):
        local = rng.choice(("accounts", "billing", "invoices", "ar"))
        name = rng.choice((supplier_name, f"{supplier_name} Accounts"))
        parts.set_sender(d, name, f"{local}@{domain}")
        if chance(rng, 0.25):
            parts.esp_return_path(d)
        parts.soften_auth(d, spf=0.1, dkim=0.1, dmarc=0.02)
        parts.plain_or_html(d, 0.45)
        parts.casual_greeting(d, 0.6, 0.15)
        parts.org_signature(d, supplier_name)
        parts.add_disclaimer(d, 0.2)
    else:
        _legit_person(d, domain)
        _legit_common(d, plain=0.75, greet_none=0.3, disclaimer=0.2)
    parts.template_attachments(d, 0.85, risky=False)
    parts.quote(d, name=d.recipient.full)


def plan_company(d: Draft) -> None:
    """HR and IT announcements from the recipient's own organisation."""
    rng = d.rng
    if chance(rng, 0.6):
        names = _HR_IT_SENDERS.get(d.template.language, _HR_IT_SENDERS["en"])
        name = rng.choice(names)
        parts.set_sender(
            d, name, f"{rng.choice(('hr', 'it', 'servicedesk', 'announce', 'info'))}@{d.company[1]}"
        )
        if chance(rng, 0.3):
            parts.esp_return_path(d)
        parts.soften_auth(d, spf=0.05, dkim=0.08)
        parts.plain_or_html(d, 0.45)
        parts.casual_greeting(d, 0.2, 0.3)
        parts.org_signature(d, name)
    else:
        _legit_person(d, d.company[1])
        _legit_common(d, plain=0.6, greet_none=0.3, disclaimer=0.1)
    if chance(rng, 0.25):
        d.cta_href = parts.url(f"intranet.{d.company[1]}", rng, rng.choice(("hr", "it", "news")))
        d.cta_text = d.cta_href


def plan_service(d: Draft) -> None:
    """Customer-support replies from a brand or a small shop."""
    rng = d.rng
    name, host = _brand_or_shop(d, ACCOUNT_BRANDS[d.template.language], 0.5)
    d.fields["brand"] = name
    agent = d.person.first
    parts.set_sender(d, rng.choice((f"{agent} ({name} Support)", f"{name} Support", name)),
                f"{rng.choice(('support', 'help', 'care'))}@{host}")  # fmt: skip
    if chance(rng, 0.3):
        helpdesk = rng.choice(("zendesk.com", "freshdesk.com", "helpscoutapp.com"))
        d.reply_to = f"support@{registered_domain(host).split('.')[0]}.{helpdesk}"
        d.use("helpdesk_reply_to")
    if chance(rng, 0.2):
        parts.esp_return_path(d)
    parts.soften_auth(d, spf=0.08 if "small_sender" in d.techniques else 0.02, dkim=0.08)
    parts.plain_or_html(d, 0.4)
    parts.casual_greeting(d, 0.8, 0.1)
    d.signature = [rng.choice(d.locale.signoffs), f"{agent}\n{name}"]
    parts.quote(d, name=d.recipient.full)


def plan_list(d: Draft) -> None:
    """Mailing-list traffic: a member posts, the list sets Reply-To and List-Unsubscribe."""
    rng = d.rng
    domain = rng.choice((parts.free_mail(rng), parts.other_company(d)[1], d.company[1]))
    _legit_person(d, domain)
    list_host = f"lists.{rng.choice((d.company, parts.other_company(d)))[1]}"
    if chance(rng, 0.6):
        d.reply_to = f"{d.fields['list_name']}@{list_host}"
        d.use("list_reply_to")
    d.return_path = f"{d.fields['list_name']}-bounces@{list_host}"
    d.list_unsubscribe = f"<mailto:{d.fields['list_name']}-leave@{list_host}>"
    parts.soften_auth(d, spf=0.15, dkim=0.25)
    parts.plain_or_html(d, 0.85)
    parts.casual_greeting(d, 0.2, 0.6)
    parts.person_signature(d)
    if chance(rng, 0.5):
        d.signature = [d.person.first]
    parts.quote(d, name=rng.choice(d.locale.first_names))
    name = d.fields["list_name"]
    d.trailer.append(f"{'_' * 47}\n{name} mailing list\n{name}@{list_host}")


def plan_personal(d: Draft) -> None:
    rng = d.rng
    domain = parts.free_mail(rng) if chance(rng, 0.6) else d.company[1]
    _legit_person(d, domain)
    parts.soften_auth(d, spf=0.05, dkim=0.05)
    parts.plain_or_html(d, 0.7)
    parts.casual_greeting(d, 0.8, 0.5)
    d.signature = [
        rng.choice(
            (
                d.person.first,
                d.person.first[0],
                f"{rng.choice(d.locale.signoffs)}\n{d.person.first}",
            )
        )
    ]
    if chance(rng, 0.25):
        d.signature.append(d.locale.mobile_signature)
    if chance(rng, 0.3):
        d.attachments.append(parts.doc_attachment(f"IMG_{digits(rng, 4)}.jpg"))
    parts.quote(d, name=d.recipient.full)
