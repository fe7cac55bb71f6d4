"""Rejecting synthetic rows that repeat each other or overlap an existing dataset."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Known:
    where: str
    group: str | None
    evaluation: bool
    """In a dev/test split: any overlap there is contamination, whatever the group."""


class CandidateFilter:
    """Exact and near-duplicate checks against accepted candidates and a reference build.

    Exact copies are always rejected. Near duplicates are rejected too, except of rows of the
    candidate's own group outside dev/test (variants of one source function or base config
    are that group's purpose, and a group never crosses splits). Overlap with a dev/test split
    is reported as contamination.
    """

    def __init__(self, adapter: DataAdapter, threshold: float = DEFAULT_NEAR_DUP_THRESHOLD):
        self.adapter = adapter
        self._exact: dict[str, _Known] = {}
        self._lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
        self._known: dict[str, _Known] = {}
        self._examples: list[tuple[set[bytes], _Known]] = []
        self.containment: float | None = DEFAULT_EXAMPLE_CONTAINMENT
        self.reference_info: dict[str, Any] | None = None

    @classmethod
    def for_env(cls, adapter: DataAdapter, reference: str | None) -> CandidateFilter:
        gate = cls(adapter)
        if reference is None:
            return gate
        try:
            for split in SPLIT_NAMES:
                built = load_built_split(adapter.env_id, reference, split, adapter.from_json)
                where = f"a row in the {split} split of {built.info['build']}"
                for row in built.rows:
                    seen = adapter.facets(row)
                    gate.add_text(seen.text, where, seen.group, evaluation=split != "train")
                gate.reference_info = {
                    "dataset": built.info["dataset"],
                    "checked_splits": list(SPLIT_NAMES),
                }
        except DatasetStoreError as exc:
            gate.reference_info = {"dataset": None, "note": str(exc)}
        return gate

    def add_text(
        self, text: str, where: str, group: str | None = None, *, evaluation: bool = False
    ) -> None:
        known = _Known(where, group, evaluation)
        key = str(len(self._known))
        self._exact.setdefault(exact_key(text), known)
        self._lsh.insert(key, minhash(text))
        self._known[key] = known

    def add_example(self, text: str, where: str, group: str | None = None) -> None:
        """A text shown in a prompt: candidates may not copy it, nor embed most of it."""
        self.add_text(text, where, group)
        self._examples.append((shingles(text), _Known(where, group, False)))

    def remember(self, row: Any) -> None:
        seen = self.adapter.facets(row)
        self.add_text(seen.text, "an earlier candidate", seen.group)

    def _embedded_example(self, text: str, group: str) -> str:
        if not self.containment:
            return ""
        candidate = shingles(text)
        for example, known in self._examples:
            if known.group == group:
                continue
            if len(example & candidate) >= self.containment * len(example):
                return known.where
        return ""

    def check(self, row: Any) -> str:
        """'' when the row is new; otherwise why it is rejected."""
        seen = self.adapter.facets(row)
        known = self._exact.get(exact_key(seen.text))
        kind = "exact duplicate of"
        if known is None:
            embedded = self._embedded_example(seen.text, seen.group)
            if embedded:
                return f"embeds most of {embedded}"
            matches = [
                self._known[key]
                for key in sorted(self._lsh.query(minhash(seen.text)), key=int)
                if self._known[key].evaluation or self._known[key].group != seen.group
            ]
            if not matches:
                return ""
            known, kind = matches[0], "near duplicate of"
        prefix = "contaminates: " if known.evaluation else ""
        return f"{prefix}{kind} {known.where}"
