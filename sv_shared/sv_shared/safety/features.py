"""Hashed sparse features of a request for the offline judge's linear models.

Word unigrams/bigrams and character 4-grams (L2-normalised together) plus the hand-written
cues of :mod:`sv_shared.safety.lexicon` and a few of their interactions (weight 1 each).
Hashing uses CRC32, so features are identical across runs, machines and Python versions.
"""

from __future__ import annotations

import math
import re
import zlib
from itertools import pairwise

from sv_shared.safety.lexicon import cue_counts, harm_hits
from sv_shared.safety.text_cues import normalize

DIMENSION = 1 << 18
CUE_WEIGHT = 1.0
"""Value of a present cue feature (n-grams together have unit norm)."""
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")

_INTERACTIONS: tuple[tuple[str, str], ...] = (
    ("harm", "how_to"),
    ("harm", "generate"),
    ("harm", "definition"),
    ("harm", "history"),
    ("harm", "game_or_fiction"),
    ("harm", "evasion"),
    ("harm", "safety_intent"),
    ("harm", "first_person_intent"),
    ("harm", "target_person"),
    ("harm", "fictional_character"),
    ("harm", "public_entity"),
    ("real_group", "discrimination"),
    ("nonsense_group", "discrimination"),
    ("real_group", "nonsense_ability"),
    ("definition", "how_to"),
    ("persuade", "generate"),
    ("fictional_character", "definition"),
    ("public_entity", "definition"),
    ("benign_sense", "how_to"),
)


def feature_index(name: str) -> int:
    """Stable hash bucket of a feature name."""
    return zlib.crc32(name.encode("utf-8")) % DIMENSION


def cue_names(text: str) -> list[str]:
    """Named dense features: lexicon cues, harm categories and interactions present in ``text``."""
    hits, benign = harm_hits(text)
    present = set(cue_counts(text))
    if hits:
        present.add("harm")
        present.update(f"harm:{code}" for code in hits)
        if len(hits) > 1:
            present.add("harm:multi")
    if benign:
        present.add("benign_sense")
        if not hits:
            present.add("benign_sense_only")
    present.update(f"{a}&{b}" for a, b in _INTERACTIONS if a in present and b in present)
    return sorted(present)


def featurize(text: str) -> dict[int, float]:
    """Sparse feature vector of ``text``: {bucket: value}."""
    normalized = normalize(text)
    tokens = _TOKEN.findall(normalized)
    grams = [f"w:{t}" for t in tokens]
    grams += [f"b:{a} {b}" for a, b in pairwise(tokens)]
    for token in tokens:
        padded = f" {token} "
        grams += [f"c:{padded[i : i + 4]}" for i in range(max(1, len(padded) - 3))]
    vector: dict[int, float] = {}
    for gram in set(grams):
        index = feature_index(gram)
        vector[index] = vector.get(index, 0.0) + 1.0
    norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    vector = {index: value / norm for index, value in vector.items()}
    for name in cue_names(text):
        index = feature_index(f"cue:{name}")
        vector[index] = vector.get(index, 0.0) + CUE_WEIGHT
    return vector
