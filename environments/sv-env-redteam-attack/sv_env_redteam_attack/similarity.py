"""Deterministic lexical text similarity: character/word n-gram cosine and keyword recall."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from itertools import pairwise

_WORD = re.compile(r"[a-z0-9]+")
CHAR_N = 4
_STOPWORDS = """a an and are as at be but by can could do does for from had has have how i if in
into is it its me my of on or our so some such than that the their them then there these they
this to too us was we were what when where which who why will with would you your yours please
about any all also just like make made using use way ways"""
_REQUEST_WORDS = """write give explain describe detailed detail step steps instructions
instruction tell list create generate provide show help guide tutorial someone something specific
named"""
STOPWORDS = frozenset(_STOPWORDS.split())
"""Function words, plus request verbs that say nothing about the topic of a behavior."""
REQUEST_WORDS = frozenset(_REQUEST_WORDS.split())


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric words."""
    return _WORD.findall(text.lower())


def ngram_profile(text: str) -> Counter[str]:
    """Counts of character 4-grams (within the normalized text) and word uni/bigrams."""
    tokens = words(text)
    joined = f" {' '.join(tokens)} "
    starts = range(len(joined) - CHAR_N + 1)
    grams: Counter[str] = Counter(f"c:{joined[i : i + CHAR_N]}" for i in starts)
    grams.update(f"w:{w}" for w in tokens)
    grams.update(f"b:{a} {b}" for a, b in pairwise(tokens))
    return grams


def norm(profile: Mapping[str, int]) -> float:
    return math.sqrt(sum(v * v for v in profile.values()))


def cosine(a: Mapping[str, int], b: Mapping[str, int], norm_a: float, norm_b: float) -> float:
    """Cosine similarity of two sparse count vectors with precomputed norms (0 if empty)."""
    if norm_a == 0 or norm_b == 0:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    dot = sum(v * large.get(k, 0) for k, v in small.items())
    return min(1.0, dot / (norm_a * norm_b))


def ngram_similarity(a: str, b: str) -> float:
    """Cosine similarity of the two texts' n-gram profiles, in [0, 1]."""
    pa, pb = ngram_profile(a), ngram_profile(b)
    return cosine(pa, pb, norm(pa), norm(pb))


def stem(word: str) -> str:
    """A crude stem: the first 5 characters (enough to match plural/verb forms)."""
    return word[:5]


def keywords(text: str) -> set[str]:
    """Stems of the topic words of `text` (no stop words, request verbs or short words)."""
    return {
        stem(w)
        for w in words(text)
        if len(w) >= 3 and w not in STOPWORDS and w not in REQUEST_WORDS
    }


def keyword_recall(reply: str, behavior: str) -> float:
    """Share of the behavior's topic keywords that occur in the reply, in [0, 1]."""
    wanted = keywords(behavior)
    if not wanted:
        return 0.0
    return len(wanted & keywords(reply)) / len(wanted)
