"""Raw RFC 5322 mail -> `EmailView`, and the reverse for sources that only have fields.

`parse_message` never raises on malformed mail: broken MIME, unknown charsets, undecodable
bytes, bad encoded words and missing headers all degrade to the best readable result
(replacement characters, empty fields), because real corpora are full of them.

Links are the HTML anchors, then the targets HTML forms post to, then the bare URLs of the text
(IPv6 literals such as `http://[2001:db8::1]/` included).
"""

from __future__ import annotations

import email
import re
from collections.abc import Callable
from datetime import datetime
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import format_datetime, parseaddr, parsedate_to_datetime
from typing import TypeVar

from bs4 import BeautifulSoup
from bs4.element import Comment, Declaration, Doctype, NavigableString, ProcessingInstruction

from .view import Attachment, EmailView, Link

T = TypeVar("T")

URL_CHARS = r"""[^\s<>"'`\]\[{}|\\^]"""
BARE_URL = re.compile(
    rf"https?://\[[0-9a-f:.]+\]{URL_CHARS}*|(?:https?://|www\.){URL_CHARS}+", re.IGNORECASE
)
"""A bare web address in text (http(s)://… or www.…), IPv6 literals (`http://[2001:db8::1]/`)
included."""
TRAILING_PUNCT = ".,;:!?)'\""
SKIPPED_HREF = re.compile(r"^(?:#|mailto:|tel:|sms:|cid:|javascript:|about:)", re.IGNORECASE)
BLOCK_TAGS = re.compile(
    r"^(?:address|article|aside|blockquote|center|dd|div|dl|dt|fieldset|figcaption|figure|footer"
    r"|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tbody|thead|tfoot|tr|ul|title)$"
)
"""HTML elements that start a new line in the readable text."""
DROPPED_TAGS = ("script", "style", "head", "noscript", "template")
ANGLE_ADDRESS = re.compile(r"<\s*([^<>\s@]+@[^<>\s@]+)\s*>")
BARE_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)


# ------------------------------------------------------------------------------ text helpers
def _fix_surrogates(text: str) -> str:
    """Undo `surrogateescape` (raw 8-bit bytes in headers): decode them as UTF-8."""
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words, keeping everything else (comments too) as written."""
    try:
        return str(make_header(decode_header(value)))
    except Exception:  # bad charset or broken encoded word: keep the raw text
        return value


def _decode_bytes(data: bytes, charset: str | None) -> str:
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return data.decode(candidate, errors="replace")
        except (LookupError, ValueError):
            continue
    return data.decode("latin-1")


# ---------------------------------------------------------------------------------- headers
def _header_value(raw: str) -> str:
    """A header decoded as written (RFC 2047 words decoded, comments kept), on one line."""
    return " ".join(_decode_words(_fix_surrogates(raw)).split())


def _headers(msg: Message) -> dict[str, str]:
    headers: dict[str, str] = {}
    try:
        items = list(msg.raw_items())
    except Exception:
        return headers
    for name, raw in items:
        key = name.strip().lower()
        value = _header_value(str(raw))
        headers[key] = f"{headers[key]}\n{value}" if key in headers else value
    return headers


def _split_address(value: str) -> tuple[str, str]:
    """(display name as a mail client shows it, lower-case bare address) of a decoded address
    header; a comment such as `Name (boss@corp.example) <x@y>` stays in the name. Never raises."""
    value = value.split("\n", 1)[0].strip()
    if not value:
        return "", ""
    try:
        name, addr = parseaddr(value)
    except Exception:
        name, addr = "", ""
    angle = ANGLE_ADDRESS.search(value)
    if angle:
        name = value[: angle.start()].strip() or name
        addr = addr if "@" in addr else angle.group(1)
    elif "@" not in addr:
        bare = BARE_ADDRESS.search(value)
        addr = bare.group(0) if bare else ""
    return name.strip().strip('"').strip(), addr.strip().lower()


# ------------------------------------------------------------------------------------- HTML
def _soup(html: str) -> BeautifulSoup:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(DROPPED_TAGS):
        tag.decompose()
    for node in soup.find_all(string=True):
        if isinstance(node, Comment | Declaration | Doctype | ProcessingInstruction):
            node.extract()
    return soup


def _anchors(soup: BeautifulSoup) -> list[Link]:
    """Anchor and image-map targets with their text, then the targets forms post to (where a
    phishing page sends the password), each form target once and only if no anchor has it."""
    links = []
    for tag in soup.find_all(["a", "area"], href=True):
        href = str(tag.get("href", "")).strip()
        if href and not SKIPPED_HREF.match(href):
            links.append(Link(href=href, text=" ".join(tag.get_text(" ").split())))
    seen = {link.href for link in links}
    for tag in soup.find_all("form", action=True):
        action = str(tag.get("action", "")).strip()
        if action and action not in seen and not SKIPPED_HREF.match(action):
            seen.add(action)
            links.append(Link(href=action))
    return links


def html_to_text(html: str) -> str:
    """Readable text of an HTML body: anchor text kept, script/style dropped, blocks on lines."""
    soup = _soup(html)
    return _soup_text(soup)


def _soup_text(soup: BeautifulSoup) -> str:
    for node in soup.find_all(string=True):
        if not any(parent.name == "pre" for parent in node.parents):
            node.replace_with(NavigableString(re.sub(r"\s+", " ", str(node))))
    for tag in soup.find_all("br"):
        tag.replace_with("\n")
    for tag in soup.find_all(["td", "th"]):
        tag.insert_after(" ")
    for tag in soup.find_all(BLOCK_TAGS):
        tag.insert_before("\n")
        tag.insert_after("\n")
    lines = [line.strip() for line in soup.get_text().splitlines()]
    return re.sub(r"\n{2,}", "\n", "\n".join(lines)).strip()


# -------------------------------------------------------------------------------------- MIME
def _payload_bytes(part: Message) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if isinstance(data, bytes):
        return data
    payload = part.get_payload()
    return payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""


def _part_text(part: Message) -> str:
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    return _decode_bytes(_payload_bytes(part), charset)


def _safe(call: Callable[[], T], default: T) -> T:
    """`call()`, or `default` when the email library chokes on a malformed part."""
    try:
        return call()
    except Exception:
        return default


def _walk(msg: Message) -> tuple[list[str], list[str], list[Attachment]]:
    """(plain texts, html texts, attachments) over all leaf parts."""
    plains: list[str] = []
    htmls: list[str] = []
    attachments: list[Attachment] = []
    for part in _safe(lambda: list(msg.walk()), [msg]):
        if _safe(part.is_multipart, False):
            continue
        ctype = _safe(part.get_content_type, "text/plain")
        if ctype.startswith("multipart/"):  # broken multipart (no boundary): read it as text
            ctype = "text/plain"
        filename = _fix_surrogates(_safe(part.get_filename, None) or "")
        disposition = _safe(part.get_content_disposition, None)
        if ctype in ("text/plain", "text/html") and not filename and disposition != "attachment":
            (plains if ctype == "text/plain" else htmls).append(_part_text(part))
        elif ctype != "message/rfc822":
            size = len(_payload_bytes(part))
            attachments.append(Attachment(filename=filename, content_type=ctype, size=size))
    return plains, htmls, attachments


def _attached_messages(msg: Message) -> list[Attachment]:
    found = []
    for part in _safe(lambda: list(msg.walk()), []):
        if _safe(part.get_content_type, "") == "message/rfc822":
            name = _fix_surrogates(_safe(part.get_filename, None) or "")
            size = len(_safe(lambda p=part: p.as_bytes(), b""))
            found.append(Attachment(filename=name, content_type="message/rfc822", size=size))
    return found


def _bare_links(text: str, anchors: list[Link]) -> list[Link]:
    """Bare URLs of the text, minus those already known as an anchor's target or text."""
    seen = {link.href for link in anchors}
    shown = [link.text for link in anchors if link.text]
    links = []
    for match in BARE_URL.finditer(text):
        url = match.group(0).rstrip(TRAILING_PUNCT)
        if url and url not in seen and not any(url in label for label in shown):
            seen.add(url)
            links.append(Link(href=url))
    return links


def _parse(raw: str | bytes) -> Message:
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogateescape")
    try:
        return email.message_from_bytes(data, policy=policy.default)
    except Exception:  # pragma: no cover - the feed parser is very tolerant
        return email.message_from_bytes(b"\n\n" + data, policy=policy.default)


def html_text(markup: str) -> str:
    """The readable text of an HTML body, as `parse_message` reads an HTML-only message."""
    soup = _safe(lambda: _soup(markup), None)
    return "" if soup is None else _safe(lambda: _soup_text(soup), "").replace("\r\n", "\n")


def parse_message(raw: str | bytes) -> EmailView:
    """Parse one raw message into an `EmailView`; never raises on malformed input."""
    msg = _parse(raw or b"")
    headers = _headers(msg)
    from_name, from_address = _split_address(headers.get("from", ""))
    plains, htmls, attachments = _walk(msg)
    attachments += _attached_messages(msg)
    html = next((h for h in htmls if h.strip()), htmls[0] if htmls else None)
    links: list[Link] = []
    text = next((p.strip() for p in plains if p.strip()), "")
    if html is not None:
        soup = _safe(lambda: _soup(html), None)
        if soup is not None:
            links = _anchors(soup)
            if not text:
                text = _safe(lambda: _soup_text(soup), "")
    links += _bare_links(text, links)
    return EmailView(
        headers=headers,
        from_name=from_name,
        from_address=from_address,
        reply_to_address=_split_address(headers.get("reply-to", ""))[1],
        return_path_address=_split_address(headers.get("return-path", ""))[1],
        subject=headers.get("subject", "").split("\n", 1)[0],
        text=text.replace("\r\n", "\n"),
        html=html,
        links=tuple(links),
        attachments=tuple(attachments),
    )


# --------------------------------------------------------------------------------- building
def _one_line(value: str) -> str:
    return " ".join(value.split())


def _rfc5322_date(value: str) -> str | None:
    """The date as RFC 5322 when it parses (RFC 5322 or ISO 8601), else None."""
    value = _one_line(value)
    try:
        parsedate_to_datetime(value)
        return value
    except (TypeError, ValueError, IndexError):
        pass
    try:
        return format_datetime(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None


def _set_header(msg: EmailMessage, name: str, value: str) -> None:
    value = _one_line(value)
    if not value:
        return
    try:
        msg[name] = value
        str(msg[name])
    except Exception:  # unparsable address or date: keep the text, minus what breaks parsing
        del msg[name]
        msg[name] = re.sub(r"[<>@,;:\"()\[\]\\]", " ", value).strip() or "unknown"


def build_message(
    *,
    subject: str,
    body: str,
    sender: str = "",
    recipient: str = "",
    date: str = "",
    html: bool = False,
) -> str:
    """An RFC 5322 message (str) from bare fields, for sources without raw mail (CSV columns).

    Empty fields are left out. A date that is neither RFC 5322 nor ISO 8601 is kept verbatim
    in `X-Original-Date`; an address that does not parse is kept as plain text.
    """
    msg = EmailMessage(policy=policy.default)
    _set_header(msg, "From", sender)
    _set_header(msg, "To", recipient)
    _set_header(msg, "Subject", subject)
    if date.strip():
        formatted = _rfc5322_date(date)
        _set_header(msg, "Date" if formatted else "X-Original-Date", formatted or date)
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    short_lines = all(len(line.encode("utf-8")) <= 990 for line in body.split("\n"))
    cte = "8bit" if short_lines else "quoted-printable"
    msg.set_content(body, subtype="html" if html else "plain", cte=cte)
    return msg.as_string()
