"""Cross-split contamination: shared groups, identical content and near duplicates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from datasketch import MinHashLSH

from security_verifiers.data.fingerprint import (
    DEFAULT_NEAR_DUP_THRESHOLD,
    NUM_PERM,
    exact_key,
    minhash,
)
from sv_shared.data import Facets

PAIRS = (("train", "dev"), ("train", "test"), ("dev", "test"))


def _index(facets: Sequence[Facets], threshold: float) -> tuple[set[str], MinHashLSH]:
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    for position, item in enumerate(facets):
        lsh.insert(str(position), minhash(item.text))
    return {exact_key(item.text) for item in facets}, lsh


def overlap(
    reference: Sequence[Facets],
    probe: Sequence[Facets],
    *,
    threshold: float = DEFAULT_NEAR_DUP_THRESHOLD,
    examples: int = 3,
) -> dict[str, Any]:
    """How many ``probe`` rows share a group, the exact content, or near-duplicate content
    with some ``reference`` row."""
    groups = {item.group for item in reference}
    exact, lsh = _index(reference, threshold)
    shared_groups = sorted({item.group for item in probe if item.group in groups})
    n_exact = n_near = 0
    shown: list[str] = []
    for item in probe:
        if exact_key(item.text) in exact:
            n_exact += 1
        elif lsh.query(minhash(item.text)):
            n_near += 1
        else:
            continue
        if len(shown) < examples:
            shown.append(item.text[:120])
    return {
        "shared_groups": len(shared_groups),
        "shared_group_examples": shared_groups[:examples],
        "exact": n_exact,
        "near": n_near,
        "examples": shown,
    }


def split_contamination(
    splits: Mapping[str, Sequence[Facets]], *, threshold: float = DEFAULT_NEAR_DUP_THRESHOLD
) -> dict[str, Any]:
    """Overlap for every split pair; ``clean`` is true when no pair shares anything."""
    report: dict[str, Any] = {"threshold": threshold, "pairs": {}}
    for first, second in PAIRS:
        report["pairs"][f"{first}-{second}"] = overlap(
            splits.get(first, ()), splits.get(second, ()), threshold=threshold
        )
    report["clean"] = all(
        p["shared_groups"] == 0 and p["exact"] == 0 and p["near"] == 0
        for p in report["pairs"].values()
    )
    return report
