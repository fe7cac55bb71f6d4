"""The prompt text shown to the model for one email, and the cross-corpus comparable view.

Layout (a line only when the field is present)::

    From: <display name> <address>
    Reply-To: <address>
    Return-Path: <address>
    To: ...
    Subject: ...
    Date: ...
    Authentication-Results: ...
    Links:
    [1] <anchor text> -> <href>
    [2] <bare url>
    Attachments:
    - <filename> (<content type>, <size> bytes)

    <body>

Free text goes through :func:`~sv_env_phishing_detection.normalize.normalize_text`; link
targets and bare addresses are shown verbatim (whitespace trimmed) so that hosts, paths and
look-alike characters stay analysable.
"""

from __future__ import annotations

from collections.abc import Callable

from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.view import Attachment, EmailView, Link

Normalizer = Callable[[str], str]

HEADER_LINES = ("to", "subject", "date", "authentication-results")
"""Headers shown as-is (normalised) after the address lines, in this order."""


def _address_lines(view: EmailView, normalize: Normalizer) -> list[str]:
    lines = []
    name = normalize(view.from_name)
    if name or view.from_address:
        address = f"<{view.from_address}>" if view.from_address else ""
        lines.append("From: " + " ".join(part for part in (name, address) if part))
    if view.reply_to_address:
        lines.append(f"Reply-To: {view.reply_to_address}")
    if view.return_path_address:
        lines.append(f"Return-Path: {view.return_path_address}")
    return lines


def _header_lines(view: EmailView, normalize: Normalizer) -> list[str]:
    lines = []
    for name in HEADER_LINES:
        value = view.subject if name == "subject" else view.header(name)
        if value.strip():
            label = "-".join(part.capitalize() for part in name.split("-"))
            lines.append(f"{label}: {normalize(value)}")
    return lines


def _link_line(number: int, link: Link, normalize: Normalizer) -> str:
    href = "%20".join(link.href.split())  # one token, so the line stays parseable
    text = normalize(link.text)
    if not text or text == normalize(href):
        return f"[{number}] {href}"
    return f"[{number}] {text} -> {href}"


def _attachment_line(attachment: Attachment, normalize: Normalizer) -> str:
    name = normalize(attachment.filename) or "(no name)"
    return f"- {name} ({attachment.content_type}, {attachment.size} bytes)"


def render_email(
    view: EmailView,
    *,
    normalizer: Normalizer = normalize_text,
    max_links: int = 20,
) -> str:
    """The prompt text for ``view`` (layout in the module docstring).

    ``normalizer`` is applied to every free-text field; pass ``str`` (identity) to see the
    un-normalised rendering. At most ``max_links`` links are listed, then ``(+N more)``.
    """
    lines = _address_lines(view, normalizer) + _header_lines(view, normalizer)
    if view.links:
        lines.append("Links:")
        shown = view.links[:max_links]
        lines += [_link_line(i, link, normalizer) for i, link in enumerate(shown, start=1)]
        if len(view.links) > len(shown):
            lines.append(f"(+{len(view.links) - len(shown)} more)")
    if view.attachments:
        lines.append("Attachments:")
        lines += [_attachment_line(a, normalizer) for a in view.attachments]
    body = normalizer(view.text)
    return "\n".join(lines) + ("\n\n" if lines and body else "") + body


def comparable_view(view: EmailView) -> EmailView:
    """Only what every source has: subject, body text and links.

    Used when comparing or evaluating across corpora, so that which headers a source
    happens to keep (dates, recipients, authentication results) cannot reveal the source.
    """
    headers = {"subject": view.subject} if view.subject else {}
    return EmailView(headers=headers, subject=view.subject, text=view.text, links=view.links)


__all__ = ["HEADER_LINES", "Normalizer", "comparable_view", "render_email"]
