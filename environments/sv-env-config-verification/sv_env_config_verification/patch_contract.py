"""What a fix may change, beyond preserving the config (`patching.check_preservation`).

A patch earns credit by changing the fields the rules read to safe values (the Rego pack reads
them as `k8s_effective` / `tf_effective` resolve them, so a value that still means the insecure
thing is still a finding). This module adds the two constraints that reading cannot express:

1. **Added objects** — a patch may add an object (a Kubernetes object, a Terraform resource or
   data source) only of a kind that a rule of the config's findings lists as a fix
   (`FIX_KINDS`: a public-access block or an ACL for public buckets, an encryption configuration
   or a KMS key for unencrypted storage, a narrower role for a cluster-admin binding, a
   NetworkPolicy or LimitRange for workloads). Modules are never added. On a clean config
   nothing may be added. Every added object is scanned with the file, so what it grants counts
   against the patch as introduced findings.
2. **Scope attributes are immutable** — the attributes that decide *which* object a rule
   judges, or whether it judges it at all (`SCOPE_FIELDS`: a KMS key's spec and usage, the
   bucket of a public-access block or an encryption configuration, the security group of a rule
   resource, the role of an attachment, a role reference's kind, an aggregation rule), keep
   their original value on every original object; a fix changes the value, not its scope.

`contract_violation` returns the first broken rule (one line) or None.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from sv_env_config_verification.configs import (
    ConfigError,
    ConfigFile,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
)
from sv_env_config_verification.patching import k8s_key

_WORKLOAD_FIXES = frozenset({"NetworkPolicy", "LimitRange"})
_KMS = frozenset({"aws_kms_key", "aws_kms_alias"})
FIX_KINDS: Mapping[str, frozenset[str]] = {
    "k8s/privileged-container": _WORKLOAD_FIXES,
    "k8s/host-network": _WORKLOAD_FIXES,
    "k8s/host-pid": _WORKLOAD_FIXES,
    "k8s/host-ipc": _WORKLOAD_FIXES,
    "k8s/run-as-root": _WORKLOAD_FIXES,
    "k8s/privilege-escalation": _WORKLOAD_FIXES,
    "k8s/missing-resource-limits": _WORKLOAD_FIXES,
    "k8s/image-latest-tag": _WORKLOAD_FIXES,
    "k8s/hostpath-volume": _WORKLOAD_FIXES,
    "k8s/dangerous-capabilities": _WORKLOAD_FIXES,
    "k8s/writable-root-filesystem": _WORKLOAD_FIXES,
    "k8s/host-port": _WORKLOAD_FIXES,
    "k8s/seccomp-unconfined": _WORKLOAD_FIXES,
    "k8s/apparmor-unconfined": _WORKLOAD_FIXES,
    "k8s/unmasked-proc-mount": _WORKLOAD_FIXES,
    "k8s/unsafe-sysctls": _WORKLOAD_FIXES,
    "k8s/rbac-wildcard": frozenset(),
    "k8s/cluster-admin-binding": frozenset({"ClusterRole", "Role"}),
    "tf/s3-public-access": frozenset(
        {
            "aws_s3_bucket_public_access_block",
            "aws_s3_bucket_acl",
            "aws_s3_bucket_ownership_controls",
        }
    ),
    "tf/s3-unencrypted": frozenset({"aws_s3_bucket_server_side_encryption_configuration"}) | _KMS,
    "tf/sg-open-admin-port": frozenset(
        {"aws_security_group_rule", "aws_vpc_security_group_ingress_rule"}
    ),
    "tf/rds-unencrypted": _KMS,
    "tf/rds-public": frozenset(),
    "tf/iam-wildcard-action": frozenset({"data.aws_iam_policy_document"}),
    "tf/ebs-unencrypted": _KMS | {"aws_ebs_encryption_by_default"},
    "tf/kms-rotation-disabled": frozenset(),
    "tf/cloudtrail-logging-disabled": frozenset(),
}
"""Canonical id -> kinds a fix for it may add (Terraform data sources as ``data.<type>``)."""

_BUCKET = ("bucket",)
_ATTACHED = ("role", "user", "group", "roles", "users", "groups")
SCOPE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "aws_kms_key": ("customer_master_key_spec", "key_usage"),
    "aws_s3_bucket_public_access_block": _BUCKET,
    "aws_s3_bucket_acl": _BUCKET,
    "aws_s3_bucket_server_side_encryption_configuration": _BUCKET,
    "aws_s3_bucket_policy": _BUCKET,
    "aws_security_group_rule": ("security_group_id", "type"),
    "aws_vpc_security_group_ingress_rule": ("security_group_id",),
    "aws_iam_role_policy": ("role",),
    "aws_iam_user_policy": ("user",),
    "aws_iam_group_policy": ("group",),
    "aws_iam_role_policy_attachment": _ATTACHED,
    "aws_iam_user_policy_attachment": _ATTACHED,
    "aws_iam_group_policy_attachment": _ATTACHED,
    "aws_iam_policy_attachment": _ATTACHED,
    "aws_rds_cluster": ("engine_mode",),
    "RoleBinding": ("roleRef.kind", "roleRef.apiGroup"),
    "ClusterRoleBinding": ("roleRef.kind", "roleRef.apiGroup"),
    "Role": ("aggregationRule",),
    "ClusterRole": ("aggregationRule",),
}
"""Resource type / object kind -> attributes (dotted paths) a patch may not change."""


def allowed_kinds(finding_ids: Iterable[str]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for vid in set(finding_ids):
        out |= FIX_KINDS.get(vid, frozenset())
    return out


def _get(obj: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _k8s(
    before: list[dict[str, Any]], after: list[dict[str, Any]], kinds: frozenset[str]
) -> str | None:
    added = Counter(k8s_key(d) for d in after) - Counter(k8s_key(d) for d in before)
    for kind, name, _ in added:
        if kind not in kinds:
            return f"the patch adds {kind}/{name}; a fix for these findings may add only " + (
                ", ".join(sorted(kinds)) if kinds else "nothing"
            )
    twins = {}
    for doc in after:
        twins.setdefault(k8s_key(doc), doc)
    for doc in before:
        twin = twins.get(k8s_key(doc))
        for path in SCOPE_FIELDS.get(str(doc.get("kind")), ()):
            if twin is not None and not _same(_get(doc, path), _get(twin, path)):
                name = f"{doc.get('kind')}/{k8s_key(doc)[1]}"
                return f"{name}: {path} decides what the rules judge and may not change"
    return None


def _tf_resources(parsed: Any) -> dict[str, dict[str, Any]]:
    return {r["address"]: r for r in normalise_terraform(parsed)["resources"]}


def _tf(before: Any, after: Any, kinds: frozenset[str]) -> str | None:
    modules_before = _modules(before)
    new_modules = _modules(after) - modules_before
    if new_modules:
        return f"the patch adds module {sorted(new_modules)[0]}; a fix never adds a module"
    old, new = _tf_resources(before), _tf_resources(after)
    for address in new.keys() - old.keys():
        r = new[address]
        kind = r["type"] if r["mode"] == "managed" else f"data.{r['type']}"
        if kind not in kinds:
            return f"the patch adds {address}; a fix for these findings may add only " + (
                ", ".join(sorted(kinds)) if kinds else "nothing"
            )
    for address, r in old.items():
        twin = new.get(address)
        for path in SCOPE_FIELDS.get(r["type"], ()) if r["mode"] == "managed" else ():
            if twin is not None and not _same(_get(r["config"], path), _get(twin["config"], path)):
                return f"{address}: {path} decides what the rules judge and may not change"
    return None


def _modules(parsed: Any) -> set[str]:
    entries = parsed.get("module") or [] if isinstance(parsed, dict) else []
    names: set[str] = set()
    for entry in entries if isinstance(entries, list) else [entries]:
        if isinstance(entry, dict):
            names |= {str(k) for k in entry}
    return names


def contract_violation(
    original: ConfigFile, patched: ConfigFile, finding_ids: Iterable[str]
) -> str | None:
    """The first contract rule `patched` breaks (module docstring), or None."""
    kinds = allowed_kinds(finding_ids)
    try:
        if original.kind == "k8s":
            return _k8s(parse_k8s(original.text), parse_k8s(patched.text), kinds)
        return _tf(parse_terraform(original.text), parse_terraform(patched.text), kinds)
    except ConfigError as exc:  # preservation already parsed both; kept for direct callers
        return f"config does not parse: {exc}"
