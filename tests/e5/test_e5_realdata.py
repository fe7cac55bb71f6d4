"""E5 loaders on the real HarmBench behaviors CSV (skipped when ../shared/realdata is absent)."""

from __future__ import annotations

from collections import Counter

import pytest

from sv_env_redteam_attack.behaviors import load_harmbench, load_harmbench_csv

pytestmark = pytest.mark.realdata

HARMBENCH = "E5E6_redteam/harmbench_behaviors_text_all.csv"


def test_harmbench_standard_behaviors(realdata):
    behaviors = load_harmbench_csv(realdata / HARMBENCH)
    assert len(behaviors) == 200 and len({b.id for b in behaviors}) == 200
    assert all(b.source == "harmbench" and b.text for b in behaviors)
    codes = Counter(b.category for b in behaviors)
    assert codes["S9"] >= 20 and codes["S2"] >= 80 and codes["S10"] >= 15
    semantic = Counter(b.semantic_category for b in behaviors)
    assert semantic["illegal"] == 58 and semantic["cybercrime_intrusion"] == 40


def test_harmbench_all_functional_categories(realdata):
    behaviors = load_harmbench(str(realdata / HARMBENCH), functional_categories=None)
    assert len(behaviors) == 400
    contextual = [b for b in behaviors if "\n\n---\n\n" in b.text]
    assert len(contextual) == 100  # context strings are prepended to contextual behaviors
    assert Counter(b.category for b in behaviors)["S8"] >= 100  # copyright


def test_harmbench_file_read_as_a_plain_layout_with_a_column_mapping(realdata):
    from sv_env_redteam_attack.behaviors import load_behaviors

    plain = load_behaviors("advbench", str(realdata / HARMBENCH), columns={"text": "Behavior"})
    assert len(plain) == 400 and all(b.source == "advbench" for b in plain)
    assert len({b.id for b in plain}) == 400  # ids derived from row number and text
