"""Exact / near-duplicate removal and cross-split contamination checks."""

from __future__ import annotations

from toy_adapter import toy_rows

from security_verifiers.data.contamination import overlap, split_contamination
from security_verifiers.data.dedup import deduplicate
from security_verifiers.data.fingerprint import exact_key, minhash, normalise
from sv_shared.data import Facets


def facets(row) -> Facets:
    return Facets(label=row.label, scenario=row.scenario, group=row.group, text=row.text)


def test_normalise_ignores_case_space_and_compatibility_forms():
    assert normalise("  Ｈello\tWORLD \n") == "hello world"
    assert exact_key("a  b") == exact_key("A b")


def test_minhash_is_stable_across_calls():
    assert minhash("one two three four").jaccard(minhash("one two three four")) == 1.0
    assert minhash("one two three four five").jaccard(minhash("six seven eight nine")) < 0.2


def test_exact_duplicates_removed_whatever_the_group():
    rows = toy_rows(4, 1)
    copy = rows[0].model_copy(
        update={"id": "copy", "group": "elsewhere", "text": rows[0].text.upper()}
    )
    kept, report = deduplicate([*rows, copy], facets, lambda r: r.id)
    assert [r.id for r in kept] == [r.id for r in rows]
    assert report.exact == 1 and report.removed[0][1] == "copy"


def test_near_duplicates_removed_across_groups_kept_within_group():
    rows = toy_rows(3, 3)  # rows of a group differ by one trailing word: near duplicates
    near = rows[0].model_copy(update={"id": "near", "group": "other", "text": rows[0].text + " x"})
    kept, report = deduplicate([*rows, near], facets, lambda r: r.id)
    assert "near" not in {r.id for r in kept}
    assert report.near == 1 and report.kept_same_group_near >= 6
    kept_off, report_off = deduplicate([*rows, near], facets, lambda r: r.id, threshold=None)
    assert len(kept_off) == len(rows) + 1 and report_off.near == 0


def test_overlap_counts_groups_exact_and_near_matches():
    rows = [facets(r) for r in toy_rows(6, 1)]
    probe = [
        rows[0],  # exact and same group
        Facets("good", "good/a", "fresh", rows[1].text + " extra"),  # near, other group
        Facets("good", "good/a", "fresh2", "completely different words here " * 3),
    ]
    found = overlap(rows, probe)
    assert found["shared_groups"] == 1 and found["exact"] == 1 and found["near"] == 1


def test_split_contamination_clean_and_dirty():
    rows = [facets(r) for r in toy_rows(6, 1)]
    clean = split_contamination({"train": rows[:4], "dev": rows[4:5], "test": rows[5:]})
    assert clean["clean"]
    dirty = split_contamination({"train": rows[:4], "dev": rows[4:5], "test": [rows[0]]})
    assert not dirty["clean"] and dirty["pairs"]["train-test"]["exact"] == 1
