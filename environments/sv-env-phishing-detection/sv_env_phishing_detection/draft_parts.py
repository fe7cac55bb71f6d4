"""Building blocks the scenario planners share, each setting one part of a `mime.Draft`.

Senders and links (`set_sender`, `url`, `free_mail`, `other_company`), signatures and
greetings, authentication results (`soften_auth`, `esp_return_path`), attachments (`pdf`,
`risky_attachment`, `doc_attachment`, `template_attachments`, `ics`), footers, quoted earlier
mail and disclaimers. Phishing planners are in `phishing_plans`, legitimate ones in
`legitimate_plans`.
"""

from __future__ import annotations

import html
from datetime import UTC, timedelta
from random import Random

from sv_env_phishing_detection.brands import BRAND_DOMAINS
from sv_env_phishing_detection.campaigns import LANGUAGES, LOCALES
from sv_env_phishing_detection.draft_fields import (
    EXTRAS,
    chance,
    escape_braces,
    format_date,
    format_time,
)
from sv_env_phishing_detection.mime import Draft, MailAttachment, domain_of
from sv_env_phishing_detection.obfuscation import ESP_DOMAINS, FREE_MAIL, attacker_domain, token

_FOOTER_WORDS = {
    "en": ("Help", "Privacy"),
    "es": ("Ayuda", "Privacidad"),
    "de": ("Hilfe", "Datenschutz"),
    "fr": ("Aide", "Confidentialité"),
    "pt": ("Ajuda", "Privacidade"),
}


def main_domain(brand: str) -> str:
    return BRAND_DOMAINS[brand][0]


# ---------------------------------------------------------------------------- senders
def free_mail(rng: Random, avoid: str | None = None) -> str:
    allowed = BRAND_DOMAINS.get(avoid or "", ())
    return rng.choice([d for d in FREE_MAIL if d not in allowed])


def url(host: str, rng: Random, *segments: str) -> str:
    path = "/".join(s.strip("/") for s in segments if s)
    query = f"?id={token(rng, 10)}" if chance(rng, 0.5) else ""
    return f"https://{host}/{path}{query}"


def set_sender(d: Draft, name: str, address: str, *, return_path: str = "") -> None:
    d.sender_name, d.sender_address = name, address
    d.return_path = return_path or address


def other_company(d: Draft) -> tuple[str, str]:
    """A small organisation from another locale (a compromised mailbox or web site)."""
    language = d.rng.choice([lang for lang in LANGUAGES if lang != d.template.language])
    loc = LOCALES[language]
    return d.rng.choice(loc.companies + loc.shops)


# ---------------------------------------------------------------------------- signatures, greetings
def org_signature(d: Draft, org: str) -> None:
    d.signature = [d.rng.choice(d.locale.signoffs), d.locale.team_signature.format(brand=org)]


def person_signature(d: Draft, *, executive: bool = False, mobile: bool = False) -> None:
    lines = [d.rng.choice(d.locale.signoffs), d.person.first if chance(d.rng, 0.5) else ""]
    if executive and not lines[1]:
        lines[1] = f"{d.person.full}\n{d.rng.choice(d.locale.executive_titles)}"
    lines[1] = lines[1] or d.person.full
    if mobile:
        lines.append(d.locale.mobile_signature)
    d.signature = lines


def greet(d: Draft, personal: float) -> None:
    loc = d.locale
    if chance(d.rng, personal):
        pattern = d.rng.choice(loc.personal_greetings)
        d.greeting = pattern.format(first=d.recipient.first, full=d.recipient.full)
    else:
        d.greeting = d.rng.choice(loc.generic_greetings)


def casual_greeting(d: Draft, p_personal: float, p_none: float) -> None:
    if chance(d.rng, p_none):
        d.greeting = ""
        d.use("no_greeting")
    else:
        greet(d, p_personal)


# ---------------------------------------------------------------------------- headers, auth
def same_domain_reply_to(d: Draft, p: float) -> None:
    """A Reply-To on the sender's own domain (no mismatch), as many senders set one."""
    if not d.reply_to and chance(d.rng, p):
        local = d.rng.choice(("support", "hello", "reply", "contact"))
        d.reply_to = f"{local}@{domain_of(d.sender_address)}"


def esp_return_path(d: Draft) -> None:
    esp = d.rng.choice(ESP_DOMAINS)
    d.return_path = f"bounces+{token(d.rng, 8).lower()}@{esp}"
    d.use("bulk_mail_provider")


def soften_auth(d: Draft, spf: float, dkim: float, dmarc: float = 0.0) -> None:
    """Misconfigured or forwarded senders: softfail SPF, unsigned or broken DKIM."""
    if chance(d.rng, spf):
        d.auth["spf"] = d.rng.choice(("softfail", "softfail", "fail"))
        d.use("spf_not_pass")
    if chance(d.rng, dkim):
        d.auth["dkim"] = d.rng.choice(("none", "none", "fail"))
        d.use("dkim_not_pass")
    if chance(d.rng, dmarc):
        d.auth["dmarc"] = "fail"
        d.use("dmarc_fail")
    elif d.auth["dkim"] != "pass" and d.auth["spf"] != "pass":
        d.auth["dmarc"] = d.rng.choice(("none", "fail"))


# ---------------------------------------------------------------------------- attachments
_MIME_BY_EXT = {
    "html": ("text", "html"), "htm": ("text", "html"),
    "docm": ("application", "vnd.ms-word.document.macroEnabled.12"),
    "xlsm": ("application", "vnd.ms-excel.sheet.macroEnabled.12"),
    "iso": ("application", "x-iso9660-image"), "img": ("application", "octet-stream"),
    "exe": ("application", "x-msdownload"), "js": ("text", "javascript"),
    "lnk": ("application", "x-ms-shortcut"),
}  # fmt: skip
_DOC_MIME = {
    "pdf": ("application", "pdf"), "docx": ("application", "vnd.openxmlformats-officedocument"
    ".wordprocessingml.document"), "xlsx": ("application", "vnd.openxmlformats-officedocument"
    ".spreadsheetml.sheet"), "zip": ("application", "zip"),
}  # fmt: skip


def pdf(name: str) -> MailAttachment:
    data = b"%PDF-1.4\n% synthetic placeholder document\n1 0 obj << >> endobj\n%%EOF\n"
    return MailAttachment(name, "application", "pdf", data)


def risky_attachment(d: Draft, pattern: str) -> MailAttachment:
    name = pattern.format(**d.fields)
    ext = name.rpartition(".")[2]
    maintype, subtype = _MIME_BY_EXT.get(ext, ("application", "octet-stream"))
    if maintype == "text" and subtype == "html":
        action = d.cta_href or url(attacker_domain(d.rng, "com"), d.rng, "auth")
        data: bytes | str = (
            '<html><body><form method="post" action="' + html.escape(action) + '">'
            '<input type="email" name="email"><input type="password" name="password">'
            "<button>Open</button></form></body></html>\n"
        )
    else:
        data = b"synthetic placeholder, not executable\n"
    d.use("risky_attachment")
    return MailAttachment(name, maintype, subtype, data)


def doc_attachment(name: str) -> MailAttachment:
    ext = name.rpartition(".")[2].lower()
    if ext == "pdf":
        return pdf(name)
    maintype, subtype = _DOC_MIME.get(ext, ("application", "octet-stream"))
    return MailAttachment(name, maintype, subtype, b"PK\x03\x04 synthetic placeholder\n")


def template_attachments(d: Draft, p: float, *, risky: bool) -> None:
    patterns = (d.template.spec or {}).get("attach") or ()
    if patterns and chance(d.rng, p):
        name = d.rng.choice(patterns).format_map(d.fields)
        name = name.replace("/", "-").replace(":", "")
        if risky:
            d.attachments.append(risky_attachment(d, escape_braces(name)))
        else:
            d.attachments.append(doc_attachment(name))


def ics(d: Draft, *, description: str = "", organizer: str = "") -> MailAttachment:
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


# ---------------------------------------------------------------------------- layout and trailer
def plain_or_html(d: Draft, plain: float) -> None:
    d.mode = "plain" if chance(d.rng, plain) else d.rng.choice(("alternative", "html"))
    if d.mode == "html":
        d.use("html_only")


def site_footer(d: Draft, site: str) -> list[tuple[str, str]]:
    help_word, privacy_word = _FOOTER_WORDS[d.template.language]
    return [(help_word, f"https://{site}/help"), (privacy_word, f"https://{site}/privacy")]


def quote(d: Draft, *, name: str) -> None:
    """Earlier mail below the signature: a reply's quoted message or a forwarded one."""
    spec, rng = d.template.spec or {}, d.rng
    lines = [str(line).format_map(d.fields) for line in spec.get("quote", ())]
    if not lines:
        return
    kind = spec.get("thread") or "reply"
    headers = EXTRAS["quote_headers"][d.template.language][kind]
    earlier = d.sent - timedelta(hours=rng.randint(2, 200))
    clock = format_time(earlier.hour, earlier.minute, d.locale)
    head = rng.choice(headers).format(
        quote_name=name,
        quote_date=f"{format_date(earlier, d.locale)} {clock}",
        quote_subject=d.template.subject.format_map(d.fields).split(":", 1)[-1].strip(),
    )
    text = "\n\n".join(lines)
    if kind == "reply" and chance(rng, 0.6):
        text = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    d.trailer.append(
        f"{head}\n\n{text}" if "\n" in head or kind == "forward" else f"{head}\n{text}"
    )
    d.use(f"quoted_{kind}")


def add_disclaimer(d: Draft, p: float) -> None:
    if chance(d.rng, p):
        d.trailer.append(d.rng.choice(EXTRAS["disclaimers"][d.template.language]))
        d.use("disclaimer")
