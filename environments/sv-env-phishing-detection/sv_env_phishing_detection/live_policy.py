"""The scripted tool call of live checks in tool mode (`include_tools=true`): look up the
email's first link before answering. Named by the spec's `tool_policy` hook."""

from __future__ import annotations

import re
from typing import Any

LINK = re.compile(r"https?://[^\s\"'<>]+")


def first_link_lookup(prompt: str) -> tuple[str, dict[str, Any]] | None:
    """`lookup_url` on the first link of the prompt; None (answer at once) when it has none."""
    link = LINK.search(prompt)
    return ("lookup_url", {"url": link.group(0)}) if link else None
