"""The synthetic E4 corpus as train/dev/test splits, grouped by template and stratified.

A template's emails share wording, so they must never straddle splits: `assign_splits` moves
whole groups. Groups are stratified by their (label, scenario). Within a stratum they are
interleaved by language (a seeded language order, rotated by one from stratum to stratum;
each language's groups in seeded hash order) and dealt out train, dev, test by largest
remainder. So every stratum with at least three groups lands in all three splits, languages
spread evenly over the splits, and a group's split depends only on the seed and the set of
groups, never on record order.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from sv_env_phishing_detection.generator import generate_corpus
from sv_env_phishing_detection.records import EmailRecord
from sv_shared import dataset_cache

SPLIT_NAMES = ("train", "dev", "test")
DEFAULT_SIZE = 2000
DEFAULT_SEED = 42

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_SIZE",
    "SPLIT_NAMES",
    "SyntheticDatasetError",
    "assign_splits",
    "corpus_summary",
    "load_synthetic",
]


class SyntheticDatasetError(ValueError):
    """A bad request for the synthetic dataset (unknown split, invalid ratios)."""


def _unit(*parts: object) -> float:
    """A stable pseudo-random number in [0, 1) derived from `parts`."""
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _check_ratios(ratios: Sequence[float]) -> tuple[float, float, float]:
    if len(ratios) != 3 or any(r < 0 for r in ratios) or abs(sum(ratios) - 1.0) > 1e-6:
        raise SyntheticDatasetError(
            f"ratios must be three non-negative numbers (train, dev, test) summing to 1, "
            f"got {tuple(ratios)}"
        )
    return ratios[0], ratios[1], ratios[2]


def _quotas(count: int, ratios: tuple[float, float, float]) -> list[int]:
    """Split `count` groups by `ratios` (largest remainder), giving every split with a positive
    ratio at least one group when there are enough groups."""
    raw = [count * r for r in ratios]
    quotas = [int(x) for x in raw]
    order = sorted(range(3), key=lambda i: (-(raw[i] - quotas[i]), i))
    for i in order[: count - sum(quotas)]:
        quotas[i] += 1
    for i in range(3):
        if ratios[i] > 0 and quotas[i] == 0 and count >= sum(r > 0 for r in ratios):
            donor = max(range(3), key=lambda j: (quotas[j], -j))
            quotas[donor] -= 1
            quotas[i] += 1
    return quotas


def assign_splits(
    records: Iterable[EmailRecord],
    seed: int = DEFAULT_SEED,
    ratios: Sequence[float] = (0.6, 0.2, 0.2),
) -> list[EmailRecord]:
    """New records (same order) with `split` set to train/dev/test, whole groups at a time."""
    shares = _check_ratios(ratios)
    records = list(records)
    members: dict[str, Counter[tuple[str, str, str]]] = {}
    for record in records:
        key = (record.label, record.scenario, record.language)
        members.setdefault(record.group or record.id, Counter())[key] += 1
    strata: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for group, counts in members.items():
        label, scenario, language = max(counts, key=lambda key: (counts[key], key))
        strata.setdefault((label, scenario), []).append((language, group))
    assignment: dict[str, str] = {}
    for rotation, stratum in enumerate(sorted(strata)):
        groups = _interleave_languages(strata[stratum], seed, rotation)
        start = 0
        for name, quota in zip(SPLIT_NAMES, _quotas(len(groups), shares), strict=True):
            for group in groups[start : start + quota]:
                assignment[group] = name
            start += quota
    return [replace(r, split=assignment[r.group or r.id]) for r in records]


def _interleave_languages(entries: list[tuple[str, str]], seed: int, rotation: int) -> list[str]:
    """Groups ordered round-robin over languages: one group of each language in turn."""
    by_language: dict[str, list[str]] = {}
    for language, group in entries:
        by_language.setdefault(language, []).append(group)
    languages = sorted(by_language, key=lambda lang: (_unit(seed, lang), lang))
    shift = rotation % len(languages)
    languages = languages[shift:] + languages[:shift]
    queues = [sorted(by_language[lang], key=lambda g: (_unit(seed, g), g)) for lang in languages]
    ordered = []
    for rank in range(max(map(len, queues))):
        ordered += [queue[rank] for queue in queues if rank < len(queue)]
    return ordered


@lru_cache(maxsize=4)
def _split_corpus(n: int, seed: int) -> tuple[EmailRecord, ...]:
    """The split corpus, read from the on-disk dataset cache when this package's code and data
    files are unchanged (`sv_shared.dataset_cache`; generating 2,000 messages takes seconds)."""

    def build() -> list[dict[str, Any]]:
        return [r.to_dict() for r in assign_splits(generate_corpus(n, seed), seed=seed)]

    package = Path(__file__).resolve().parent
    key = {"generator": dataset_cache.tree_hash(package, suffixes=(".py", ".json")), "n": n,
           "seed": seed}  # fmt: skip
    rows, _ = dataset_cache.cached_rows("e4-synthetic", key, build)
    return tuple(EmailRecord.from_dict(row) for row in rows)


def load_synthetic(
    split: str = "test", n: int = DEFAULT_SIZE, seed: int = DEFAULT_SEED
) -> list[EmailRecord]:
    """One split ("train", "dev", "test") or "all" of the synthetic corpus (cached per n, seed)."""
    if split not in (*SPLIT_NAMES, "all"):
        raise SyntheticDatasetError(
            f"unknown split {split!r}; valid splits: {', '.join(SPLIT_NAMES)}, all"
        )
    records = _split_corpus(n, seed)
    return [r for r in records if split in ("all", r.split)]


def corpus_summary(records: Iterable[EmailRecord]) -> dict[str, Any]:
    """Counts by label, scenario, language and split, plus labels per split."""
    records = list(records)

    def count(key: str) -> dict[str, int]:
        return dict(sorted(Counter(getattr(r, key) for r in records).items()))

    by_split: dict[str, Counter[str]] = {}
    for record in records:
        by_split.setdefault(record.split, Counter())[record.label] += 1
    return {
        "n": len(records),
        "label": count("label"),
        "scenario": count("scenario"),
        "language": count("language"),
        "split": count("split"),
        "groups": len({r.group for r in records}),
        "label_by_split": {name: dict(sorted(c.items())) for name, c in sorted(by_split.items())},
    }
