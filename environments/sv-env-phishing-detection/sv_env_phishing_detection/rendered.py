"""Reading a rendered prompt (see `render.render_email`) back into an `EmailView`.

Baselines see only what a model sees; this turns the prompt text back into fields so that the
indicator rules can run on it.
"""

from __future__ import annotations

import re

from .view import Attachment, EmailView, Link

_LINK = re.compile(r"^\[\d+\] (?:(?P<text>.*) -> )?(?P<href>\S+)$")
_ATTACHMENT = re.compile(r"^- (?P<name>.*) \((?P<ctype>[^,()]+), (?P<size>\d+) bytes\)$")
_FROM = re.compile(r"^(?P<name>.*?)\s*<(?P<address>[^<>]*)>$")


def parse_rendered_email(prompt: str) -> EmailView:
    """The fields of a rendered email; unknown lines are ignored, never raises."""
    head, _, body = prompt.partition("\n\n")
    headers: dict[str, str] = {}
    links: list[Link] = []
    attachments: list[Attachment] = []
    section = ""
    for line in head.splitlines():
        if line in ("Links:", "Attachments:"):
            section = line
            continue
        if section == "Links:" and (match := _LINK.match(line)):
            links.append(Link(href=match["href"], text=match["text"] or ""))
        elif section == "Attachments:" and (match := _ATTACHMENT.match(line)):
            attachments.append(Attachment(match["name"], match["ctype"], int(match["size"])))
        elif ": " in line and not section:
            name, _, value = line.partition(": ")
            headers[name.strip().lower()] = value.strip()
    if not headers and not links and not attachments:
        body = prompt  # a body-only rendering has no header block
    sender = _FROM.match(headers.get("from", ""))
    return EmailView(
        headers=headers,
        from_name=sender["name"] if sender else headers.get("from", ""),
        from_address=sender["address"] if sender else "",
        reply_to_address=headers.get("reply-to", ""),
        return_path_address=headers.get("return-path", ""),
        subject=headers.get("subject", ""),
        text=body,
        links=tuple(links),
        attachments=tuple(attachments),
    )
