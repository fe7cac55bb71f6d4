"""What the rest of E4 sees of an email: decoded headers, body text, links and attachments."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Link:
    """A hyperlink: `href` is the target; `text` is what the reader sees ("" for a bare URL)."""

    href: str
    text: str = ""


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    size: int = 0


@dataclass(frozen=True)
class EmailView:
    """A parsed email (see `message.parse_message`).

    `headers` maps lower-case header names to decoded values (repeated headers joined by
    newlines). Addresses are lower-case bare addresses ("" when absent). `text` is the readable
    body: the text/plain part, or the HTML part converted to text when there is no plain part.
    `links` holds HTML anchors, then form targets, then bare URLs found in the text.
    """

    headers: dict[str, str] = field(default_factory=dict)
    from_name: str = ""
    from_address: str = ""
    reply_to_address: str = ""
    return_path_address: str = ""
    subject: str = ""
    text: str = ""
    html: str | None = None
    links: tuple[Link, ...] = ()
    attachments: tuple[Attachment, ...] = ()

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")
