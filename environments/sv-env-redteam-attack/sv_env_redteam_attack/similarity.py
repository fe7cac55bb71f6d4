"""Deterministic lexical text similarity: character/word n-gram cosine."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from itertools import pairwise

_WORD = re.compile(r"[a-z0-9]+")
CHAR_N = 4


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
