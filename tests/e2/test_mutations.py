"""The mutation engine: determinism, coverage, exact inverses, and detection by the oracle."""

from __future__ import annotations

import random
from functools import cache

import pytest
import yaml

from sv_env_config_verification.canonical import CATALOGUE, DETECT_ONLY, ids_for
from sv_env_config_verification.configs import ConfigFile, parse_k8s
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.mutations import (
    K8S_MUTATIONS,
    TF_MUTATIONS,
    MutationError,
    mutate,
    normalise,
    random_mutation,
    supported_ids,
)
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import apply_patch

BASES = load_bases()


@cache
def findings(config: ConfigFile) -> frozenset[tuple[str, str]]:
    return frozenset((f.id, f.resource) for f in scan(config).findings)


def bases_supporting(vid: str) -> list[str]:
    return [bid for bid, cfg in BASES.items() if vid in supported_ids(cfg)]


def test_tables_cover_the_catalogue() -> None:
    """Every id is injected by the engine except the detect-only ones (judged, not generated)."""
    assert set(K8S_MUTATIONS) == set(ids_for("k8s")) - DETECT_ONLY
    assert set(TF_MUTATIONS) == set(ids_for("terraform")) - DETECT_ONLY
    assert set(K8S_MUTATIONS) | set(TF_MUTATIONS) == set(CATALOGUE) - DETECT_ONLY


def test_deterministic_for_a_seed() -> None:
    base = BASES["k8s/deployment-sidecar-proxy"]
    runs = [random_mutation(base, random.Random(7), 3) for _ in range(2)]
    assert runs[0] == runs[1]
    other = [random_mutation(base, random.Random(s), 3).config.text for s in range(8)]
    assert len(set(other)) > 1


def test_k8s_mutation_edits_only_the_target() -> None:
    base = BASES["k8s/deployment-web"]
    result = mutate(base, ["k8s/host-pid"], random.Random(0))
    assert result.base == normalise(base) and result.injected == ["k8s/host-pid"]
    assert result.mutations[0].resource == "Deployment/web-frontend"
    before, after = parse_k8s(base.text), parse_k8s(result.config.text)
    assert after[0]["spec"]["template"]["spec"]["hostPID"] is True
    after[0]["spec"]["template"]["spec"].pop("hostPID")
    assert before == after
    added = [line for line in result.fix_patch.splitlines() if line.startswith(("+", "-"))]
    assert added == [
        "--- a/deployment-web.yaml",
        "+++ b/deployment-web.yaml",
        "-      hostPID: true",
    ]


def test_terraform_mutation_keeps_formatting() -> None:
    base = BASES["terraform/rds-postgres"]
    result = mutate(base, ["tf/rds-public"], random.Random(0))
    changed = [
        (a, b)
        for a, b in zip(base.text.splitlines(), result.config.text.splitlines(), strict=True)
        if a != b
    ]
    assert changed == [
        (
            "  publicly_accessible                 = false",
            "  publicly_accessible                 = true",
        )
    ]


def test_normalise_is_idempotent_and_k8s_only() -> None:
    raw = ConfigFile("k8s", "p.yaml", "# comment\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    once = normalise(raw)
    assert "# comment" not in once.text and normalise(once) == once
    assert yaml.safe_load(once.text) == yaml.safe_load(raw.text)
    tf = BASES["terraform/kms-app-keys"]
    assert normalise(tf) is tf


def test_errors() -> None:
    rbac = BASES["k8s/rbac-cluster-metrics"]
    with pytest.raises(MutationError, match="does not apply"):
        mutate(rbac, ["k8s/host-pid"], random.Random(0))
    with pytest.raises(MutationError, match="duplicate"):
        mutate(BASES["k8s/deployment-web"], ["k8s/host-pid", "k8s/host-pid"], random.Random(0))
    with pytest.raises(MutationError, match="no terraform mutation"):
        mutate(BASES["terraform/kms-app-keys"], ["k8s/host-pid"], random.Random(0))
    with pytest.raises(MutationError, match="no mutation applies"):
        random_mutation(
            ConfigFile("k8s", "s.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"),
            random.Random(0),
        )


def test_multi_mutation_counts() -> None:
    base = BASES["terraform/service-stack-inventory"]
    for count in (1, 2, 3):
        result = random_mutation(base, random.Random(count), count)
        assert len(result.injected) == len(set(result.injected)) == count
    assert (
        len(random_mutation(BASES["terraform/cloudtrail-org"], random.Random(0), 3).injected) == 1
    )


@pytest.mark.parametrize("vid", sorted(set(CATALOGUE) - DETECT_ONLY))
def test_each_mutation_is_detected_and_exactly_undone(vid: str) -> None:
    """On a base chosen by the id (spread over the corpus): the oracle reports exactly the
    injected id on the touched resource, and the fix patch restores the base's findings."""
    candidates = bases_supporting(vid)
    assert candidates, f"no base supports {vid}"
    base_id = candidates[sorted(set(CATALOGUE) - DETECT_ONLY).index(vid) % len(candidates)]
    base = BASES[base_id]
    result = mutate(base, [vid], random.Random(11))
    assert findings(result.config) == {(vid, result.mutations[0].resource)}, base_id
    outcome = apply_patch(result.config, result.fix_patch)
    assert outcome.ok and outcome.patched is not None, outcome.reason
    assert outcome.patched.text == result.base.text
    assert findings(outcome.patched) == findings(result.base) == frozenset()


@pytest.mark.parametrize(
    "base_id",
    ["k8s/deployment-sidecar-proxy", "k8s/operator-controller", "terraform/account-baseline"],
)
def test_stacked_mutations_are_all_detected(base_id: str) -> None:
    result = random_mutation(BASES[base_id], random.Random(5), 3)
    found = findings(result.config)
    assert {vid for vid, _ in found} == set(result.injected)
    assert {(m.id, m.resource) for m in result.mutations} <= found
    outcome = apply_patch(result.config, result.fix_patch)
    assert outcome.ok and outcome.patched is not None and outcome.patched.text == result.base.text
