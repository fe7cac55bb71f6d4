"""Example order for SFT batches.

`label_balanced_order` interleaves classification examples so that every run of consecutive
examples (so every sequential batch) holds the labels in the data's proportions. With random
batches of 8 on a 50/50 task, most of each step's label gradient is the batch's label surplus,
which flips sign from batch to batch; with balanced batches that part stays near zero and the
step follows what separates the examples.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable
from typing import Any


def answer_object(text: str) -> dict[str, Any] | None:
    """The JSON object an answer consists of (E1/E4 style), or None."""
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return None
    return answer if isinstance(answer, dict) else None


def answer_label(example: dict[str, Any]) -> str | None:
    """The `label` of an example's JSON answer (E1/E4 style), or None."""
    completion = example.get("completion") or []
    text = completion[-1].get("content") if completion else None
    answer = answer_object(text) if isinstance(text, str) else None
    label = None if answer is None else answer.get("label")
    return str(label) if label is not None else None


def label_balanced_order(
    examples: list[dict[str, Any]],
    seed: int,
    key: Callable[[dict[str, Any]], str | None] = answer_label,
    equal_shares: bool = False,
) -> list[dict[str, Any]]:
    """The examples reordered: shuffled within each label (`key`), then interleaved so that
    after every position each label's running count is as close as possible to its share —
    its share of the examples, or with `equal_shares` the same for every label (until a
    label runs out)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for example in examples:
        groups[key(example) or ""].append(example)
    rng = random.Random(seed)
    for label in sorted(groups):
        rng.shuffle(groups[label])
    total = len(examples)
    share = {
        label: 1 / len(groups) if equal_shares else len(members) / total
        for label, members in groups.items()
    }
    taken = dict.fromkeys(groups, 0)
    ordered: list[dict[str, Any]] = []
    for position in range(1, total + 1):
        label = max(
            (label for label in sorted(groups) if taken[label] < len(groups[label])),
            key=lambda label: position * share[label] - taken[label],
        )
        ordered.append(groups[label][taken[label]])
        taken[label] += 1
    return ordered
