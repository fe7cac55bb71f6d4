"""Mapping benchmark behavior categories onto the Llama Guard 3 hazard codes S1–S14.

HarmBench's ``SemanticCategory`` and JailbreakBench's ``Category`` are coarser than (and not
aligned with) the Llama Guard 3 taxonomy, so each maps to the closest S-code, refined by a few
keyword rules on the behavior text (an election-fraud "misinformation" behavior is S13, a
self-harm "harmful" one S11). A file without a category column gets an inferred code
(:func:`infer_code`). The codes group run metrics by hazard; whether a reply is on behavior
never depends on them (see ``on_behavior``).
"""

from __future__ import annotations

import re

from sv_shared.safety import tag_categories
from sv_shared.safety.offline_model import shipped_model

S_CODES = tuple(f"S{n}" for n in range(1, 15))

HARMBENCH_CATEGORIES: dict[str, str] = {
    "chemical_biological": "S9",
    "illegal": "S2",
    "misinformation_disinformation": "S5",
    "harmful": "S1",
    "harassment_bullying": "S10",
    "cybercrime_intrusion": "S2",
    "copyright": "S8",
}
"""HarmBench SemanticCategory -> S-code."""

JBB_CATEGORIES: dict[str, str] = {
    "harassment/discrimination": "S10",
    "malware/hacking": "S2",
    "physical harm": "S1",
    "economic harm": "S2",
    "fraud/deception": "S2",
    "disinformation": "S5",
    "sexual/adult content": "S12",
    "privacy": "S7",
    "expert advice": "S6",
    "government decision-making": "S2",
}
"""JailbreakBench Category (lower-cased) -> S-code."""

_KEYWORD_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(suicide|self-harm|self harm|eating disorder|anorexi\w*)\b", re.I), "S11"),
    (re.compile(r"\b(election|ballot|voter|voting)\b", re.I), "S13"),
    (re.compile(r"\b(bioweapon|nerve agent|chemical weapon|nuclear|radiological)\b", re.I), "S9"),
    (re.compile(r"\b(lyrics|passage from|copyrighted)\b", re.I), "S8"),
)


def refine(code: str, text: str) -> str:
    """``code``, or the S-code of the first keyword rule that matches ``text``."""
    for pattern, refined in _KEYWORD_RULES:
        if pattern.search(text):
            return refined
    return code


def harmbench_code(semantic_category: str, text: str = "") -> str | None:
    """S-code of a HarmBench SemanticCategory (None when unknown)."""
    code = HARMBENCH_CATEGORIES.get(semantic_category.strip().lower())
    return None if code is None else refine(code, text)


def jbb_code(category: str, text: str = "") -> str | None:
    """S-code of a JailbreakBench Category (None when unknown)."""
    code = JBB_CATEGORIES.get(category.strip().lower())
    return None if code is None else refine(code, text)


def infer_code(text: str) -> str:
    """A best-guess S-code for a behavior without a category column: the safety lexicon's
    first harm category, else the offline judge's category model's top guess, then the
    keyword rules above. It groups metrics only; the reward never reads it."""
    tagged = tag_categories(text)
    if tagged:
        return refine(tagged[0], text)
    scores = shipped_model().category_scores(text)
    return refine(max(sorted(scores), key=scores.__getitem__), text)
