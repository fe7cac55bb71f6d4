"""URL credentials (`scheme://user:password@host`): found and removed in one place, for
model specs, run metadata, logs and reports alike."""

from __future__ import annotations

import re

USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#\s<>\"'`]*)@")
"""`scheme://userinfo@`; userinfo runs to the last `@` of the authority (a password may hold
an unescaped `@`)."""


def strip_userinfo(text: str) -> str:
    """`text` with the user:password part of every URL in it removed
    (`m@http://user:pw@host/v1` -> `m@http://host/v1`)."""
    return USERINFO.sub(lambda m: m.group("scheme"), text)


def has_userinfo(text: str) -> bool:
    return USERINFO.search(text) is not None
