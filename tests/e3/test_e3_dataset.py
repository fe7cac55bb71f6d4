"""The shipped items: up to date with the library, validated, covering the required CWEs."""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from sv_env_code_vulnerability.dataset import build_split_items, load_items
from sv_env_code_vulnerability.generator import library_hash, validate
from sv_env_code_vulnerability.library import all_seeds


def test_library_size_and_cwe_coverage():
    seeds = all_seeds()
    items = load_items("all")
    assert len(items) >= 300
    assert len({i.cwe for i in items}) >= 25
    assert min(Counter(s.cwe for s in seeds).values()) >= 2


def test_shipped_items_match_the_library():
    shipped = {i.id: i for i in load_items("all")}
    rebuilt = {i.id: i for i in build_split_items()}
    assert shipped.keys() == rebuilt.keys(), (
        "rebuild: python -m sv_env_code_vulnerability.dataset --write"
    )
    for item_id, item in rebuilt.items():
        old = shipped[item_id]
        for field in (
            "vulnerable",
            "secure",
            "reference_diff",
            "functional_tests",
            "security_tests",
        ):
            assert getattr(old, field) == getattr(item, field), (item_id, field)
        assert old.provenance["library_sha256"] == library_hash()


def test_every_item_is_validated_with_provenance():
    for item in load_items("all"):
        v = item.provenance["validation"]
        assert item.fail_to_pass and v["vulnerable_failed_security"] == len(item.fail_to_pass)
        assert v["secure_passed"] == v["fix_passed"] == v["tests"]
        assert v["shim_failed_functional"] >= 1, item.id  # refusing odd input is no repair
        assert item.provenance["operators"] and item.provenance["scanners"]["bandit"]


def test_splits_hold_out_one_seed_per_cwe():
    test, train = load_items("test"), load_items("train")
    test_seeds = {(i.cwe, i.seed_id) for i in test}
    assert len({cwe for cwe, _ in test_seeds}) == len(test_seeds)
    assert not {i.seed_id for i in test} & {i.seed_id for i in train}


def test_payloads_are_per_item_and_disjoint_across_splits():
    test, train = load_items("test"), load_items("train")
    train_payloads = {p for i in train for p in i.attack_payloads}
    test_payloads = {p for i in test for p in i.attack_payloads}
    assert test_payloads and not test_payloads & train_payloads
    for item in load_items("all"):
        assert item.attack_payloads, item.id
        shown = item.visible_tests
        for payload in item.attack_payloads:
            value = ast.literal_eval(payload)
            if isinstance(value, str) and len(value) >= 6:
                assert value not in shown and payload not in shown, (item.id, payload)


@pytest.mark.slow
def test_full_revalidation_in_the_sandbox():
    problems = [p for item in build_split_items() for p in validate(item).problems]
    assert problems == []


def test_bad_item_file_names_the_line(tmp_path):
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": 1}\n')
    with pytest.raises(ValueError, match=r"items.jsonl:1"):
        load_items("all", str(bad))
