"""The built-in corpus: realistic, varied, and clean under the real oracle."""

from __future__ import annotations

from collections import Counter

import pytest

from sv_env_config_verification.canonical import DETECT_ONLY, ids_for
from sv_env_config_verification.configs import ConfigFile, parse_k8s, parse_terraform
from sv_env_config_verification.dataset import CORPUS_DIR, load_bases
from sv_env_config_verification.mutations import supported_ids
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import SUPPRESSION_MARKERS

BASES = load_bases()


def test_corpus_size_and_variety() -> None:
    kinds = Counter(cfg.kind for cfg in BASES.values())
    assert kinds["k8s"] >= 12 and kinds["terraform"] >= 10
    objects = Counter(
        doc["kind"] for cfg in BASES.values() if cfg.kind == "k8s" for doc in parse_k8s(cfg.text)
    )
    for kind in (
        "Deployment",
        "Pod",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CronJob",
        "Service",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "NetworkPolicy",
        "Ingress",
    ):
        assert objects[kind] >= 1, kind
    types = Counter(
        rtype
        for cfg in BASES.values()
        if cfg.kind == "terraform"
        for block in parse_terraform(cfg.text).get("resource", [])
        for rtype in block
    )
    for rtype in (
        "aws_s3_bucket",
        "aws_s3_bucket_public_access_block",
        "aws_s3_bucket_logging",
        "aws_s3_bucket_versioning",
        "aws_s3_bucket_server_side_encryption_configuration",
        "aws_security_group",
        "aws_db_instance",
        "aws_iam_policy",
        "aws_iam_role_policy",
        "aws_ebs_volume",
        "aws_kms_key",
        "aws_cloudtrail",
    ):
        assert types[rtype] >= 1, rtype


def test_bases_are_normalised_files_of_the_corpus() -> None:
    files = sorted(p.name for p in CORPUS_DIR.glob("*/*") if p.suffix in (".yaml", ".tf"))
    assert sorted(cfg.name for cfg in BASES.values()) == files
    for base_id, cfg in BASES.items():
        assert base_id.startswith(("k8s/", "terraform/"))
        assert isinstance(cfg, ConfigFile)
        lowered = cfg.text.lower()
        assert not any(marker.lower() in lowered for marker in SUPPRESSION_MARKERS), base_id


def test_every_canonical_id_is_injectable_into_several_bases() -> None:
    support: Counter[str] = Counter()
    for cfg in BASES.values():
        support.update(supported_ids(cfg))
    for kind in ("k8s", "terraform"):
        for vid in set(ids_for(kind)) - DETECT_ONLY:
            assert support[vid] >= 3, vid


@pytest.mark.parametrize("base_id", sorted(BASES))
def test_base_is_clean_under_the_real_oracle(base_id: str) -> None:
    result = scan(BASES[base_id])
    assert result.ok, result.errors
    assert result.findings == (), [(f.id, f.resource, f.tools) for f in result.findings]
