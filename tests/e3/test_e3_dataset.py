"""The shipped items: up to date with the library, validated, covering the required CWEs."""

from __future__ import annotations

import pytest

from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.generator import build_items, library_hash, validate
from sv_env_code_vulnerability.library import all_seeds


def test_library_size_and_cwe_coverage():
    seeds = all_seeds()
    assert len(seeds) >= 30
    assert len({s.cwe for s in seeds}) >= 12


def test_shipped_items_match_the_library():
    shipped = {i.id: i for i in load_items("all")}
    rebuilt = {i.id: i for i in build_items()}
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
        assert item.provenance["operators"] and item.provenance["scanners"]["bandit"]


def test_splits_hold_out_one_seed_per_cwe():
    test, train = load_items("test"), load_items("train")
    assert len({i.cwe for i in test}) == len(test)
    assert not {i.seed_id for i in test} & {i.seed_id for i in train}


@pytest.mark.slow
def test_full_revalidation_in_the_sandbox():
    problems = [p for item in build_items() for p in validate(item).problems]
    assert problems == []


def test_bad_item_file_names_the_line(tmp_path):
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": 1}\n')
    with pytest.raises(ValueError, match=r"items.jsonl:1"):
        load_items("all", str(bad))
