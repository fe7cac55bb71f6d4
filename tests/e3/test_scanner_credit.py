"""The scanner component is paid only where it can be earned (issue 48): on an item without
targeted findings it is absent and its weight goes to the other gated components; on an item
with targeted findings it behaves as before. Pure: RepairFacts built by hand, no sandbox."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.reward import (
    COMPONENTS,
    SCANNER_SHARE,
    RepairFacts,
    RepairWeights,
    reward_components,
    total_reward,
)
from sv_env_code_vulnerability.run_metrics import summarize_rows

W = RepairWeights()
TOP = sum(getattr(W, name) for name in COMPONENTS)

# the reference fix of an item whose module the scanners do not flag (targeted_total = 0)
REFERENCE = RepairFacts(
    has_diff=True, json_format=True, applied=True, clean=True, f2p_passed=3, f2p_total=3,
    p2p_passed=4, p2p_total=4, targeted_total=0, targeted_remaining=0, changed_lines=2,
    reference_changed_lines=2,
)  # fmt: skip
TARGETED = replace(REFERENCE, targeted_total=2)


def without_scanner(f: RepairFacts, w: RepairWeights = W) -> float:
    """The total normalised over the components that apply (scanner left out)."""
    parts = reward_components(f, w)
    gated = sum(getattr(w, n) * parts[n] for n in SCANNER_SHARE)
    gated_weight = sum(getattr(w, n) for n in SCANNER_SHARE)
    return w.format * parts["format"] + gated * (gated_weight + w.scanner) / gated_weight


def test_shipped_items_without_targeted_findings_exist():
    rows = [item.to_json() for item in load_items("all")]
    assert sum(not r["targeted_findings"] for r in rows) > 0  # 15 of 37 when issue 48 was filed


def test_facts_say_where_the_scanner_applies():
    assert not REFERENCE.scanner_applicable and TARGETED.scanner_applicable


def test_reference_fix_still_reaches_the_maximum_without_targeted_findings():
    parts = reward_components(REFERENCE, W)
    assert all(0 <= v <= 1 for v in parts.values())
    assert parts["tests"] == parts["minimal"] == parts["clean_apply"] == 1
    assert total_reward(REFERENCE, W) == pytest.approx(TOP)


@pytest.mark.parametrize(
    "facts",
    [
        # no-op / comment-only diff: applies cleanly, no FAIL_TO_PASS test flips
        replace(REFERENCE, f2p_passed=0, changed_lines=1),
        # comment-only diff on an item whose tests were already partly green: not plausible
        replace(REFERENCE, f2p_passed=0, p2p_passed=3, changed_lines=1),
        # tampered
        replace(REFERENCE, tampered=True),
    ],
)
def test_no_op_or_comment_only_patch_gets_nothing_from_the_scanner(facts):
    parts = reward_components(facts, W)
    assert parts["scanner"] == 0
    assert total_reward(facts, W) == pytest.approx(W.format * parts["format"])
    # before: the same answer on the same item also got 0 here (gated); the hole was the
    # plausible patch below
    assert total_reward(facts, W) == pytest.approx(
        total_reward(replace(facts, targeted_total=1), W)
    )


def test_plausible_patch_earns_no_scanner_credit_of_its_own():
    """A partial fix (one FAIL_TO_PASS test flips, nothing for the scanners to check) used to
    collect the whole scanner weight; now only the redistributed share of what it earned."""
    partial = replace(REFERENCE, f2p_passed=1, changed_lines=2)
    parts = reward_components(partial, W)
    old_free_credit = W.scanner * 1.0
    assert W.scanner * parts["scanner"] < 0.25 * old_free_credit
    assert total_reward(partial, W) == pytest.approx(without_scanner(partial))
    assert total_reward(partial, W) < total_reward(replace(partial, targeted_total=1), W)


def test_item_with_targeted_findings_keeps_todays_scanner():
    parts = reward_components(TARGETED, W)
    assert parts["scanner"] == 1 and total_reward(TARGETED, W) == pytest.approx(TOP)
    assert reward_components(replace(TARGETED, new_findings=1), W)["scanner"] == 0.5
    assert reward_components(replace(TARGETED, targeted_remaining=1), W)["scanner"] == 0
    partial = replace(TARGETED, f2p_passed=1)
    assert reward_components(partial, W)["scanner"] == 1  # earned: the findings are gone
    assert reward_components(replace(TARGETED, p2p_passed=3), W)["scanner"] == 0


def test_zero_gated_weights_leave_nothing_to_redistribute():
    w = RepairWeights(tests=0.0, minimal=0.0, clean_apply=0.0)
    assert reward_components(REFERENCE, w)["scanner"] == 0


@given(
    st.integers(0, 3), st.integers(0, 4), st.integers(0, 20), st.booleans(), st.booleans(),
    st.integers(0, 3),
)  # fmt: skip
def test_no_scanner_total_is_the_normalised_total(f2p, p2p, lines, clean, tampered, new):
    facts = replace(
        REFERENCE, f2p_passed=f2p, p2p_passed=p2p, changed_lines=lines, clean=clean,
        tampered=tampered, new_findings=new,
    )  # fmt: skip
    parts = reward_components(facts, W)
    assert all(0 <= v <= 1 for v in parts.values())
    assert total_reward(facts, W) == pytest.approx(without_scanner(facts))
    assert 0 <= total_reward(facts, W) <= TOP + 1e-12
    if not facts.plausible:
        assert parts["scanner"] == 0


def test_targeted_fixed_rate_leaves_out_episodes_without_targeted_findings():
    def row(fixed: float, applies: float | None) -> dict:
        metrics = {"targeted_fixed": fixed, "patch_applied": 1.0}
        if applies is not None:
            metrics["scanner_applicable"] = applies
        return {"metrics": metrics, "rewards": {}, "parsed": {}}

    summary = summarize_rows([row(1.0, 1.0), row(0.0, 1.0), row(0.0, 0.0), row(0.0, 0.0)])
    assert summary["targeted_fixed_rate"] == 0.5 and summary["targeted_fixed_n"] == 2
    assert len(summary["targeted_fixed_rate_ci95"]) == 2
    none = summarize_rows([row(0.0, 0.0)])
    assert none["targeted_fixed_rate"] is None and none["targeted_fixed_n"] == 0
    legacy = summarize_rows([row(1.0, None), row(0.0, None)])  # rows from before the metric
    assert legacy["targeted_fixed_rate"] == 0.5
