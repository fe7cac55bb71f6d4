"""Text fingerprints for exact and near-duplicate detection (MinHash over word shingles)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from datasketch import MinHash

NUM_PERM = 128
SCHEME = "affine32"
SHINGLE_WORDS = 3
DEFAULT_NEAR_DUP_THRESHOLD = 0.85
"""Estimated Jaccard similarity of word 3-gram sets at which two rows count as near duplicates."""

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def normalise(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: what "the same content" means here."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def exact_key(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def shingles(text: str, size: int = SHINGLE_WORDS) -> set[bytes]:
    tokens = _TOKEN.findall(normalise(text))
    if len(tokens) <= size:
        return {" ".join(tokens).encode("utf-8")}
    return {" ".join(tokens[i : i + size]).encode("utf-8") for i in range(len(tokens) - size + 1)}


@lru_cache(maxsize=1)
def _template() -> MinHash:
    return MinHash(num_perm=NUM_PERM, seed=1, scheme=SCHEME)


def minhash(text: str) -> MinHash:
    """A MinHash of the text's word shingles (fixed permutations, so comparable across runs)."""
    sketch = MinHash(
        num_perm=NUM_PERM, seed=1, permutations=_template().permutations, scheme=SCHEME
    )
    sketch.update_batch(list(shingles(text)))
    return sketch
