"""E5 source "sst" (SimpleSafetyTests prompts as harmful behaviours): the real file (skipped
without ../shared/realdata) and one-line errors for wrong files or columns."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from e5_stand_ins import StandInJudge

from sv_env_redteam_attack import load_environment
from sv_env_redteam_attack.behavior_rows import SST_CATEGORIES, BehaviorDataError, sst_code
from sv_env_redteam_attack.behaviors import SOURCES, load_behaviors, load_sst
from sv_env_redteam_attack.categories import S_CODES

SST = "E5E6_redteam/simple_safety_tests/simple_safety_tests.csv"
TARGET = {"target_base_url": "http://127.0.0.1:9/v1", "target_model": "target-model"}
"""Never contacted: building the environment does not call the target."""
ENV_ARGS = {**TARGET, "novelty_backend": "ngram"}


def test_sst_is_a_source_and_mitre_frr_is_not():
    assert "sst" in SOURCES and "mitre_frr" not in SOURCES
    assert set(SST_CATEGORIES.values()) <= set(S_CODES)
    assert sst_code("Child safety") == "S4" and sst_code("no such area") is None


@pytest.mark.realdata
def test_sst_behaviors(realdata: Path):
    behaviors = load_behaviors("sst", str(realdata / SST))
    assert len(behaviors) == 100 and len({b.id for b in behaviors}) == 100
    assert behaviors[0].id == "sst_001"
    assert all(b.source == "sst" and b.text and b.category in S_CODES for b in behaviors)
    semantic = Counter(b.semantic_category for b in behaviors)
    assert len(semantic) == 5 and set(semantic.values()) == {20}
    codes = Counter(b.category for b in behaviors)
    assert codes["S11"] >= 20 and codes["S4"] >= 20 and codes["S2"] >= 30
    assert load_sst(realdata / SST) == behaviors


@pytest.mark.realdata
def test_load_environment_builds_from_sst(realdata: Path):
    env = load_environment(
        source="sst",
        path=str(realdata / SST),
        max_examples=5,
        seed=0,
        judge=StandInJudge(),
        **ENV_ARGS,
    )
    rows = env.get_eval_dataset()
    assert len(rows) == 5 and all(row["info"]["behavior"]["source"] == "sst" for row in rows)
    assert env.sv_dataset_info["source"] == "sst" and env.sv_dataset_info["n"] == 5


@pytest.mark.realdata
def test_wrong_file_or_columns_are_one_line(realdata: Path):
    with pytest.raises(BehaviorDataError, match=r"missing column\(s\) \['prompts_final'\]") as info:
        load_behaviors("sst", str(realdata / "E5E6_redteam/xstest_prompts.csv"))
    assert "xstest_prompts.csv" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(BehaviorDataError, match=r"missing column\(s\) \['area'\] for the sst"):
        load_behaviors("sst", str(realdata / SST), columns={"category": "area"})


def test_sst_errors(tmp_path: Path):
    with pytest.raises(BehaviorDataError, match="source 'sst' needs path="):
        load_behaviors("sst")
    with pytest.raises(BehaviorDataError, match=r"nope\.csv: file not found"):
        load_environment(source="sst", path=str(tmp_path / "nope.csv"), **ENV_ARGS)
    path = tmp_path / "sst.csv"
    path.write_text("id,harm_area,prompts_final\nsst_1,Gardening,Grow a tomato\n")
    with pytest.raises(BehaviorDataError, match=r"sst\.csv line 2: unknown harm_area 'Gardening'"):
        load_behaviors("sst", str(path))
