"""One planned email (`Draft`) rendered as an RFC 5322 message, and the catalogue indicators
it really carries.

`render(draft)` fills the template, lays the body out as text and/or HTML (greeting, paragraphs,
call to action, password form, footer, signature), assembles the MIME tree with attachments and
the headers, and reads the planted indicators back from what was built: only the content
indicators (`credential_request`, `urgency_language`, `payment_request`) come from the template,
every other one is derived from the finished headers, links, attachments and bodies, so
`meta["planted"]` never claims something the message does not show.
"""

from __future__ import annotations

import base64
import html
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from email import policy, quoprimime
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from random import Random
from urllib.parse import urlsplit

from sv_env_phishing_detection.brands import BRAND_DOMAINS
from sv_env_phishing_detection.campaigns import BRAND_NAMES, Locale, Template
from sv_env_phishing_detection.obfuscation import (
    RISKY_TLDS,
    SHORTENERS,
    ZERO_WIDTH,
    insert_zero_width,
    registered_domain,
    to_ascii,
    token,
)

__all__ = [
    "RISKY_EXTENSIONS",
    "Draft",
    "MailAttachment",
    "Person",
    "ascii_name",
    "domain_of",
    "planted_indicators",
    "render",
    "same_organisation",
]

RISKY_EXTENSIONS = frozenset(
    (".exe", ".scr", ".js", ".jse", ".vbs", ".wsf", ".bat", ".cmd", ".ps1", ".hta", ".html",
     ".htm", ".iso", ".img", ".lnk", ".docm", ".xlsm", ".pptm", ".jar", ".msi")
)  # fmt: skip
_BRAND_LABEL = re.compile(r"[a-z0-9]+")
_OWNER = {registered_domain(d): brand for brand, ds in BRAND_DOMAINS.items() for d in ds}
"""registered domain -> the brand that owns it."""


def ascii_name(text: str) -> str:
    """A name as it goes into an address: accents dropped, letters only, lower case."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", folded.lower())


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower()


def same_organisation(a: str, b: str) -> bool:
    """Same registered domain, or two domains of one brand (microsoft.com and outlook.com)."""
    first, second = registered_domain(a), registered_domain(b)
    return first == second or (first in _OWNER and _OWNER.get(second) == _OWNER[first])


# ---------------------------------------------------------------------------- the draft
@dataclass(frozen=True)
class Person:
    """Someone in the story (sender behind the mail, recipient)."""

    first: str
    last: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"

    def local_part(self, rng: Random) -> str:
        first, last = ascii_name(self.first), ascii_name(self.last)
        return rng.choice((f"{first}.{last}", f"{first[0]}{last}", f"{first}{last[0]}"))


@dataclass
class MailAttachment:
    """A file attached to the message: bytes go base64, text goes like a body part."""

    filename: str
    maintype: str
    subtype: str
    data: bytes | str
    params: dict[str, str] = field(default_factory=dict)


@dataclass
class Draft:
    """Everything decided about one email before it is rendered as MIME (the planners in
    `generator` fill it in; `render` turns it into a message)."""

    template: Template
    locale: Locale
    rng: Random
    sent: datetime
    person: Person  # the human behind the mail (executive, colleague, organiser)
    recipient: Person
    recipient_address: str
    company: tuple[str, str]  # the recipient's employer (name, domain)
    supplier: tuple[str, str]  # a supplier of that employer (name, domain)
    fields: dict[str, str]
    sender_name: str = ""
    sender_address: str = ""
    reply_to: str = ""
    return_path: str = ""
    auth: dict[str, str] = field(
        default_factory=lambda: {"spf": "pass", "dkim": "pass", "dmarc": "pass"}
    )
    mode: str = "alternative"  # plain | html | alternative
    cta_href: str = ""
    cta_text: str = ""  # anchor text in HTML; "" -> the template's call to action
    cta_first: bool = False
    footer: list[tuple[str, str]] = field(default_factory=list)  # (text, href)
    form_action: str = ""
    preheader: str = ""
    zero_width: int = 0  # words to hide zero-width characters in
    zero_width_subject: bool = False
    attachments: list[MailAttachment] = field(default_factory=list)
    list_unsubscribe: str = ""
    greeting: str = ""
    signature: list[str] = field(default_factory=list)
    trailer: list[str] = field(default_factory=list)  # after the signature: quoted mail, notices
    techniques: list[str] = field(default_factory=list)
    lookalikes: list[str] = field(default_factory=list)  # brand look-alike domains made
    brand: str | None = None

    def use(self, *techniques: str) -> None:
        for name in techniques:
            if name not in self.techniques:
                self.techniques.append(name)


def render(d: Draft) -> tuple[str, list[str]]:
    """(raw RFC 5322 message, planted catalogue indicators) of a finished draft."""
    msg, subject, text, markup = _to_message(d)
    planted = planted_indicators(d, subject, text, markup)
    return msg.as_string(), sorted(set(planted) | _read_content(d, subject, text, markup))


def _read_content(d: Draft, subject: str, text: str, markup: str | None) -> set[str]:
    """Keyword indicators read from the body the extractor reads (the text part, else the
    HTML's text): all of them for data-file templates (their wording is drawn per email),
    only the lure-text ones otherwise (classic templates declare the first three in
    `Template.content`)."""
    from sv_env_phishing_detection.indicators import LURE_TEXT_INDICATORS, content_indicators
    from sv_env_phishing_detection.message import html_text

    if d.template.spec is not None:
        return set(content_indicators(subject, text.strip() or html_text(markup or "")))
    if not text.strip():  # HTML only: its text is the template's (plus links and names)
        words = f"{d.template.body.format_map(d.fields)}\n{d.template.cta}\n{d.greeting}"
        if not content_indicators(subject, words, LURE_TEXT_INDICATORS):
            return set()
    body = text.strip() or html_text(markup or "")
    return set(content_indicators(subject, body, LURE_TEXT_INDICATORS))


# ---------------------------------------------------------------------------- rendering
def _paragraphs(d: Draft) -> tuple[str, list[str]]:
    """(subject, body paragraphs) with placeholders filled and zero-width characters hidden."""
    subject = d.template.subject.format_map(d.fields)
    paragraphs = d.template.body.format_map(d.fields).split("\n\n")
    if d.zero_width:
        joined = insert_zero_width("\n\n".join(paragraphs), d.rng, d.zero_width)
        paragraphs = joined.split("\n\n")
        if d.zero_width_subject:
            subject = insert_zero_width(subject, d.rng, 1)
    return subject, paragraphs


def _blocks(d: Draft, paragraphs: list[str]) -> list[tuple[str, str]]:
    """The body as ("text"|"cta"|"form", content) blocks, greeting to signature."""
    blocks = [("text", d.greeting)] + [("text", p) for p in paragraphs]
    if d.cta_href:
        blocks.insert(2 if d.cta_first else len(blocks), ("cta", d.cta_href))
    if d.form_action:
        blocks.append(("form", d.form_action))
    blocks.append(("text", "\n".join(line for line in d.signature if line)))
    blocks += [("text", part) for part in d.trailer]
    return [(kind, content) for kind, content in blocks if content]


def _render_text(d: Draft, blocks: list[tuple[str, str]]) -> str:
    out = []
    for kind, content in blocks:
        if kind == "text":
            out.append(content)
        elif kind == "cta":
            label = d.template.cta
            out.append(f"{label}: {content}" if label and d.rng.random() < 0.6 else content)
    if d.footer:
        out.append(" | ".join(f"{text}: {href}" for text, href in d.footer))
    return "\n\n".join(out) + "\n"


def _render_html(d: Draft, subject: str, blocks: list[tuple[str, str]]) -> str:
    esc = html.escape
    out = [
        "<!DOCTYPE html>",
        f'<html><head><meta charset="utf-8"><title>{esc(subject, quote=False)}</title></head>',
        '<body style="font-family:Arial,Helvetica,sans-serif;color:#222">',
    ]
    if d.preheader:
        out.append(f'<div style="display:none;max-height:0">{esc(d.preheader, quote=False)}</div>')
    out.append('<div style="max-width:600px;margin:0 auto">')
    for kind, content in blocks:
        if kind == "text":
            lines = "<br>\n".join(esc(line, quote=False) for line in content.split("\n"))
            out.append(f"<p>{lines}</p>")
        elif kind == "cta":
            text = d.cta_text or d.template.cta or content
            out.append(
                f'<p><a href="{esc(content)}" style="background:#0b57d0;color:#fff;'
                f'padding:10px 18px;text-decoration:none">{esc(text, quote=False)}</a></p>'
            )
        else:
            out.append(
                f'<form method="post" action="{esc(content)}">'
                '<input type="email" name="email" placeholder="Email">'
                '<input type="password" name="password" placeholder="Password">'
                '<button type="submit">OK</button></form>'
            )
    if d.footer:
        links = " | ".join(f'<a href="{esc(h)}">{esc(t, quote=False)}</a>' for t, h in d.footer)
        out.append(f'<p style="font-size:12px;color:#888">{links}</p>')
    out += ["</div>", "</body></html>", ""]
    return "\n".join(out)


def _display_name(name: str) -> str:
    """`name` safe to fold: the stdlib leaves non-ASCII display names unquoted, so RFC 5322
    specials in them would turn into comments or break the address; drop those."""
    return name if name.isascii() else re.sub(r'[()<>\[\]:;@,"\\]', " ", name).strip()


def _auth_results(d: Draft) -> str:
    from_domain = domain_of(d.sender_address)
    mail_from = domain_of(d.return_path)
    dkim = d.auth["dkim"]
    signer = registered_domain(mail_from if dkim == "fail" else from_domain)
    dkim_part = (
        "dkim=none (message not signed)" if dkim == "none" else f"dkim={dkim} header.d={signer}"
    )
    return (
        f"mx.{domain_of(d.recipient_address)}; spf={d.auth['spf']} smtp.mailfrom={mail_from}; "
        f"{dkim_part}; dmarc={d.auth['dmarc']} header.from={from_domain}"
    )


class _CachedHeaderRegistry(HeaderRegistry):
    """The stock registry, except each header class is built once instead of once per header."""

    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        key = name.lower()
        if key not in self._classes:
            self._classes[key] = super().__getitem__(name)
        return self._classes[key]


_POLICY = policy.default.clone(header_factory=_CachedHeaderRegistry())
"""`email.policy.default` with a faster (equivalent) header factory."""


def _text_part(content: str, subtype: str, params: str = "") -> EmailMessage:
    """A text/* leaf: 7bit when ASCII, else UTF-8 quoted-printable (as set_content would pick)."""
    part = EmailMessage(_POLICY)
    if content.isascii():
        part["Content-Type"] = f'text/{subtype}; charset="us-ascii"{params}'
        part["Content-Transfer-Encoding"] = "7bit"
        part.set_payload(content)
    else:
        part["Content-Type"] = f'text/{subtype}; charset="utf-8"{params}'
        part["Content-Transfer-Encoding"] = "quoted-printable"
        part.set_payload(quoprimime.body_encode(content.encode("utf-8").decode("latin-1")))
    return part


def _attachment_part(att: MailAttachment) -> EmailMessage:
    params = "".join(f"; {key}={value}" for key, value in att.params.items())
    if isinstance(att.data, str):
        part = _text_part(att.data, att.subtype, params)
    else:
        part = EmailMessage(_POLICY)
        part["Content-Type"] = f"{att.maintype}/{att.subtype}"
        part["Content-Transfer-Encoding"] = "base64"
        part.set_payload(base64.encodebytes(att.data).decode("ascii"))
    part["Content-Disposition"] = f'attachment; filename="{att.filename}"'
    return part


def _multipart(subtype: str, parts: list[EmailMessage], rng: Random) -> EmailMessage:
    container = EmailMessage(_POLICY)
    container["Content-Type"] = f'multipart/{subtype}; boundary="=_{token(rng, 28)}"'
    container.set_payload(parts)
    return container


def _body(d: Draft, text: str, markup: str | None) -> EmailMessage:
    """The MIME tree: plain, html or alternative, inside multipart/mixed with attachments."""
    if d.mode == "plain" or markup is None:
        body = _text_part(text, "plain")
    elif d.mode == "html":
        body = _text_part(markup, "html")
    else:
        body = _multipart(
            "alternative", [_text_part(text, "plain"), _text_part(markup, "html")], d.rng
        )
    if d.attachments:
        parts = [body, *(_attachment_part(att) for att in d.attachments)]
        body = _multipart("mixed", parts, d.rng)
    return body


def _to_message(d: Draft) -> tuple[EmailMessage, str, str, str | None]:
    """(message, subject, text body, html body or None).

    Parts are assembled directly (not with `set_content`) with headers set once each: the
    content manager re-parses Content-Type several times per part, which made the default
    corpus too slow to build.
    """
    subject, paragraphs = _paragraphs(d)
    blocks = _blocks(d, paragraphs)
    text = _render_text(d, blocks)
    markup = _render_html(d, subject, blocks) if d.mode != "plain" else None
    body = _body(d, text, markup)
    relay = domain_of(d.return_path)
    msg = EmailMessage(_POLICY)
    msg["Return-Path"] = f"<{d.return_path}>"
    msg["Authentication-Results"] = _auth_results(d)
    msg["From"] = formataddr((_display_name(d.sender_name), d.sender_address))
    msg["To"] = formataddr((d.recipient.full, d.recipient_address))
    if d.reply_to:
        msg["Reply-To"] = d.reply_to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(d.sent)
    msg["Message-ID"] = f"<{d.sent:%Y%m%d%H%M%S}.{token(d.rng, 16)}@{relay}>"
    if d.list_unsubscribe:
        msg["List-Unsubscribe"] = d.list_unsubscribe
    msg["MIME-Version"] = "1.0"
    for name, value in body.items():
        msg[name] = value
    msg.set_payload(body.get_payload())
    return msg, subject, text if d.mode != "html" else "", markup


# ---------------------------------------------------------------------------- planted
_HOST_IN_TEXT = re.compile(r"^(?:https?://)?([a-z0-9.-]+\.[a-z]{2,})(?:[/:?#].*)?$", re.I)


def _is_ip(host: str) -> bool:
    host = host.strip("[]")
    return (
        bool(re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", host))
        or host.isdigit()
        or bool(re.fullmatch(r"0x[0-9a-f]+", host))
        or ":" in host
    )


def _risky_file(name: str) -> bool:
    parts = name.lower().split(".")
    return f".{parts[-1]}" in RISKY_EXTENSIONS or len(parts) > 2


def _display_spoof(name: str, address: str) -> bool:
    domain = registered_domain(domain_of(address))
    embedded = re.search(r"[\w.+-]+@([\w-]+(?:\.[\w-]+)+)", name)
    if embedded and registered_domain(embedded.group(1)) != domain:
        return True
    words = _BRAND_LABEL.findall(name.lower())
    joined = "".join(words)
    for brand, shown in BRAND_NAMES.items():
        spelled = "".join(_BRAND_LABEL.findall(shown.lower()))
        if (spelled in words or (len(spelled) > 5 and spelled in joined)) and not any(
            registered_domain(domain) == registered_domain(d) for d in BRAND_DOMAINS[brand]
        ):
            return True
    return False


def _registered_ascii(host: str) -> str:
    try:
        return registered_domain(to_ascii(host))
    except UnicodeError:
        return registered_domain(host)


def planted_indicators(d: Draft, subject: str, text: str, markup: str | None) -> list[str]:
    """Catalogue indicators present in what was built (content ones from the template)."""
    found = set(d.template.content)
    hrefs = [h for h in (d.cta_href, d.form_action) if h] + [h for _, h in d.footer]
    hosts = [urlsplit(h).hostname or "" for h in hrefs]
    domains = [domain_of(d.sender_address), *hosts]
    made = {_registered_ascii(x) for x in d.lookalikes}
    if any(_registered_ascii(x) in made for x in domains if x and not _is_ip(x)):
        found.add("brand_lookalike")
    if any("xn--" in x or not x.isascii() for x in domains):
        found.add("punycode_domain")
    if any(x.rpartition(".")[2] in RISKY_TLDS for x in domains if not _is_ip(x)):
        found.add("risky_tld")
    if any(_is_ip(x) for x in hosts):
        found.add("ip_url")
    if any(registered_domain(x) in SHORTENERS or x in SHORTENERS for x in hosts):
        found.add("url_shortener")
    if any("@" in urlsplit(h).netloc for h in hrefs):
        found.add("at_sign_url")
    if any(not _is_ip(x) and x.count(".") - registered_domain(x).count(".") >= 4 for x in hosts):
        found.add("excessive_subdomains")
    shown = _HOST_IN_TEXT.match(d.cta_text or "")
    if markup and d.cta_href and shown:
        target = urlsplit(d.cta_href).hostname or ""
        if registered_domain(shown.group(1)) != registered_domain(target):
            found.add("link_text_mismatch")
    from_domain = domain_of(d.sender_address)
    if d.reply_to and not same_organisation(domain_of(d.reply_to), from_domain):
        found.add("reply_to_mismatch")
    if not same_organisation(domain_of(d.return_path), from_domain):
        found.add("return_path_mismatch")
    if _display_spoof(_display_name(d.sender_name), d.sender_address):
        found.add("display_name_spoof")
    if d.auth["spf"] in ("fail", "softfail"):
        found.add("spf_fail")
    if d.auth["dkim"] == "fail":
        found.add("dkim_fail")
    if d.auth["dmarc"] == "fail":
        found.add("dmarc_fail")
    if any(_risky_file(a.filename) for a in d.attachments):
        found.add("risky_attachment")
    bodies = f"{subject}\n{text}\n{markup or ''}"
    if any(ch in bodies for ch in _INVISIBLE):
        found.add("zero_width_chars")
    if markup and "<form" in markup:
        found.add("html_form")
    return sorted(found)


_INVISIBLE = frozenset(
    [*ZERO_WIDTH, *map(chr, range(0x200B, 0x2010)), *map(chr, range(0x202A, 0x202F))]
    + [chr(c) for c in range(0x2060, 0x2065)]
)
