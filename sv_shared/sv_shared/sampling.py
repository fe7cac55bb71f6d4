"""Seeded sampling helpers shared by the environments' generators."""

from __future__ import annotations

import random
from collections.abc import Iterable
from random import Random
from typing import TypeVar

T = TypeVar("T")


def weighted_pick(rng: Random, weighted: tuple[tuple[T, float], ...]) -> T:
    """One value of `weighted` ((value, weight) pairs), drawn with one `rng.random()` call
    in proportion to the weights (the last value if rounding leaves the draw past the end)."""
    x = rng.random() * sum(w for _, w in weighted)
    for value, weight in weighted:
        x -= weight
        if x < 0:
            return value
    return weighted[-1][0]


def shuffle_and_truncate(items: Iterable[T], seed: int | None, max_examples: int | None) -> list[T]:
    """The environments' `seed` / `max_examples` options: `items` as a new list, shuffled with
    `random.Random(seed)` when `seed` is given, then cut to its first `max_examples` when that
    is positive (-1 or None: all)."""
    out = list(items)
    if seed is not None:
        random.Random(seed).shuffle(out)
    if max_examples is not None and max_examples > 0:
        out = out[:max_examples]
    return out
