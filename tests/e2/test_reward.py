"""The pure E2 reward function and metrics (synthetic findings; no tools run here)."""

from __future__ import annotations

import pytest

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.patching import PatchOutcome
from sv_env_config_verification.reward import (
    AuditWeights,
    EpisodeRecord,
    audit_metrics,
    detection_counts,
    patch_delta,
    reward_config_auditing,
)
from sv_env_config_verification.schema import AuditAnswer

PATCHED = ConfigFile("k8s", "x.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n")
OK = PatchOutcome(applied=True, preserved=True, reason=None, patched=PATCHED)
BROKEN = PatchOutcome(applied=True, preserved=False, reason="container removed", patched=None)
REJECTED = PatchOutcome(applied=False, preserved=False, reason="context mismatch", patched=None)


def f(vid: str, resource: str = "Deployment/web") -> dict[str, str]:
    return {"id": vid, "severity": CATALOGUE[vid].severity, "resource": resource}


ORACLE = [f("k8s/privileged-container"), f("k8s/run-as-root"), f("k8s/image-latest-tag")]
# weights: high 3 + med 2 + low 1 = 6


def answer(*ids: str, patch: str = "", severity: str = "high") -> AuditAnswer:
    return AuditAnswer(
        violations=[{"id": i, "severity": severity} for i in ids], patch=patch, confidence=0.5
    )


def total(ans: AuditAnswer | None, oracle=ORACLE, after=None, outcome=None, **w) -> dict:
    return reward_config_auditing(ans, oracle, after, outcome, AuditWeights(**w))


# ------------------------------------------------------------------------ detection
def test_exact_answer_full_detection() -> None:
    r = total(answer("k8s/privileged-container", "k8s/run-as-root", "k8s/image-latest-tag"))
    assert r["detection"] == 1.0 and r["false_positive"] == 0.0 and r["format"] == 1.0
    assert r["total"] == pytest.approx(1.1)


def test_claimed_severity_is_not_used() -> None:
    ids = ("k8s/privileged-container", "k8s/run-as-root", "k8s/image-latest-tag")
    assert total(answer(*ids, severity="low"))["total"] == total(answer(*ids))["total"]


def test_severity_weighted_f1() -> None:
    # found the high one only: TP 3, FN 3 -> F1 = 6 / 9
    assert total(answer("k8s/privileged-container"))["detection"] == pytest.approx(6 / 9)
    # found the low one only: TP 1, FN 5 -> 2 / 7
    assert total(answer("k8s/image-latest-tag"))["detection"] == pytest.approx(2 / 7)


def test_multiset_semantics() -> None:
    oracle = [f("k8s/run-as-root", "Deployment/a"), f("k8s/run-as-root", "Deployment/b")]
    once = total(answer("k8s/run-as-root"), oracle=oracle)["detection"]
    twice = total(answer("k8s/run-as-root", "k8s/run-as-root"), oracle=oracle)["detection"]
    thrice = total(answer(*["k8s/run-as-root"] * 3), oracle=oracle)
    assert once == pytest.approx(2 * 2 / (2 * 2 + 2)) and twice == 1.0
    assert thrice["detection"] < 1.0 and thrice["false_positive"] < 0
    c = detection_counts(["a/x", "k8s/host-pid"], ["k8s/host-pid"])
    assert (c.tp, c.fp, c.fn) == (3.0, 2.0, 0.0)  # unknown id weighs 2


def test_monotone_in_correct_ids() -> None:
    ids = ["k8s/privileged-container", "k8s/run-as-root", "k8s/image-latest-tag"]
    scores = [total(answer(*ids[:k]))["total"] for k in range(4)]
    assert scores == sorted(scores) and len(set(scores)) == 4


def test_invented_ids_cost() -> None:
    exact = ["k8s/privileged-container", "k8s/run-as-root", "k8s/image-latest-tag"]
    plus_low = total(answer(*exact, "k8s/writable-root-filesystem"))
    plus_high = total(answer(*exact, "k8s/host-pid"))
    assert 1.1 > plus_low["total"] > plus_high["total"]
    assert plus_low["false_positive"] == pytest.approx(-1 / 6)
    assert plus_high["false_positive"] == pytest.approx(-3 / 6)
    assert (
        total(answer(*exact, "k8s/host-pid", "k8s/host-ipc", "k8s/host-network"))["false_positive"]
        == -1.0
    )


def test_every_catalogue_id_scores_below_empty_answer() -> None:
    everything = total(answer(*CATALOGUE))
    empty = total(answer())
    assert everything["detection"] < 0.25
    assert everything["total"] < empty["total"] <= 0.1 + 1e-9
    assert everything["total"] < 0


def test_clean_config() -> None:
    assert total(answer(), oracle=[])["detection"] == 1.0
    assert total(answer(), oracle=[])["total"] == pytest.approx(1.1)
    invented = total(answer("k8s/host-pid"), oracle=[])
    assert invented["detection"] == 0.0 and invented["false_positive"] == -0.5
    assert invented["total"] < 0.1


def test_unparsed_answer_scores_zero() -> None:
    r = total(None)
    assert r["total"] == 0.0 and r["format"] == 0.0 and r["detection"] == 0.0
    assert total(None, oracle=[])["total"] == 0.0


def test_empty_answer_on_vulnerable_config() -> None:
    r = total(answer())
    assert r["detection"] == 0.0 and r["patch"] == 0.0 and r["total"] == pytest.approx(0.1)


# ------------------------------------------------------------------------ patch
def test_full_fix() -> None:
    r = total(answer(patch="p"), after=[], outcome=OK)
    assert r["patch"] == 1.0 and r["patch_penalty"] == 0.0


def test_partial_fix_is_severity_weighted() -> None:
    left = [f("k8s/run-as-root")]  # removed high + low = 4 of 6
    assert total(answer(patch="p"), after=left, outcome=OK)["patch"] == pytest.approx(4 / 6)
    left = [f("k8s/privileged-container")]  # removed 3 of 6
    assert total(answer(patch="p"), after=left, outcome=OK)["patch"] == pytest.approx(3 / 6)


def test_introduced_violations_subtract() -> None:
    after = [f("k8s/host-pid")]  # removed 6, introduced 3
    r = total(answer(patch="p"), after=after, outcome=OK)
    assert r["patch"] == pytest.approx(0.5) and r["new_violations"] == 3.0
    worse = [*ORACLE, f("k8s/host-pid"), f("k8s/host-ipc"), f("k8s/host-network")]
    assert total(answer(patch="p"), after=worse, outcome=OK)["patch"] == -1.0


def test_same_id_on_another_resource_is_new() -> None:
    after = [f("k8s/privileged-container", "Deployment/other"), *ORACLE[1:]]
    removed, introduced = patch_delta(ORACLE, after)
    assert (removed, introduced) == (3.0, 3.0)


def test_patch_on_clean_config_can_only_lose() -> None:
    assert total(answer(patch="p"), oracle=[], after=[], outcome=OK)["patch"] == 0.0
    r = total(answer(patch="p"), oracle=[], after=[f("k8s/run-as-root")], outcome=OK)
    assert r["patch"] == pytest.approx(-2 / 3)


@pytest.mark.parametrize("outcome", [BROKEN, REJECTED, None])
def test_bad_patch_earns_zero_and_penalty(outcome: PatchOutcome | None) -> None:
    r = total(answer(patch="p"), after=[], outcome=outcome)
    assert r["patch"] == 0.0 and r["patch_penalty"] == pytest.approx(-0.1)
    assert total(answer(patch="p"), after=None, outcome=OK)["patch_penalty"] < 0  # no re-scan


def test_empty_patch_earns_nothing() -> None:
    r = total(answer(), after=[], outcome=PatchOutcome(False, False, "empty", None))
    assert r["patch"] == 0.0 and r["patch_penalty"] == 0.0


def test_weights_switch_components_off() -> None:
    ans = answer("k8s/host-pid", patch="p")
    r = total(ans, after=[], outcome=OK, detection=0, patch=0, format=0, false_positive=0)
    assert r["total"] == 0.0
    only_patch = total(ans, after=[], outcome=OK, detection=0, format=0, false_positive=0)
    assert only_patch["total"] == 1.0
    with pytest.raises(ValueError):
        AuditWeights(detection=-1)
    with pytest.raises(ValueError):
        AuditWeights(fp_saturation=0)


def test_total_is_the_weighted_sum() -> None:
    w = AuditWeights(detection=2, patch=0.5, format=0.3, false_positive=0.7)
    r = reward_config_auditing(answer("k8s/host-pid", patch="p"), ORACLE, [ORACLE[0]], OK, w)
    expected = (
        2 * r["detection"]
        + 0.5 * (r["patch"] + r["patch_penalty"])
        + 0.3
        + 0.7 * r["false_positive"]
    )
    assert r["total"] == pytest.approx(expected)


# ------------------------------------------------------------------------ metrics
def test_audit_metrics() -> None:
    records = [
        EpisodeRecord(["k8s/privileged-container"], ORACLE, True, True, []),  # fixed everything
        EpisodeRecord(["k8s/host-pid"], [], True, True, [f("k8s/run-as-root")]),  # clean, FP, new
        EpisodeRecord([], [], False, False, None),  # clean, pass
        EpisodeRecord(None, [f("tf/rds-public", "aws_db_instance.a")], True, False, None),
    ]
    m = audit_metrics(records)
    assert m["high_precision"] == pytest.approx(0.5)  # privileged right, host-pid invented
    assert m["high_recall"] == pytest.approx(1 / 2)  # privileged found, rds-public missed
    assert m["med_recall"] == 0.0 and m["low_recall"] == 0.0
    assert m["clean_configs"] == 2 and m["clean_pass_rate"] == 0.5
    assert m["clean_false_positives_per_config"] == 0.5
    assert m["patch_success_rate"] == 0.5  # 1 of 2 vulnerable configs fully fixed
    assert m["new_violations_per_patch"] == 0.5
    assert 0 < m["micro_f1"] < 1
