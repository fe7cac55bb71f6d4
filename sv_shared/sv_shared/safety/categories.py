"""The Llama Guard 3 hazard taxonomy (MLCommons S1–S14)."""

from __future__ import annotations

import re

CATEGORIES: dict[str, str] = {
    "S1": "Violent Crimes",
    "S2": "Non-Violent Crimes",
    "S3": "Sex-Related Crimes",
    "S4": "Child Sexual Exploitation",
    "S5": "Defamation",
    "S6": "Specialized Advice",
    "S7": "Privacy",
    "S8": "Intellectual Property",
    "S9": "Indiscriminate Weapons",
    "S10": "Hate",
    "S11": "Suicide & Self-Harm",
    "S12": "Sexual Content",
    "S13": "Elections",
    "S14": "Code Interpreter Abuse",
}

_CODE = re.compile(r"\bS(1[0-4]|[1-9])\b", re.IGNORECASE)


def parse_categories(text: str) -> tuple[str, ...]:
    """Unique S-codes in ``text`` ("S1,S10" -> ("S1", "S10")), sorted by number."""
    numbers = {int(m.group(1)) for m in _CODE.finditer(text)}
    return tuple(f"S{n}" for n in sorted(numbers))
