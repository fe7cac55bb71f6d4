"""Default dataset, grouped/stratified splits, content hashing, JSONL and the dispatcher."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest

from sv_env_network_logs.address_plan import assign_splits
from sv_env_network_logs.dataset import (
    DEFAULT_DATASET_SEED,
    DEFAULT_DATASET_SIZE,
    SOURCES,
    DatasetError,
    build_default_dataset,
    content_hash,
    load_flows,
    split_flows,
    write_jsonl,
)
from sv_env_network_logs.generator import (
    ATTACK_SCENARIOS,
    BENIGN_SCENARIOS,
    NoiseConfig,
    generate_flows,
)


def ids(items):
    return {item.id for item in items}


def test_default_dataset_is_deterministic_balanced_and_cached():
    items = build_default_dataset()
    assert (DEFAULT_DATASET_SIZE, DEFAULT_DATASET_SEED) == (6000, 20261121)
    assert len(items) == 6000
    assert Counter(i.label for i in items) == {"Benign": 3000, "Malicious": 3000}
    again = build_default_dataset()
    assert again == items and again is not items
    items.clear()  # callers get a copy; the cache is unaffected
    assert len(build_default_dataset()) == 6000
    regenerated = generate_flows(6000, seed=DEFAULT_DATASET_SEED, noise=NoiseConfig())
    split_of = {i.id: name for name, part in split_flows(regenerated).items() for i in part}
    moved = assign_splits(regenerated, split_of)
    assert content_hash(build_default_dataset()) == content_hash(moved)


def test_split_is_grouped_complete_and_close_to_fractions():
    items = build_default_dataset()
    splits = split_flows(items)
    assert set(splits) == {"train", "dev", "test"}
    assert sum(len(v) for v in splits.values()) == len(items)
    assert set().union(*(ids(v) for v in splits.values())) == ids(items)
    groups = {name: {i.group for i in part} for name, part in splits.items()}
    assert not groups["train"] & groups["dev"]
    assert not groups["train"] & groups["test"]
    assert not groups["dev"] & groups["test"]
    for name, target in zip(("train", "dev", "test"), (0.7, 0.15, 0.15), strict=True):
        assert abs(len(splits[name]) / len(items) - target) < 0.03
        share = sum(i.label == "Malicious" for i in splits[name]) / len(splits[name])
        assert 0.45 <= share <= 0.55  # stratified by label
        scenarios = {i.scenario for i in splits[name]}
        assert set(ATTACK_SCENARIOS) | set(BENIGN_SCENARIOS) == scenarios


def test_split_is_deterministic_and_independent_of_order():
    items = build_default_dataset()
    first = split_flows(items, seed=3)
    shuffled = list(items)
    random.Random(0).shuffle(shuffled)
    second = split_flows(shuffled, seed=3)
    for name in first:
        assert ids(first[name]) == ids(second[name])
    assert [i.id for i in second["test"]] == [i.id for i in shuffled if i.id in ids(first["test"])]
    other = split_flows(items, seed=4)
    assert ids(other["test"]) != ids(first["test"])


def test_split_respects_custom_fractions_and_validates_them():
    items = build_default_dataset()
    halves = split_flows(items, fractions=(0.5, 0.0, 0.5))
    assert halves["dev"] == []
    assert abs(len(halves["train"]) - len(halves["test"])) < 0.06 * len(items)
    assert split_flows(items, fractions=(1.0, 0.0, 0.0))["train"] == items
    for bad in [(0.5, 0.5), (0.7, 0.2, 0.2), (1.2, -0.1, -0.1)]:
        with pytest.raises(ValueError):
            split_flows(items, fractions=bad)  # type: ignore[arg-type]
    assert split_flows([]) == {"train": [], "dev": [], "test": []}


def test_content_hash_is_stable_and_order_sensitive():
    items = build_default_dataset()[:50]
    digest = content_hash(items)
    assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 64
    assert content_hash(list(items)) == digest
    assert content_hash(items[::-1]) != digest  # order-sensitive by design
    changed = items[0].model_copy(update={"scenario": "benign/other"})
    assert content_hash([changed, *items[1:]]) != digest
    assert content_hash([]) == "sha256:" + hashlib.sha256(b"").hexdigest()


def test_load_flows_synthetic_splits_partition_the_dataset():
    parts = {name: load_flows(split=name) for name in ("train", "dev", "test")}
    everything, info_all = load_flows(split="all")
    assert set().union(*(ids(items) for items, _ in parts.values())) == ids(everything)
    items, info = parts["test"]
    assert info.source == "synthetic" and info.split == "test" and info.n == len(items)
    assert info.revision == "synthetic-v3" and info.license == "Apache-2.0 (generated)"
    assert info.seed == DEFAULT_DATASET_SEED and info.content_hash == content_hash(items)
    assert info.label_counts == dict(Counter(i.label for i in items))
    assert info_all.n == 6000
    payload = json.loads(json.dumps(info.to_dict()))
    assert {"source", "path", "split", "n", "content_hash", "revision", "label_counts"} <= set(
        payload
    )
    assert {"license", "seed", "skipped", "excluded"} <= set(payload)


def test_load_flows_errors_are_dataset_errors():
    with pytest.raises(DatasetError) as exc:
        load_flows("kaggle")
    assert all(name in str(exc.value) for name in SOURCES)
    with pytest.raises(DatasetError, match=r"split"):
        load_flows(split="validation")
    with pytest.raises(DatasetError, match=r"needs path"):
        load_flows("zeek")
    with pytest.raises(DatasetError, match=r"absent.csv"):
        load_flows("nsl-kdd", path="/nonexistent/absent.csv")
    assert issubclass(DatasetError, ValueError)


def test_jsonl_round_trip_preserves_items_and_hash(tmp_path):
    items = build_default_dataset()[:200]
    path = tmp_path / "built.jsonl"
    write_jsonl(items, path)
    loaded, info = load_flows("jsonl", path=str(path), split="all")
    assert loaded == items and info.content_hash == content_hash(items)
    assert info.revision == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    assert info.license == "see source" and info.path == str(path)
    test, _ = load_flows("jsonl", path=str(path), split="test")
    assert ids(test) <= ids(items) and test


def test_jsonl_errors_name_file_and_line(tmp_path):
    items = build_default_dataset()[:3]
    path = tmp_path / "broken.jsonl"
    write_jsonl(items, path)
    lines = path.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["flow"]["dst_port"] = 70000
    path.write_text("\n".join([lines[0], json.dumps(bad), lines[2], "{not json", ""]) + "\n")
    with pytest.raises(DatasetError, match=r"broken\.jsonl: line 2: .*dst_port 70000"):
        load_flows("jsonl", path=str(path), split="all")
    loaded, info = load_flows("jsonl", path=str(path), split="all", strict=False)
    assert len(loaded) == 2 and info.skipped == 2
    path.write_text("\n".join([lines[0], lines[0]]) + "\n")
    with pytest.raises(DatasetError, match=r"line 2: duplicate id"):
        load_flows("jsonl", path=str(path), split="all")
