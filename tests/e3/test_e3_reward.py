"""Pure reward components."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sv_env_code_vulnerability.reward import (
    RepairFacts,
    RepairWeights,
    reward_components,
    total_reward,
)

W = RepairWeights()
FULL = RepairFacts(
    has_diff=True, json_format=True, applied=True, clean=True, f2p_passed=3, f2p_total=3,
    p2p_passed=4, p2p_total=4, targeted_total=1, changed_lines=2, reference_changed_lines=2,
)  # fmt: skip


def test_full_fix_gets_everything():
    assert reward_components(FULL, W) == {
        "tests": 1,
        "scanner": 1,
        "minimal": 1,
        "clean_apply": 1,
        "format": 1,
    }


def test_regression_closes_every_gate():
    broken = RepairFacts(**{**FULL.__dict__, "p2p_passed": 3})
    parts = reward_components(broken, W)
    assert parts["tests"] == parts["scanner"] == parts["minimal"] == parts["clean_apply"] == 0


def test_tamper_closes_every_gate():
    parts = reward_components(RepairFacts(**{**FULL.__dict__, "tampered": True}), W)
    assert sum(v for k, v in parts.items() if k != "format") == 0


def test_partial_fix_and_scanner_states():
    partial = RepairFacts(**{**FULL.__dict__, "f2p_passed": 1})
    assert reward_components(partial, W)["tests"] == W.partial_tests / 3
    assert (
        reward_components(RepairFacts(**{**FULL.__dict__, "new_findings": 1}), W)["scanner"] == 0.5
    )
    assert (
        reward_components(RepairFacts(**{**FULL.__dict__, "targeted_remaining": 1}), W)["scanner"]
        == 0
    )


def test_bigger_diff_less_minimal():
    assert (
        reward_components(RepairFacts(**{**FULL.__dict__, "changed_lines": 8}), W)["minimal"]
        == 0.25
    )


@given(st.integers(0, 5), st.integers(1, 5), st.integers(0, 5), st.integers(1, 5), st.booleans())
def test_only_a_full_repair_reaches_test_credit_one(f2p, f2p_total, p2p, p2p_total, tampered):
    facts = RepairFacts(
        has_diff=True, json_format=True, applied=True, clean=True, tampered=tampered,
        f2p_passed=min(f2p, f2p_total), f2p_total=f2p_total,
        p2p_passed=min(p2p, p2p_total), p2p_total=p2p_total, changed_lines=1,
    )  # fmt: skip
    parts = reward_components(facts, W)
    assert (parts["tests"] == 1.0) == facts.repaired
    assert 0 <= total_reward(facts, W) <= W.tests + W.scanner + W.minimal + W.clean_apply + W.format


def test_answer_parsing_requires_a_real_diff():
    from sv_env_code_vulnerability.answer import parse_repair

    echoed = '{"diff": "<unified diff against the module>", "explanation": "<one sentence>"}'
    assert parse_repair(echoed).answer is None
    assert "not a unified diff" in (parse_repair(echoed).error or "")
    diff = "--- a/m.py\\n+++ b/m.py\\n@@ -1 +1 @@\\n-x = 1\\n+x = 2\\n"
    real = '{"diff": "' + diff + '", "explanation": ""}'
    parsed = parse_repair(real)
    assert parsed.ok and parsed.json_format
    assert parse_repair('{"diff": "  ", "explanation": ""}').error == "empty diff"
