"""Removing exact and near duplicates before splitting."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from datasketch import MinHashLSH

from security_verifiers.data.fingerprint import (
    DEFAULT_NEAR_DUP_THRESHOLD,
    NUM_PERM,
    exact_key,
    minhash,
)
from sv_shared.data import Facets

T = TypeVar("T")


@dataclass
class DedupReport:
    exact: int = 0
    near: int = 0
    kept_same_group_near: int = 0
    removed: list[tuple[int, str, str]] = field(default_factory=list)
    """(row index, row id, reason) of every removed row."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "exact_duplicates_removed": self.exact,
            "near_duplicates_removed": self.near,
            "near_duplicates_kept_within_group": self.kept_same_group_near,
        }


def deduplicate(
    rows: Sequence[T],
    facets: Callable[[T], Facets],
    ids: Callable[[T], str],
    *,
    threshold: float | None = DEFAULT_NEAR_DUP_THRESHOLD,
) -> tuple[list[T], DedupReport]:
    """Keep the first of every exact duplicate and of every near duplicate across groups.

    Near duplicates inside one group are kept: a group never crosses splits, and related rows
    (mutations of one base config, flows of one session) are the group's reason to exist.
    ``threshold=None`` switches near-duplicate detection off.
    """
    report = DedupReport()
    first_by_key: dict[str, str] = {}
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM) if threshold else None
    group_of: dict[str, str] = {}
    kept: list[T] = []
    for index, row in enumerate(rows):
        seen = facets(row)
        row_id = ids(row)
        key = exact_key(seen.text)
        if key in first_by_key:
            report.exact += 1
            report.removed.append((index, row_id, f"exact duplicate of {first_by_key[key]}"))
            continue
        if lsh is not None:
            sketch = minhash(seen.text)
            matches = lsh.query(sketch)
            other = [m for m in matches if group_of[m] != seen.group]
            if other:
                report.near += 1
                report.removed.append((index, row_id, f"near duplicate of {sorted(other)[0]}"))
                continue
            if matches:
                report.kept_same_group_near += 1
            lsh.insert(row_id, sketch)
        first_by_key[key] = row_id
        group_of[row_id] = seen.group
        kept.append(row)
    return kept, report
