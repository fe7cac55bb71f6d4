"""Grouped, stratified train/dev/test splits that depend only on the item set and a seed."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")

SPLIT_NAMES = ("train", "dev", "test")
DEFAULT_FRACTIONS = (0.7, 0.15, 0.15)


def stable_unit(*parts: object) -> float:
    """A stable pseudo-random number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def check_fractions(fractions: Sequence[float]) -> tuple[float, float, float]:
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-6:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1: {fractions}")
    return (float(fractions[0]), float(fractions[1]), float(fractions[2]))


def grouped_split(
    items: Sequence[T],
    *,
    group: Callable[[T], str],
    stratum: Callable[[T], Hashable],
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    seed: int = 0,
) -> dict[str, list[T]]:
    """Split ``items`` so no group spans two splits and every stratum follows ``fractions``.

    Systematic sampling with a random start: each group is stratified by its majority stratum;
    within a stratum, groups are ordered by ``sha256(seed, group)`` and laid end to end on
    [0, 1) in proportion to their sizes, shifted by a per-stratum offset derived from the seed;
    a group goes to the split whose interval contains its midpoint. Small strata land in each
    split with probability equal to its fraction. The result depends only on the set of items
    and the seed, never on list order; items keep their input order within a split.
    """
    bounds_f = check_fractions(fractions)
    members: dict[str, Counter[Hashable]] = {}
    for item in items:
        members.setdefault(group(item), Counter())[stratum(item)] += 1
    strata: dict[Hashable, list[str]] = {}
    for name, counts in members.items():
        majority = max(counts, key=lambda key: (counts[key], str(key)))
        strata.setdefault(majority, []).append(name)
    bounds = (bounds_f[0], bounds_f[0] + bounds_f[1])
    assignment: dict[str, str] = {}
    for key, groups in strata.items():
        groups.sort(key=lambda g: (stable_unit(seed, "group", g), g))
        total = sum(sum(members[g].values()) for g in groups)
        parts = key if isinstance(key, tuple) else (key,)
        position = stable_unit(seed, "stratum", *parts) * total
        for name in groups:
            size = sum(members[name].values())
            mid = ((position + size / 2) / total) % 1.0
            position += size
            index = 0 if mid < bounds[0] else 1 if mid < bounds[1] else 2
            assignment[name] = SPLIT_NAMES[index]
    out: dict[str, list[T]] = {name: [] for name in SPLIT_NAMES}
    for item in items:
        out[assignment[group(item)]].append(item)
    return out
