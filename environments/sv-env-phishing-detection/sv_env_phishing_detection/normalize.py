"""The one text normalisation used for every source: prompts and quoted-evidence matching.

:func:`normalize_text` erases the formatting that tells corpora apart — case, HTML entities,
typographic quotes and dashes, invisible characters, line layout, decorative rules
(``-----``), reply-quote markers (``> >``) and tokenised punctuation (``enron ' s``,
``05 / 08 / 2000``, ``713 - 345``, ``" ibrom , lorraine "``) — while keeping words, numbers,
URLs and addresses readable: it only removes spaces around punctuation, never adds any inside
a word, URL or address.

Guarantees (checked by the tests):

* idempotent: ``normalize_text(normalize_text(x)) == normalize_text(x)``;
* quote-safe: for any substring ``q`` of a normalised text ``t``,
  ``normalize_text(q) in t`` — a quote the model copies from the prompt is found again.
  Each spacing rule therefore either looks only at the characters it rewrites plus positive
  context (no ``\\b``, ``$`` or negative look-arounds that a cut could satisfy), or needs a
  spaced pattern (`` , ``, `` " ``, `` > ``) that never survives normalisation, or only
  trims the ends of the text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from html.entities import html5 as html5_entities

INVISIBLE_CHARS = frozenset(
    [chr(c) for c in range(0x200B, 0x2010)]  # zero-width space/joiners, LRM, RLM
    + [chr(c) for c in range(0x202A, 0x202F)]  # bidi embeddings and overrides
    + [chr(c) for c in range(0x2060, 0x2065)]  # word joiner, invisible operators
    + [chr(c) for c in range(0x2066, 0x206A)]  # bidi isolates
    + ["\ufeff", "\u00ad", "\u061c", "\u180e", "\u034f"]  # BOM, soft hyphen, ALM, MVS, CGJ
)
"""Characters that render as nothing (zero-width, bidi controls, soft hyphen): removed."""

_CONTROL_CHARS = [chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]]
_CHAR_MAP: dict[int, str | None] = {
    **{ord(c): None for c in INVISIBLE_CHARS},
    **{ord(c): " " for c in _CONTROL_CHARS},  # incl. tab/newline; C1 controls from mojibake
    **{ord(c): "'" for c in "‘’‚‛′‵`´"},
    **{ord(c): '"' for c in "“”„‟″‶«»"},
    **{ord(c): "-" for c in "‐‑‒–—―−⁃"},
    **{ord(c): "*" for c in "•◦▪●·∙"},
    ord("©"): "(c)",
    ord("®"): "(r)",
}
"""Typographic variants -> one ASCII spelling; control characters -> space."""

_Replacement = str | Callable[[re.Match[str]], str]
_SPACING_RULES: tuple[tuple[re.Pattern[str], _Replacement], ...] = (
    # tokenised numbers: 16 , 495 / 3 . 5 / 11 : 46 (but "april 7 , 2001" keeps its space)
    (re.compile(r"(\d) , (?=\d{3}(?!\d))"), r"\1,"),
    (re.compile(r"(\d) \. (?=\d)"), r"\1."),
    (re.compile(r"(\d) : (?=\d{2}(?!\d))"), r"\1:"),
    (re.compile(r" +([.,;:!?)\]}])"), r"\1"),  # no space before closing punctuation
    (re.compile(r"(\d) %"), r"\1%"),  # 5 % -> 5%
    (re.compile(r"([(\[{]) +"), r"\1"),  # no space after an opening bracket
    (re.compile(r"(\w) ([/@']) (?=\w)"), r"\1\2"),  # 05 / 08, enron ' s, ect @ ect
    (re.compile(r"(\d) - (?=\d)"), r"\1-"),  # 713 - 345 (a spaced dash between words stays)
    (re.compile(r"(\w): ?/ ?/ ?(?=\w)"), r"\1://"),  # http : / / www
    (re.compile(r"([#$€£]) (?=\d)"), r"\1"),  # # 5095 / $ 100
    (re.compile(r"([-_=*])(?: \1)+"), lambda m: m.group(0).replace(" ", "")),  # - - - -> ---
    (re.compile(r"([^\w\s])\1{3,}"), r"\1\1\1"),  # runs: !!!!! -> !!!, ...... -> ...
    (re.compile(r"(?:^| )[-=_*~]{3,}(?= |$)"), " "),  # decorative rules: ----- / ***** / ====
    (re.compile(r"(?:^| )>(?: ?>)*(?: |$)"), " "),  # reply-quote markers left by line joins
)
_SPACE_RUN = re.compile(r"\s+")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_MAX_PASSES = 20


def _decode_entity(match: re.Match[str]) -> str:
    entity = match.group(0)
    if entity.startswith("&#"):
        return html.unescape(entity)
    return html5_entities.get(entity[1:], entity)


def unescape_entities(text: str) -> str:
    """Decode ``;``-terminated HTML entities, repeatedly (``&amp;lt;`` -> ``<``).

    Unlike :func:`html.unescape`, bare legacy names are left alone, so URL queries such as
    ``?a=1&param=2`` or ``&region=us`` keep their text.
    """
    while True:
        decoded = _ENTITY.sub(_decode_entity, text)
        if decoded == text:
            return text
        text = decoded


def _tighten_quotes(text: str) -> str:
    """``say " hi "`` -> ``say "hi"``: a double quote with spaces on both sides sticks to its
    quoted text (opening or closing by the count of quotes before it)."""
    if ' " ' not in text:
        return text
    parts = text.split('"')
    for i in range(len(parts) - 1):
        opening = i % 2 == 0
        before, after = parts[i], parts[i + 1]
        if before.endswith(" ") and after.startswith(" "):
            parts[i], parts[i + 1] = (before, after[1:]) if opening else (before[:-1], after)
    return '"'.join(parts)


def _normalize_once(text: str) -> str:
    text = unescape_entities(text)
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP).lower()
    text = _SPACE_RUN.sub(" ", text).strip()
    for pattern, replacement in _SPACING_RULES:
        text = pattern.sub(replacement, text)
    return _SPACE_RUN.sub(" ", _tighten_quotes(text)).strip()


def normalize_text(text: str) -> str:
    """Canonical, lower-cased, single-spaced form of ``text`` (see the module docstring).

    Steps: ``;``-terminated HTML entities decoded, Unicode NFKC, invisible characters removed,
    typographic quotes/dashes/bullets mapped to ASCII, lower-cased, whitespace collapsed, then
    canonical spacing: none before ``.,;:!?)``, none after ``([{``, none around ``/ @ '``
    between words, tokenised numbers re-joined, decorative rules and reply-quote markers
    dropped. Repeated until stable, so it is idempotent.
    """
    for _ in range(_MAX_PASSES):
        normalized = _normalize_once(text)
        if normalized == text:
            break
        text = normalized
    return text


def remove_invisible(text: str) -> str:
    """``text`` without zero-width / bidi-control characters (nothing else changed)."""
    return text.translate({ord(c): None for c in INVISIBLE_CHARS})


__all__ = ["INVISIBLE_CHARS", "normalize_text", "remove_invisible", "unescape_entities"]
