"""The catalogue of canonical violation ids and the per-tool rule mappings.

Every tool's raw rule id is mapped onto one canonical id; the oracle is the de-duplicated
union of mapped findings keyed by ``(id, resource)``. Resources are named
``<Kind>/<metadata.name>`` for Kubernetes and ``<type>.<name>`` (``data.<type>.<name>`` for
data sources) for Terraform.

Semantics (what the project's Rego pack implements; mapped tool rules flag the same thing or a
subset of it). "Containers" means containers, initContainers and ephemeralContainers of a Pod
or of the pod template of a Deployment/StatefulSet/DaemonSet/ReplicaSet/ReplicationController/
Job/CronJob; the one exception is `k8s/missing-resource-limits`, which skips ephemeral
containers because the Kubernetes API forbids resources on them (so the finding could not be
fixed). The items of a ``kind: List`` are objects like any other, named by their own kind and
metadata.name. Several Kubernetes rules are secure-by-default requirements: an unset field is
a violation. A compliant container sets ``securityContext: {allowPrivilegeEscalation: false,
readOnlyRootFilesystem: true, runAsNonRoot: true}`` (or a runAsUser > 0, pod or container
level), has ``resources.limits.cpu`` and ``.memory`` and an image with a non-latest tag or digest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

Severity = Literal["low", "med", "high"]
SEVERITY_WEIGHT: Mapping[str, int] = MappingProxyType({"low": 1, "med": 2, "high": 3})
DANGEROUS_CAPABILITIES = frozenset(
    {
        "ALL",
        "SYS_ADMIN",
        "NET_ADMIN",
        "NET_RAW",
        "SYS_PTRACE",
        "SYS_MODULE",
        "SYS_RAWIO",
        "SYS_BOOT",
        "SYS_TIME",
        "DAC_READ_SEARCH",
        "BPF",
        "MAC_ADMIN",
        "MAC_OVERRIDE",
    }
)
"""Capabilities that `k8s/dangerous-capabilities` flags (the Rego pack holds the same set)."""
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
    }
)  # fmt: skip
"""Sysctls `k8s/unsafe-sysctls` allows: the Pod Security Standards baseline set of Kubernetes
1.32 (the Rego pack holds the same set)."""


@dataclass(frozen=True)
class Violation:
    """One canonical violation: `id`, `severity`, one-line `title`, config `kind`, semantics."""

    id: str
    severity: Severity
    title: str
    kind: Literal["k8s", "terraform"]
    description: str = ""


_K8S = [
    (
        "k8s/privileged-container",
        "high",
        "Privileged container",
        "A container sets securityContext.privileged: true.",
    ),
    (
        "k8s/host-network",
        "high",
        "Pod shares the host network namespace",
        "The pod spec sets hostNetwork: true.",
    ),
    (
        "k8s/host-pid",
        "high",
        "Pod shares the host PID namespace",
        "The pod spec sets hostPID: true.",
    ),
    (
        "k8s/host-ipc",
        "high",
        "Pod shares the host IPC namespace",
        "The pod spec sets hostIPC: true.",
    ),
    (
        "k8s/run-as-root",
        "med",
        "Container may run as root",
        "For a container, the effective runAsNonRoot (container overrides pod) is not true and "
        "the effective runAsUser is not a number > 0.",
    ),
    (
        "k8s/privilege-escalation",
        "med",
        "Privilege escalation not disabled",
        "A container does not set securityContext.allowPrivilegeEscalation: false.",
    ),
    (
        "k8s/missing-resource-limits",
        "low",
        "Missing CPU or memory limit",
        "A container or initContainer (ephemeral containers cannot set resources) lacks "
        "resources.limits.cpu or resources.limits.memory (unset, null, empty or 0), or sets one "
        "beyond any node's size (more than 128 cores or 1 TiB: a limit that limits nothing).",
    ),
    (
        "k8s/image-latest-tag",
        "low",
        "Image is not pinned (latest, no tag or a floating tag)",
        "A container image has no digest and its tag names no release: 'latest', absent, a bare "
        "major ('7', 'v2') or a channel ('stable', 'alpine'); a pinned tag has a major.minor "
        "version, a date or build stamp of six or more digits, or a commit hash.",
    ),
    (
        "k8s/hostpath-volume",
        "high",
        "hostPath volume",
        "The pod spec declares a hostPath volume, or mounts a claim (a persistentVolumeClaim, "
        "an ephemeral or StatefulSet claim template) that binds a PersistentVolume of the file "
        "with a hostPath (by volumeName, claimRef or storage class).",
    ),
    (
        "k8s/dangerous-capabilities",
        "high",
        "Dangerous Linux capability added",
        "A container adds ALL, SYS_ADMIN, NET_ADMIN, NET_RAW, SYS_PTRACE, SYS_MODULE, SYS_RAWIO, "
        "SYS_BOOT, SYS_TIME, DAC_READ_SEARCH, BPF, MAC_ADMIN or MAC_OVERRIDE (case-insensitive, "
        "optional CAP_ prefix) to securityContext.capabilities.add.",
    ),
    (
        "k8s/writable-root-filesystem",
        "low",
        "Root filesystem is writable",
        "A container does not set securityContext.readOnlyRootFilesystem: true.",
    ),
    (
        "k8s/host-port",
        "med",
        "Container binds a host port",
        "A container port sets hostPort (any value but 0): the pod takes a port on the node's "
        "network (Pod Security Standards, baseline).",
    ),
    (
        "k8s/seccomp-unconfined",
        "med",
        "Seccomp disabled (Unconfined)",
        "The pod or a container sets securityContext.seccompProfile.type: Unconfined, or an "
        "annotation seccomp.security.alpha.kubernetes.io/pod or "
        "container.seccomp.security.alpha.kubernetes.io/<name> is 'unconfined' (baseline; an "
        "unset profile is not flagged).",
    ),
    (
        "k8s/apparmor-unconfined",
        "med",
        "AppArmor disabled (unconfined)",
        "The pod or a container sets securityContext.appArmorProfile.type: Unconfined, or an "
        "annotation container.apparmor.security.beta.kubernetes.io/<name> is 'unconfined' "
        "(baseline).",
    ),
    (
        "k8s/unmasked-proc-mount",
        "med",
        "Unmasked /proc mount",
        "A container sets securityContext.procMount to anything but Default (baseline).",
    ),
    (
        "k8s/unsafe-sysctls",
        "med",
        "Unsafe sysctl",
        "The pod's securityContext.sysctls name a sysctl outside the baseline safe set "
        "(kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, net.ipv4.ip_unprivileged_port_"
        "start, net.ipv4.tcp_syncookies, net.ipv4.ping_group_range, net.ipv4.ip_local_reserved_"
        "ports, net.ipv4.tcp_keepalive_time, net.ipv4.tcp_fin_timeout, net.ipv4.tcp_keepalive_"
        "intvl, net.ipv4.tcp_keepalive_probes, net.ipv4.tcp_rmem, net.ipv4.tcp_wmem; Kubernetes "
        "1.32).",
    ),
    (
        "k8s/rbac-wildcard",
        "high",
        "RBAC rule uses a wildcard",
        "A Role or ClusterRole rule has '*' in apiGroups, resources or verbs, or spells it out: "
        "every standard verb, or at least 80% (and 5 or more) of the built-in API groups or of "
        "the built-in resources of its groups.",
    ),
    (
        "k8s/cluster-admin-binding",
        "high",
        "Binding to cluster-admin",
        "A ClusterRoleBinding or RoleBinding has roleRef ClusterRole 'cluster-admin', or a "
        "ClusterRole of the file that is cluster-admin in effect: its aggregationRule can "
        "select cluster-admin (labels kubernetes.io/bootstrapping: rbac-defaults, or an empty "
        "selector), or it grants '*' verbs on '*' resources in '*' groups.",
    ),
]
_TF = [
    (
        "tf/s3-public-access",
        "high",
        "S3 bucket publicly accessible",
        "An aws_s3_bucket (or an aws_s3_bucket_acl referencing it) uses a public canned ACL "
        "(public-read, public-read-write, authenticated-read, website) or grants AllUsers / "
        "AuthenticatedUsers; or an aws_s3_bucket_public_access_block leaves any of its four "
        "settings unset or false (reported on the public access block).",
    ),
    (
        "tf/s3-unencrypted",
        "med",
        "S3 bucket without default encryption",
        "An aws_s3_bucket has no server-side encryption configuration (inline, or an "
        "aws_s3_bucket_server_side_encryption_configuration referencing it) with algorithm "
        "AES256, aws:kms or aws:kms:dsse.",
    ),
    (
        "tf/sg-open-admin-port",
        "high",
        "SSH/RDP open to the Internet",
        "An ingress rule of an aws_security_group, aws_security_group_rule or "
        "aws_vpc_security_group_ingress_rule allows 0.0.0.0/0 or ::/0 to port 22 or 3389 "
        "(port range covering it, or protocol -1/all), counting ranges that together cover "
        "the Internet and the CIDRs of managed prefix lists of the file the rule names.",
    ),
    (
        "tf/rds-unencrypted",
        "med",
        "RDS storage not encrypted",
        "An aws_db_instance or (non-serverless) aws_rds_cluster leaves storage_encrypted unset or "
        "false.",
    ),
    (
        "tf/rds-public",
        "high",
        "RDS instance publicly accessible",
        "An aws_db_instance or aws_rds_cluster_instance sets publicly_accessible = true.",
    ),
    (
        "tf/iam-wildcard-action",
        "high",
        "IAM policy allows Action '*'",
        "An Allow statement of an IAM policy (aws_iam_policy, aws_iam_role_policy, "
        "aws_iam_user_policy, aws_iam_group_policy, aws_ssoadmin_permission_set_inline_policy, "
        "aws_iam_role inline_policy) or of a data aws_iam_policy_document has action '*' — or "
        "action globs that alone or across the document's Allow statements match every action "
        "('*:*', 'a*' … 'z*'), or NotAction, or every action of the services its resources "
        "belong to ('s3:*' on a bucket ARN), or on Resource '*' an action that lets the "
        "principal write itself any policy (iam:*, iam:Attach*Policy, iam:Put*Policy, "
        "iam:CreatePolicyVersion, iam:SetDefaultPolicyVersion); an attachment or "
        "managed_policy_arns naming an AWS managed policy that does (AdministratorAccess, "
        "PowerUserAccess) counts as the same.",
    ),
    (
        "tf/ebs-unencrypted",
        "med",
        "EBS volume not encrypted",
        "An aws_ebs_volume leaves encrypted unset or false.",
    ),
    (
        "tf/kms-rotation-disabled",
        "low",
        "KMS key rotation disabled",
        "A symmetric aws_kms_key (customer_master_key_spec unset or SYMMETRIC_DEFAULT) leaves "
        "enable_key_rotation unset or false.",
    ),
    (
        "tf/cloudtrail-logging-disabled",
        "med",
        "CloudTrail logging disabled",
        "An aws_cloudtrail sets enable_logging = false, or its event selectors admit no event "
        "(management events excluded and no data resource named, or advanced selectors that "
        "select no event category).",
    ),
]

CATALOGUE: Mapping[str, Violation] = MappingProxyType(
    {
        vid: Violation(vid, sev, title, kind, desc)  # type: ignore[arg-type]
        for kind, rows in (("k8s", _K8S), ("terraform", _TF))
        for vid, sev, title, desc in rows
    }
)


DETECT_ONLY = frozenset(
    {"k8s/host-port", "k8s/seccomp-unconfined", "k8s/apparmor-unconfined",
     "k8s/unmasked-proc-mount", "k8s/unsafe-sysctls"}
)  # fmt: skip
"""Ids judged on every config (real configs, third-party suites) that the built-in mutation
engine does not inject yet (the Pod Security Standards controls added last)."""


def ids_for(kind: str) -> tuple[str, ...]:
    """Canonical ids of one config kind, in catalogue order."""
    return tuple(v.id for v in CATALOGUE.values() if v.kind == kind)


# Checkov 3.3.30 check ids (read from checkov's registries, names in comments). Checks that
# flag a subset of a canonical id are mapped; broader or different checks are not (they stay
# `unmapped`), e.g. CKV_K8S_25 (any added capability), CKV_K8S_28/37 (NET_RAW/ALL not
# dropped), CKV_AWS_145 (KMS-only S3 encryption), CKV_AWS_277 (all ports incl. ICMP types),
# CKV_AWS_8 (instance root volume not declared), CKV2_AWS_6 (no public access block).
_CHECKOV: dict[str, str] = {
    "CKV_K8S_16": "k8s/privileged-container",  # Container should not be privileged
    "CKV_K8S_19": "k8s/host-network",  # Containers should not share the host network namespace
    "CKV_K8S_17": "k8s/host-pid",  # Containers should not share the host process ID namespace
    "CKV_K8S_18": "k8s/host-ipc",  # Containers should not share the host IPC namespace
    "CKV_K8S_23": "k8s/run-as-root",  # Minimize the admission of root containers
    "CKV_K8S_20": "k8s/privilege-escalation",  # ... should not run with allowPrivilegeEscalation
    "CKV_K8S_11": "k8s/missing-resource-limits",  # CPU limits should be set
    "CKV_K8S_13": "k8s/missing-resource-limits",  # Memory limits should be set
    "CKV_K8S_14": "k8s/image-latest-tag",  # Image Tag should be fixed - not latest or blank
    "CKV_K8S_27": "k8s/hostpath-volume",  # Do not expose the docker daemon socket to containers
    "CKV_K8S_39": "k8s/dangerous-capabilities",  # Do not use the CAP_SYS_ADMIN linux capability
    "CKV_K8S_22": "k8s/writable-root-filesystem",  # Use read-only filesystem for containers
    "CKV_K8S_49": "k8s/rbac-wildcard",  # Minimize wildcard use in Roles and ClusterRoles
    "CKV_AWS_20": "tf/s3-public-access",  # S3 Bucket has an ACL defined which allows public READ
    "CKV_AWS_57": "tf/s3-public-access",  # S3 Bucket has an ACL defined which allows public WRITE
    "CKV_AWS_53": "tf/s3-public-access",  # Ensure S3 bucket has block public ACLS enabled
    "CKV_AWS_54": "tf/s3-public-access",  # Ensure S3 bucket has block public policy enabled
    "CKV_AWS_55": "tf/s3-public-access",  # Ensure S3 bucket has ignore public ACLs enabled
    "CKV_AWS_56": "tf/s3-public-access",  # Ensure S3 bucket has 'restrict_public_buckets' enabled
    "CKV_AWS_19": "tf/s3-unencrypted",  # Ensure all data stored in the S3 bucket is encrypted
    "CKV_AWS_24": "tf/sg-open-admin-port",  # no security groups allow ingress 0.0.0.0:0 to port 22
    "CKV_AWS_25": "tf/sg-open-admin-port",  # ... to port 3389
    "CKV_AWS_16": "tf/rds-unencrypted",  # Ensure all data stored in the RDS is encrypted at rest
    "CKV_AWS_96": "tf/rds-unencrypted",  # Ensure all data stored in Aurora is encrypted at rest
    "CKV_AWS_17": "tf/rds-public",  # Ensure all data stored in RDS is not publicly accessible
    "CKV_AWS_63": "tf/iam-wildcard-action",  # no IAM policies documents allow "*" as actions
    "CKV_AWS_62": "tf/iam-wildcard-action",  # IAM policies with full "*-*" admin privileges
    "CKV_AWS_49": "tf/iam-wildcard-action",  # (data aws_iam_policy_document) "*" as actions
    "CKV_AWS_1": "tf/iam-wildcard-action",  # (data aws_iam_policy_document) "*-*" admin
    "CKV_AWS_3": "tf/ebs-unencrypted",  # Ensure all data stored in the EBS is securely encrypted
    "CKV_AWS_7": "tf/kms-rotation-disabled",  # Ensure rotation for customer created CMKs
    "CKV_AWS_251": "tf/cloudtrail-logging-disabled",  # Ensure CloudTrail logging is enabled
}

# The project's own Rego pack emits canonical ids directly.
_OPA: dict[str, str] = {vid: vid for vid in CATALOGUE}

# The project's own semgrep rules (rules/semgrep/*.yml); rule id -> canonical id.
_SEMGREP: dict[str, str] = {
    "sv-k8s-privileged-container": "k8s/privileged-container",
    "sv-k8s-host-network": "k8s/host-network",
    "sv-k8s-host-pid": "k8s/host-pid",
    "sv-k8s-host-ipc": "k8s/host-ipc",
    "sv-k8s-allow-privilege-escalation": "k8s/privilege-escalation",
    "sv-k8s-image-latest-tag": "k8s/image-latest-tag",
    "sv-k8s-hostpath-volume": "k8s/hostpath-volume",
    "sv-k8s-dangerous-capabilities": "k8s/dangerous-capabilities",
    "sv-k8s-rbac-wildcard": "k8s/rbac-wildcard",
    "sv-k8s-cluster-admin-binding": "k8s/cluster-admin-binding",
    "sv-tf-s3-public-acl": "tf/s3-public-access",
    "sv-tf-s3-public-access-block-disabled": "tf/s3-public-access",
    "sv-tf-sg-open-admin-port": "tf/sg-open-admin-port",
    "sv-tf-rds-unencrypted": "tf/rds-unencrypted",
    "sv-tf-rds-public": "tf/rds-public",
    "sv-tf-iam-wildcard-action": "tf/iam-wildcard-action",
    "sv-tf-ebs-unencrypted": "tf/ebs-unencrypted",
    "sv-tf-kms-rotation-disabled": "tf/kms-rotation-disabled",
    "sv-tf-cloudtrail-logging-disabled": "tf/cloudtrail-logging-disabled",
}

# KubeLinter built-in check names (only used when a kube-linter binary is on PATH).
_KUBE_LINTER: dict[str, str] = {
    "privileged-container": "k8s/privileged-container",
    "host-network": "k8s/host-network",
    "host-pid": "k8s/host-pid",
    "host-ipc": "k8s/host-ipc",
    "run-as-non-root": "k8s/run-as-root",
    "privilege-escalation-container": "k8s/privilege-escalation",
    "latest-tag": "k8s/image-latest-tag",
    "docker-sock": "k8s/hostpath-volume",
    "sensitive-host-mounts": "k8s/hostpath-volume",
    "no-read-only-root-fs": "k8s/writable-root-filesystem",
    "wildcard-in-rules": "k8s/rbac-wildcard",
    "cluster-admin-role-binding": "k8s/cluster-admin-binding",
}

TOOL_RULES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "opa": MappingProxyType(_OPA),
        "checkov": MappingProxyType(_CHECKOV),
        "semgrep": MappingProxyType(_SEMGREP),
        "kube-linter": MappingProxyType(_KUBE_LINTER),
    }
)


def canonical_id(tool: str, rule_id: str) -> str | None:
    """The canonical id a tool's rule maps to, or None (unmapped)."""
    return TOOL_RULES.get(tool, {}).get(rule_id)
