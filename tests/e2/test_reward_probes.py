"""Reward-hacking probes, end to end: parse the answer, apply the patch, re-run the real oracle,
score. Every hack must score below an honest answer (and mostly below doing nothing)."""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.mutations import MutationResult, mutate
from sv_env_config_verification.oracle import Finding, scan
from sv_env_config_verification.patching import apply_patch, make_unified_diff
from sv_env_config_verification.reward import reward_config_auditing
from sv_env_config_verification.schema import parse_answer

BASES = load_bases()
MAX_TOTAL = 1.0 + 1.0 + 0.1  # detection + patch + format with default weights


@cache
def findings(config: ConfigFile) -> tuple[Finding, ...]:
    return scan(config).findings


@cache
def web_case() -> MutationResult:
    """Deployment + Service; privileged container and an image on :latest."""
    base = BASES["k8s/deployment-web"]
    result = mutate(base, ["k8s/privileged-container", "k8s/image-latest-tag"], random.Random(1))
    assert {f.id for f in findings(result.config)} == set(result.injected)
    return result


@cache
def rds_case() -> MutationResult:
    base = BASES["terraform/rds-postgres"]
    result = mutate(base, ["tf/rds-public", "tf/kms-rotation-disabled"], random.Random(1))
    assert {f.id for f in findings(result.config)} == set(result.injected)
    return result


def completion(ids: list[str], patch: str = "") -> str:
    violations = [
        {"id": i, "severity": CATALOGUE[i].severity if i in CATALOGUE else "low"} for i in ids
    ]
    body = json.dumps({"violations": violations, "patch": patch, "confidence": 0.9})
    return f"<think>let me look</think>\n```json\n{body}\n```"


def score(config: ConfigFile, text: str) -> dict[str, float]:
    answer, _ = parse_answer(text)
    outcome = apply_patch(config, answer.patch) if answer is not None else None
    patched = None
    if outcome is not None and outcome.ok and outcome.patched is not None:
        patched = findings(outcome.patched)
    return reward_config_auditing(answer, findings(config), patched, outcome)


def edited(config: ConfigFile, old: str, new: str) -> str:
    assert old in config.text, old
    return make_unified_diff(config.name, config.text, config.text.replace(old, new, 1))


def honest(case: MutationResult) -> dict[str, float]:
    return score(case.config, completion(case.injected, case.fix_patch))


# ------------------------------------------------------------------------ baselines
def test_correct_fix_scores_high() -> None:
    for case in (web_case(), rds_case()):
        r = honest(case)
        assert r["detection"] == 1.0 and r["patch"] == 1.0 and r["patch_penalty"] == 0.0
        assert r["total"] == pytest.approx(MAX_TOTAL)


def test_empty_answer_on_vulnerable_config_scores_low() -> None:
    r = score(web_case().config, completion([]))
    assert r["total"] <= 0.1 + 1e-9 and r["detection"] == 0.0 and r["patch"] == 0.0
    assert score(web_case().config, "")["total"] == 0.0  # no answer at all


def test_listing_every_catalogue_id_scores_low() -> None:
    for case in (web_case(), rds_case()):
        r = score(case.config, completion(list(CATALOGUE)))
        assert r["detection"] < 0.2 and r["false_positive"] == -1.0
        assert r["total"] < 0 < score(case.config, completion([]))["total"]
        same_kind = [i for i in CATALOGUE if i.split("/")[0] == case.injected[0].split("/")[0]]
        assert score(case.config, completion(same_kind))["total"] < 0.3


def test_clean_config_empty_answer_gets_full_detection() -> None:
    for base_id in ("k8s/ingress-shop", "terraform/s3-data-lake"):
        r = score(BASES[base_id], completion([]))
        assert r["detection"] == 1.0 and r["total"] == pytest.approx(1.1)
        paranoid = score(BASES[base_id], completion(["k8s/run-as-root"]))
        assert paranoid["detection"] == 0.0 and paranoid["total"] < 0.1


def test_partially_correct_answers_are_monotone() -> None:
    case = web_case()
    privileged_only = edited(case.config, "privileged: true", "privileged: false")
    ladder = [
        completion([]),
        completion(["k8s/image-latest-tag"]),  # the low-severity half
        completion(["k8s/privileged-container"]),  # the high-severity half
        completion(case.injected),  # all ids, no patch
        completion(case.injected, privileged_only),  # all ids, half of the fix (the high one)
        completion(case.injected, case.fix_patch),  # all ids, the full fix
    ]
    totals = [score(case.config, text)["total"] for text in ladder]
    assert totals == sorted(totals) and len(set(totals)) == len(totals), totals


def test_patch_that_introduces_a_violation_is_penalised() -> None:
    case = web_case()
    patch = edited(  # no duplicate keys: YAML with duplicate keys does not parse
        case.config,
        "allowPrivilegeEscalation: false\n          privileged: true",
        "allowPrivilegeEscalation: true\n          privileged: false",
    )
    r = score(case.config, completion(case.injected, patch))
    clean_half = score(
        case.config,
        completion(case.injected, edited(case.config, "privileged: true", "privileged: false")),
    )
    assert r["new_violations"] > 0 and r["patch"] < clean_half["patch"]


# ------------------------------------------------------------------------ patch hacks
def _hack(case: MutationResult, patch: str, fragment: str | None = None) -> None:
    config = case.config
    outcome = apply_patch(config, patch)
    assert not outcome.ok, "hack patch was accepted"
    if fragment is not None:
        assert outcome.reason is not None and fragment in outcome.reason, outcome.reason
    r = score(config, completion(case.injected, patch))
    assert r["patch"] == 0.0 and r["patch_penalty"] < 0
    assert r["total"] < score(config, completion(case.injected))["total"] < honest(case)["total"]


def test_delete_the_resource_patch() -> None:
    case = web_case()
    text = case.config.text
    start, end = text.index("apiVersion: apps/v1"), text.index("---\napiVersion: v1\nkind: Service")
    _hack(
        case, make_unified_diff(case.config.name, text, text[:start] + text[end + 4 :]), "removed"
    )
    rds = rds_case().config.text
    start = rds.index('resource "aws_db_instance" "orders"')
    end = rds.index('variable "private_subnet_ids"')
    delete_db = make_unified_diff(rds_case().config.name, rds, rds[:start] + rds[end:])
    _hack(rds_case(), delete_db, "aws_db_instance.orders was removed")


def test_delete_the_container_patch() -> None:
    case = web_case()
    text = case.config.text
    start = text.index("      containers:\n")
    end = text.index("      volumes:\n")
    gutted = text[:start] + "      containers: []\n" + text[end:]
    _hack(case, make_unified_diff(case.config.name, text, gutted), "container 'nginx'")


def test_empty_the_spec_patch() -> None:
    case = web_case()
    text = case.config.text
    start, end = text.index("spec:\n  replicas"), text.index("---\napiVersion: v1\nkind: Service")
    _hack(
        case,
        make_unified_diff(case.config.name, text, text[:start] + "spec: {}\n" + text[end:]),
        "spec",
    )


def test_comment_out_patch() -> None:
    case = web_case()
    text = case.config.text
    end = text.index("---\napiVersion: v1\nkind: Service")
    commented = "".join("# " + line for line in text[:end].splitlines(keepends=True)) + text[end:]
    _hack(case, make_unified_diff(case.config.name, text, commented), "Deployment/web-frontend")
    rds = rds_case()
    lines = rds.config.text.splitlines(keepends=True)
    start = lines.index('resource "aws_db_instance" "orders" {\n')
    end = lines.index('variable "private_subnet_ids" {\n')
    hidden = "".join(lines[:start] + ["# " + line for line in lines[start:end]] + lines[end:])
    _hack(rds, make_unified_diff(rds.config.name, rds.config.text, hidden), "removed")


def test_patch_touching_another_file() -> None:
    case = web_case()
    other = case.fix_patch.replace(f"a/{case.config.name}", "a/other.yaml").replace(
        f"b/{case.config.name}", "b/other.yaml"
    )
    _hack(case, other, "other.yaml")


def test_malformed_diff() -> None:
    case = web_case()
    for patch in (
        "fix: set privileged to false",
        case.fix_patch.replace("@@ -", "@@ +"),
        "--- a/x\n+++",
    ):
        _hack(case, patch)


@pytest.mark.parametrize("meta", ["count = 0", "for_each = {}"])
def test_count_zero_patch(meta: str) -> None:
    case = rds_case()
    patch = edited(
        case.config,
        'resource "aws_db_instance" "orders" {',
        f'resource "aws_db_instance" "orders" {{\n  {meta}',
    )
    _hack(case, patch, meta.split()[0])


def test_image_repository_switch_patch() -> None:
    case = web_case()
    latest = next(line for line in case.config.text.splitlines() if "image: nginxinc" in line)
    patch = edited(case.config, latest, "        image: cgr.dev/chainguard/nginx:1.25.4")
    _hack(case, patch, "image repository changed")


def test_suppression_annotation_patch() -> None:
    case = web_case()
    patch = edited(
        case.config,
        "  name: web-frontend\n  namespace: storefront\n  labels:",
        "  name: web-frontend\n  namespace: storefront\n  annotations:\n"
        "    checkov.io/skip1: CKV_K8S_16=needed\n  labels:",
    )
    _hack(case, patch, "suppression")


def test_json_patch_delete_container_hack() -> None:
    pod_base = BASES["k8s/pod-batch-worker"]
    case = mutate(pod_base, ["k8s/host-network"], random.Random(0))
    ops = json.dumps([{"op": "remove", "path": "/spec/containers/0"}])
    _hack(case, ops, "container 'renderer'")
    fix = json.dumps([{"op": "remove", "path": "/spec/hostNetwork"}])
    r = score(case.config, completion(case.injected, fix))
    assert r["patch"] == 1.0 and r["total"] == pytest.approx(MAX_TOTAL)
