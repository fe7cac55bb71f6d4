"""Rejecting synthetic rows that repeat each other or overlap an existing dataset."""

from __future__ import annotations

from typing import Any

from datasketch import MinHashLSH

from security_verifiers.data.fingerprint import (
    DEFAULT_NEAR_DUP_THRESHOLD,
    NUM_PERM,
    exact_key,
    minhash,
    shingles,
)
from sv_shared.data import DataAdapter
from sv_shared.data.splits import SPLIT_NAMES
from sv_shared.data.store import DatasetStoreError, load_built_split

DEFAULT_EXAMPLE_CONTAINMENT = 0.8
"""Share of an example's word 3-grams a candidate may not reuse (example plus a clause)."""


class CandidateFilter:
    """Exact and near-duplicate checks against accepted candidates and a reference build.

    Overlap with the reference's dev/test splits is contamination; overlap with its train
    split or with an earlier candidate is a duplicate. Both are rejected.
    """

    def __init__(self, adapter: DataAdapter, threshold: float = DEFAULT_NEAR_DUP_THRESHOLD):
        self.adapter = adapter
        self._exact: dict[str, str] = {}
        self._lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
        self._where: dict[str, str] = {}
        self._examples: list[tuple[set[bytes], str]] = []
        self.containment = DEFAULT_EXAMPLE_CONTAINMENT
        self.reference_info: dict[str, Any] | None = None

    @classmethod
    def for_env(cls, adapter: DataAdapter, reference: str | None) -> CandidateFilter:
        gate = cls(adapter)
        if reference is None:
            return gate
        try:
            for split in SPLIT_NAMES:
                built = load_built_split(adapter.env_id, reference, split, adapter.from_json)
                for row in built.rows:
                    gate._add(row, f"a row in the {split} split of {built.info['build']}")
                gate.reference_info = {
                    "dataset": built.info["dataset"],
                    "checked_splits": list(SPLIT_NAMES),
                }
        except DatasetStoreError as exc:
            gate.reference_info = {"dataset": None, "note": str(exc)}
        return gate

    def _add(self, row: Any, where: str) -> None:
        self.add_text(self.adapter.facets(row).text, where)

    def add_text(self, text: str, where: str) -> None:
        key = f"{len(self._where)}"
        self._exact.setdefault(exact_key(text), where)
        self._lsh.insert(key, minhash(text))
        self._where[key] = where

    def add_example(self, text: str, where: str) -> None:
        """A text shown in a prompt: candidates may not copy it, nor embed most of it."""
        self.add_text(text, where)
        self._examples.append((shingles(text), where))

    def _embedded_example(self, text: str) -> str:
        if not self.containment:
            return ""
        candidate = shingles(text)
        for example, where in self._examples:
            if len(example & candidate) >= self.containment * len(example):
                return where
        return ""

    def remember(self, row: Any) -> None:
        self._add(row, "an earlier candidate")

    def check(self, row: Any) -> str:
        """'' when the row is new; otherwise why it is rejected."""
        text = self.adapter.facets(row).text
        where = self._exact.get(exact_key(text))
        embedded = "" if where else self._embedded_example(text)
        if embedded:
            return f"embeds most of {embedded}"
        if where is None:
            matches = self._lsh.query(minhash(text))
            if not matches:
                return ""
            where = self._where[sorted(matches, key=int)[0]]
            kind = "near duplicate of"
        else:
            kind = "exact duplicate of"
        prefix = (
            "contaminates: " if where.startswith(("a row in the dev", "a row in the test")) else ""
        )
        return f"{prefix}{kind} {where}"
