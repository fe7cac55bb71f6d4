"""Expert iteration's `prune_fields`: each sampled answer replaced by the best-scoring subset
of a list field (E4's `evidence`), judged by the environment's own reward.

A sampled answer that names one supported and one unsupported item teaches the item it got
wrong as much as the one it got right. Trying every subset of the list (order kept; lists of
at most `MAX_ITEMS` items) and keeping the variant the reward scores highest turns that answer
into one that names only what the reward confirmed, or nothing. Only a strictly higher reward
replaces an answer, so an answer the reward cannot tell apart from its variants stays as
sampled. The reward decides alone: no variant is preferred for being shorter.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence

from security_verifiers.training.batching import answer_object

MAX_ITEMS = 5
"""Longer lists are left as sampled (31 proper subsets is the most scored per answer)."""

Score = Callable[[list[str]], list[float]]
"""Rewards of answers to one prompt, in order."""


def subset_variants(text: str, field: str, max_items: int = MAX_ITEMS) -> list[str]:
    """The answer with its `field` list cut to each proper subset (order kept); [] when the
    answer is not a JSON object with a non-empty list there of at most `max_items` items."""
    answer = answer_object(text)
    items = None if answer is None else answer.get(field)
    if answer is None or not isinstance(items, list) or not items or len(items) > max_items:
        return []
    return [
        json.dumps({**answer, field: [items[i] for i in keep]}, ensure_ascii=False)
        for size in range(len(items))
        for keep in itertools.combinations(range(len(items)), size)
    ]


def prune_group(
    texts: Sequence[str], rewards: Sequence[float], fields: Sequence[str], score: Score
) -> tuple[list[str], list[float], int]:
    """Each answer replaced by its highest-reward variant over `fields` (one field after the
    other) where that beats it. Returns the answers, their rewards and how many changed."""
    texts, rewards = list(texts), list(rewards)
    changed: set[int] = set()
    for field in fields:
        variants = [subset_variants(text, field) for text in texts]
        unique = list(dict.fromkeys(v for vs in variants for v in vs))  # a group repeats itself
        if not unique:
            continue
        scored = dict(zip(unique, score(unique), strict=True))
        for i, candidates in enumerate(variants):
            for candidate in candidates:
                reward = scored[candidate]
                if reward > rewards[i]:
                    texts[i], rewards[i] = candidate, reward
                    changed.add(i)
    return texts, rewards, len(changed)
