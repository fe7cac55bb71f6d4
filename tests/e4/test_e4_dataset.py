"""E4 synthetic dataset: grouped, stratified splits, the loader and the summary."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from sv_env_phishing_detection.campaigns import (
    DATA_SCENARIOS,
    LEGITIMATE_SCENARIOS,
    PHISHING_SCENARIOS,
    TEMPLATES,
)
from sv_env_phishing_detection.dataset import (
    DEFAULT_SIZE,
    SPLIT_NAMES,
    SyntheticDatasetError,
    assign_splits,
    corpus_summary,
    load_synthetic,
)
from sv_env_phishing_detection.generator import LANGUAGES, generate_corpus
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING, EmailRecord


@pytest.fixture(scope="module")
def records() -> list[EmailRecord]:
    return load_synthetic("all")


def test_groups_never_cross_splits(records: list[EmailRecord]) -> None:
    splits_of: dict[str, set[str]] = {}
    for record in records:
        splits_of.setdefault(record.group, set()).add(record.split)
    assert all(len(splits) == 1 for splits in splits_of.values())


def test_splits_are_stratified_and_close_to_the_ratios(records: list[EmailRecord]) -> None:
    sizes = Counter(r.split for r in records)
    assert set(sizes) == set(SPLIT_NAMES)
    for name, ratio in zip(SPLIT_NAMES, (0.6, 0.2, 0.2), strict=True):
        assert abs(sizes[name] / len(records) - ratio) < 0.03, sizes
    scenarios = {r.scenario for r in records}
    for name in SPLIT_NAMES:
        part = [r for r in records if r.split == name]
        labels = Counter(r.label for r in part)
        assert 0.45 <= labels[PHISHING] / len(part) <= 0.55, (name, labels)
        assert {r.scenario for r in part} == scenarios
        languages = Counter(r.language for r in part)
        assert set(languages) == set(LANGUAGES)
        # the classic scenarios have every language; data-file ones are mostly English
        classic = Counter(r.language for r in part if r.scenario not in DATA_SCENARIOS)
        assert max(classic.values()) < 2 * min(classic.values()), (name, classic)


def test_assignment_ignores_record_order_and_returns_new_records() -> None:
    corpus = generate_corpus(120, seed=3)
    shuffled = corpus[:]
    Random(0).shuffle(shuffled)
    first = {r.id: r.split for r in assign_splits(corpus, seed=9)}
    second = {r.id: r.split for r in assign_splits(shuffled, seed=9)}
    assert first == second
    out = assign_splits(corpus, seed=9)
    assert [r.id for r in out] == [r.id for r in corpus]
    assert all(a is not b for a, b in zip(out, corpus, strict=True))
    assert {r.split for r in corpus} == {"test"}  # inputs untouched
    assert {r.id: r.split for r in assign_splits(corpus, seed=10)} != first


def test_custom_ratios_and_tiny_corpora() -> None:
    corpus = generate_corpus(200, seed=1)
    all_train = assign_splits(corpus, ratios=(1.0, 0.0, 0.0))
    assert {r.split for r in all_train} == {"train"}
    tiny = assign_splits(generate_corpus(6, seed=2))
    assert len(tiny) == 6 and {r.split for r in tiny} <= set(SPLIT_NAMES)


@pytest.mark.parametrize("ratios", [(0.5, 0.5), (0.7, 0.2, 0.2), (1.2, -0.1, -0.1)])
def test_bad_ratios_are_clear_errors(ratios: tuple[float, ...]) -> None:
    with pytest.raises(SyntheticDatasetError, match="ratios must be three"):
        assign_splits(generate_corpus(4), ratios=ratios)


def test_load_synthetic_splits_partition_the_corpus(records: list[EmailRecord]) -> None:
    parts = {name: load_synthetic(name) for name in SPLIT_NAMES}
    assert sum(map(len, parts.values())) == len(records) == DEFAULT_SIZE
    assert {r.id for p in parts.values() for r in p} == {r.id for r in records}
    assert all(r.split == name for name, part in parts.items() for r in part)
    assert [r.id for r in load_synthetic()] == [r.id for r in parts["test"]]
    assert len(load_synthetic("all", n=40, seed=7)) == 40


def test_unknown_split_is_a_clear_value_error() -> None:
    with pytest.raises(SyntheticDatasetError, match="unknown split 'validation'") as info:
        load_synthetic("validation")
    assert isinstance(info.value, ValueError)
    assert "train, dev, test, all" in str(info.value)


def test_corpus_summary(records: list[EmailRecord]) -> None:
    summary = corpus_summary(records)
    n = DEFAULT_SIZE
    assert summary["n"] == n
    assert summary["label"] == {LEGITIMATE: n // 2, PHISHING: n // 2}
    scenarios = len(PHISHING_SCENARIOS + LEGITIMATE_SCENARIOS)
    assert sum(summary["scenario"].values()) == n and len(summary["scenario"]) == scenarios
    assert set(summary["language"]) == set(LANGUAGES) and sum(summary["language"].values()) == n
    assert sum(summary["split"].values()) == n
    assert summary["groups"] == len(TEMPLATES)
    assert sum(sum(c.values()) for c in summary["label_by_split"].values()) == n
    assert corpus_summary([])["n"] == 0
