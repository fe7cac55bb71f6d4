"""Third-party checks that mean a catalogue id, and when one of their labelled cases can be scored.

Tables, one entry per check with a comment saying what the check flags: `TRIVY` (trivy-checks
AVD ids, normalised by `trivy_id`), `KYVERNO` (kyverno/policies policy names), `REGOLIBRARY`
(Kubescape regolibrary rule names) and `CHECKOV` (checkov's ids mapped in
``canonical.TOOL_RULES["checkov"]``). A check that is in no table is *uncovered*.

Scope. A labelled case is scored only when its verdict is decided by what the mapped ids model.
Where a check judges something the catalogue does not (or the reverse), `CheckMap.theirs` says
what the check flags, per *unit* (a container, a pod spec, a volume, an RBAC rule, a binding, a
Terraform resource or IAM statement), and `scope_reason` compares it with the catalogue's own
reading of the same unit (`OURS`: the semantics in ``canonical.CATALOGUE``, restated here for
scoping only). The case is out of scope when some unit is judged differently and no unit is
flagged by both (a unit both flag decides the case: both must call it a violation). A container
in a list the check does not read (``fields``) counts as "not flagged" on the check's side.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .canonical import CATALOGUE, DANGEROUS_CAPABILITIES, TOOL_RULES
from .configs import decode_policy
from .gatekeeper import pod_spec

Obj = dict[str, Any]
Pred = Callable[[Any], bool]
FIELDS = ("containers", "initContainers", "ephemeralContainers")
ALL_FIELDS = frozenset(FIELDS)


@dataclass(frozen=True)
class CheckMap:
    """Canonical `ids` a check's failure means; `theirs` (per unit) and `differs` (one line)
    when the check judges something the ids do not model."""

    ids: tuple[str, ...]
    theirs: Pred | None = None
    differs: str = ""
    guard: Callable[[list[Obj]], str | None] | None = None
    """A reason from the case's objects as a whole (e.g. a PodSecurityPolicy that decides)."""


@dataclass(frozen=True)
class KyvernoMap:
    """A Kyverno policy's mapping; `rules` when the id is the union of several rules (a
    resource is clean only when every one of them passes), None when any rule decides."""

    check: CheckMap
    rules: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = field(default=())
    """Rules of the policy that mean no catalogue id (uncovered)."""


# ------------------------------------------------------------------------------ object helpers
def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _sc(c: Obj) -> Obj:
    return _d(c.get("securityContext"))


def _eff(c: Obj, pod: Obj, key: str) -> Any:
    """A container's security-context value, else the pod's."""
    value = _sc(c).get(key)
    return value if value is not None else _d(pod.get("securityContext")).get(key)


def _added(c: Obj) -> list[str]:
    return [x for x in _l(_d(_sc(c).get("capabilities")).get("add")) if isinstance(x, str)]


def _norm_cap(cap: str) -> str:
    up = cap.upper()
    return up[4:] if up.startswith("CAP_") else up


def _limit_missing(c: Obj, key: str, kind: str = "limits") -> bool:
    value = _d(_d(c.get("resources")).get(kind)).get(key)
    return value in (None, "", 0, "0")


_PINNED = re.compile(r"^(?:[vV]?[0-9]+\.[0-9]+|[0-9]{6,}|(?:sha-|g)?[0-9a-f]{7,40}$)")
"""A tag naming a release: major.minor, a date/build stamp or a commit hash (the catalogue)."""


def _unpinned(image: Any) -> bool:
    """No digest, and the tag is absent, 'latest' or floating (a bare major, a channel)."""
    if not isinstance(image, str) or "@" in image:
        return False
    last = image.rsplit("/", 1)[-1]
    return not _PINNED.match(last.rsplit(":", 1)[1] if ":" in last else "")


def _uid_above_zero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _root(c: Obj, pod: Obj) -> bool:
    return _eff(c, pod, "runAsNonRoot") is not True and not _uid_above_zero(
        _eff(c, pod, "runAsUser")
    )


def _true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _name(obj: Obj) -> str:
    return f"{obj.get('kind')}/{_d(obj.get('metadata')).get('name')}"


# ------------------------------------------------------------------------------ units
Item = Any
Items = Callable[[list[Obj]], Iterator[tuple[str, Item]]]


def _containers(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """(where, (container, pod spec, field)) for every container of every workload."""
    for obj in objects:
        pod = pod_spec(obj)
        for f in FIELDS:
            for c in _l(pod.get(f)):
                if isinstance(c, dict):
                    yield f"{_name(obj)} {f}[{c.get('name')}]", (c, pod, f)


def _pods(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    for obj in objects:
        pod = pod_spec(obj)
        if pod:
            yield f"{_name(obj)} pod spec", pod


def _volumes(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    for obj in objects:
        pod = pod_spec(obj)
        for v in _l(pod.get("volumes")):
            if isinstance(v, dict):
                yield f"{_name(obj)} volume {v.get('name')}", (v, pod)


def _rbac_rules(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    for obj in objects:
        if obj.get("kind") in ("Role", "ClusterRole"):
            for i, rule in enumerate(_l(obj.get("rules"))):
                if isinstance(rule, dict):
                    yield f"{_name(obj)} rule {i}", rule


def _bindings(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    for obj in objects:
        if obj.get("kind") in ("RoleBinding", "ClusterRoleBinding"):
            yield _name(obj), obj


def _tf_resources(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """(address, (resource, all resources)) for normalised Terraform resources."""
    for res in objects:
        yield str(res.get("address")), (res, objects)


def _statements(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """Every IAM policy statement (inline JSON policies and policy-document data sources)."""
    for res in objects:
        cfg = _d(res.get("config"))
        if res.get("type") == "aws_iam_policy_document":
            for i, st in enumerate(_l(cfg.get("statement"))):
                if isinstance(st, dict):
                    yield (
                        f"{res.get('address')} statement {i}",
                        {
                            "Effect": str(st.get("effect") or "Allow"),
                            "Action": _l(st.get("actions")),
                            "Resource": _l(st.get("resources")),
                        },
                    )
            continue
        policy = cfg.get("policy")
        if isinstance(policy, str):
            policy = decode_policy(policy)
        sts = _d(policy).get("Statement")
        for i, st in enumerate(sts if isinstance(sts, list) else [sts]):
            if isinstance(st, dict):
                yield f"{res.get('address')} statement {i}", st


def _strs(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [x for x in _l(value) if isinstance(x, str)]


# ------------------------------------------------------------------------------ the catalogue
PAB_SETTINGS = (
    "block_public_acls",
    "block_public_policy",
    "ignore_public_acls",
    "restrict_public_buckets",
)


def _pab_open(cfg: Obj) -> bool:
    return not all(_true(cfg.get(k)) for k in PAB_SETTINGS)


PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read", "website"})


def _public_acl(cfg: Obj) -> bool:
    if cfg.get("acl") in PUBLIC_ACLS:
        return True
    grants = [g for g in _l(cfg.get("grant")) if isinstance(g, dict)]
    return any(re.search(r"AllUsers|AuthenticatedUsers", str(g.get("uri", ""))) for g in grants)


def _s3_public(item: Item) -> bool:
    res, _ = item
    cfg = _d(res.get("config"))
    if res.get("type") == "aws_s3_bucket_public_access_block":
        return _pab_open(cfg)
    return res.get("type") in ("aws_s3_bucket", "aws_s3_bucket_acl") and _public_acl(cfg)


def _kms_unrotated(item: Item) -> bool:
    res, _ = item
    cfg = _d(res.get("config"))
    spec = cfg.get("customer_master_key_spec")
    symmetric = spec in (None, "SYMMETRIC_DEFAULT")
    return (
        res.get("type") == "aws_kms_key" and symmetric and not _true(cfg.get("enable_key_rotation"))
    )


def _rds_unencrypted(item: Item) -> bool:
    res, _ = item
    cfg = _d(res.get("config"))
    if res.get("type") == "aws_rds_cluster" and cfg.get("engine_mode") == "serverless":
        return False
    kinds = ("aws_db_instance", "aws_rds_cluster")
    return res.get("type") in kinds and not _true(cfg.get("storage_encrypted"))


def _action_star(st: Obj) -> bool:
    return str(st.get("Effect", "Allow")) == "Allow" and "*" in _strs(st.get("Action"))


OURS: dict[str, Pred] = {
    "k8s/privileged-container": lambda i: _sc(i[0]).get("privileged") is True,
    "k8s/run-as-root": lambda i: _root(i[0], i[1]),
    "k8s/privilege-escalation": lambda i: _sc(i[0]).get("allowPrivilegeEscalation") is not False,
    "k8s/missing-resource-limits": lambda i: (
        i[2] != "ephemeralContainers"
        and (_limit_missing(i[0], "cpu") or _limit_missing(i[0], "memory"))
    ),
    "k8s/image-latest-tag": lambda i: _unpinned(i[0].get("image")),
    "k8s/dangerous-capabilities": lambda i: any(
        _norm_cap(x) in DANGEROUS_CAPABILITIES for x in _added(i[0])
    ),
    "k8s/writable-root-filesystem": lambda i: _sc(i[0]).get("readOnlyRootFilesystem") is not True,
    "k8s/host-network": lambda pod: pod.get("hostNetwork") is True,
    "k8s/host-pid": lambda pod: pod.get("hostPID") is True,
    "k8s/host-ipc": lambda pod: pod.get("hostIPC") is True,
    "k8s/hostpath-volume": lambda i: "hostPath" in i[0],
    "k8s/rbac-wildcard": lambda rule: any(
        "*" in _strs(rule.get(k)) for k in ("apiGroups", "resources", "verbs")
    ),
    "k8s/cluster-admin-binding": lambda b: (
        _d(b.get("roleRef")).get("kind") == "ClusterRole"
        and _d(b.get("roleRef")).get("name") == "cluster-admin"
    ),
    "tf/s3-public-access": _s3_public,
    "tf/kms-rotation-disabled": _kms_unrotated,
    "tf/rds-unencrypted": _rds_unencrypted,
    "tf/iam-wildcard-action": _action_star,
}
"""The catalogue's reading of one unit, for the ids a check here judges differently."""

ITEMS: dict[str, Items] = {
    "k8s/privileged-container": _containers,
    "k8s/run-as-root": _containers,
    "k8s/privilege-escalation": _containers,
    "k8s/missing-resource-limits": _containers,
    "k8s/image-latest-tag": _containers,
    "k8s/dangerous-capabilities": _containers,
    "k8s/writable-root-filesystem": _containers,
    "k8s/host-network": _pods,
    "k8s/host-pid": _pods,
    "k8s/host-ipc": _pods,
    "k8s/hostpath-volume": _volumes,
    "k8s/rbac-wildcard": _rbac_rules,
    "k8s/cluster-admin-binding": _bindings,
    "tf/s3-public-access": _tf_resources,
    "tf/kms-rotation-disabled": _tf_resources,
    "tf/rds-unencrypted": _tf_resources,
    "tf/iam-wildcard-action": _statements,
}


def scope_reason(
    check: CheckMap,
    objects: list[Obj],
    fields: frozenset[str] = ALL_FIELDS,
    context: list[Obj] | None = None,
) -> str | None:
    """Why a case of `check` cannot be scored, or None (module docstring). `objects` are the
    Kubernetes objects the label is about (or normalised Terraform resources for tf ids);
    `context` is the whole episode, for the check's `guard`."""
    if check.guard is not None and (why := check.guard(context or objects)) is not None:
        return why
    items = ITEMS.get(check.ids[0])
    partial = items is _containers and not fields >= ALL_FIELDS
    if items is None or (check.theirs is None and not partial):
        return None
    ours = [OURS[i] for i in check.ids]
    differ: str | None = None
    for where, item in items(objects):
        o = any(p(item) for p in ours)
        t = check.theirs(item) if check.theirs is not None else o
        unread = items is _containers and item[2] not in fields
        t = t and not unread
        if o and t:
            return None
        if o != t and differ is None:
            side = "the catalogue flags it, the check does not" if o else "the check flags it"
            what = f"the check does not read {item[2]}" if unread and o else check.differs
            differ = f"{what}; at {where}: {side}"
    return differ


# ------------------------------------------------------------------------------ check meanings
def _adds(*caps: str) -> Pred:
    """A container adds one of `caps` (exact strings, as the check compares)."""
    return lambda i: any(x in caps for x in _added(i[0]))


def _adds_outside(allowed: frozenset[str]) -> Pred:
    """A container adds a capability not in `allowed` (exact strings)."""
    return lambda i: any(x not in allowed for x in _added(i[0]))


BASELINE_CAPS = frozenset(
    [
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    ]
)
"""Pod Security Standards (baseline): the capabilities a container may add."""
CORE_VOLUMES = frozenset(
    [
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    ]
)
"""Pod Security Standards (restricted): the volume types a pod may use."""
KUBESCAPE_INSECURE_CAPS = (
    "SETPCAP",
    "NET_ADMIN",
    "NET_RAW",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_PTRACE",
    "SYS_ADMIN",
    "SYS_BOOT",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "PERFMON",
    "ALL",
    "BPF",
)
"""Kubescape's default ``insecureCapabilities`` control input."""
_CAPS_NOTE = "the check's capability list differs from the catalogue's dangerous set"
_ROOT_NOTE = "the check requires runAsNonRoot: true; the catalogue also accepts runAsUser > 0"


def _non_core_volume(item: Item) -> bool:
    return any(k not in CORE_VOLUMES | {"name"} for k in item[0])


def _sock_path(*paths: str) -> Pred:
    return lambda i: _d(i[0].get("hostPath")).get("path") in paths


def _nonroot_declared(i: Item) -> bool:
    """Trivy KSV012: the container or the pod sets runAsNonRoot: true (the pod's true wins)."""
    c, pod, _ = i
    return (
        _sc(c).get("runAsNonRoot") is True
        or _d(pod.get("securityContext")).get("runAsNonRoot") is True
    )


def _pab_setting(key: str) -> Pred:
    """Trivy's public-access-block checks: the block leaves `key` unset or false, or a bucket
    has no public access block at all."""

    def theirs(item: Item) -> bool:
        res, everything = item
        if res.get("type") == "aws_s3_bucket_public_access_block":
            return not _true(_d(res.get("config")).get(key))
        if res.get("type") != "aws_s3_bucket":
            return False
        blocks = [r for r in everything if r.get("type") == "aws_s3_bucket_public_access_block"]
        return not any(res.get("address") in _l(b.get("refs")) for b in blocks)

    return theirs


def _acl_public(item: Item) -> bool:
    res, _ = item
    kinds = ("aws_s3_bucket", "aws_s3_bucket_acl")
    return res.get("type") in kinds and _public_acl(_d(res.get("config")))


def _trail_bucket_public(item: Item) -> bool:
    """Trivy AWS-0161: a public ACL on a bucket (or bucket ACL) that a CloudTrail logs to."""
    res, everything = item
    if not _acl_public(item):
        return False
    bucket = res.get("address") if res.get("type") == "aws_s3_bucket" else None
    buckets = {bucket} if bucket else set(_l(res.get("refs")))
    trails = [r for r in everything if r.get("type") == "aws_cloudtrail"]
    return any(buckets & set(_l(t.get("refs"))) for t in trails)


def _cluster_without_cmk(item: Item) -> bool:
    res, _ = item
    cfg = _d(res.get("config"))
    if res.get("type") != "aws_rds_cluster":
        return _rds_unencrypted(item)
    return not _true(cfg.get("storage_encrypted")) or not cfg.get("kms_key_id")


def _kms_unrotated_not_signing(item: Item) -> bool:
    res, _ = item
    cfg = _d(res.get("config"))
    return (
        res.get("type") == "aws_kms_key"
        and cfg.get("key_usage") != "SIGN_VERIFY"
        and not _true(cfg.get("enable_key_rotation"))
    )


def _any_wildcard(st: Obj) -> bool:
    if str(st.get("Effect", "Allow")) != "Allow":
        return False
    return any("*" in a for a in _strs(st.get("Action"))) or "*" in _strs(st.get("Resource"))


_KSV045 = frozenset(
    [
        "secrets",
        "pods",
        "deployments",
        "daemonsets",
        "statefulsets",
        "replicationcontrollers",
        "replicasets",
        "cronjobs",
        "jobs",
        "roles",
        "clusterroles",
        "rolebindings",
        "clusterrolebindings",
        "users",
        "groups",
    ]
)
_LIMIT_CPU = CheckMap(
    ("k8s/missing-resource-limits",),
    lambda i: i[2] != "ephemeralContainers" and _limit_missing(i[0], "cpu"),
    "the check requires a CPU limit only; the catalogue also a memory limit",
)
_LIMIT_MEMORY = CheckMap(
    ("k8s/missing-resource-limits",),
    lambda i: i[2] != "ephemeralContainers" and _limit_missing(i[0], "memory"),
    "the check requires a memory limit only; the catalogue also a CPU limit",
)
_SYS_ADMIN = CheckMap(
    ("k8s/dangerous-capabilities",), _adds("SYS_ADMIN"), "the check flags SYS_ADMIN only"
)
_HOST_NAMESPACES = CheckMap(("k8s/host-network", "k8s/host-pid", "k8s/host-ipc"))

TRIVY: dict[str, CheckMap] = {
    # KSV001: a container does not set allowPrivilegeEscalation: false
    "KSV-0001": CheckMap(("k8s/privilege-escalation",)),
    # KSV005: a container adds SYS_ADMIN
    "KSV-0005": _SYS_ADMIN,
    # KSV008: the pod sets hostIPC: true
    "KSV-0008": CheckMap(("k8s/host-ipc",)),
    # KSV009: the pod sets hostNetwork: true
    "KSV-0009": CheckMap(("k8s/host-network",)),
    # KSV010: the pod sets hostPID: true
    "KSV-0010": CheckMap(("k8s/host-pid",)),
    # KSV011: a container has no resources.limits.cpu
    "KSV-0011": _LIMIT_CPU,
    # KSV012: neither the container nor the pod sets runAsNonRoot: true (runAsUser ignored)
    "KSV-0012": CheckMap(
        ("k8s/run-as-root",),
        lambda i: not _nonroot_declared(i),
        _ROOT_NOTE + ", and lets a container's false override the pod's true",
    ),
    # KSV014: a container does not set readOnlyRootFilesystem: true
    "KSV-0014": CheckMap(("k8s/writable-root-filesystem",)),
    # KSV017: a container sets privileged: true
    "KSV-0017": CheckMap(("k8s/privileged-container",)),
    # KSV018: a container has no resources.limits.memory
    "KSV-0018": _LIMIT_MEMORY,
    # KSV022: a container adds any capability (its allow-list is empty)
    "KSV-0022": CheckMap(
        ("k8s/dangerous-capabilities",),
        lambda i: bool(_added(i[0])),
        "the check flags any added capability; the catalogue only its dangerous set",
    ),
    # KSV023: the pod declares a hostPath volume
    "KSV-0023": CheckMap(("k8s/hostpath-volume",)),
    # KSV028: the pod uses a volume type outside the restricted core set (hostPath included)
    "KSV-0028": CheckMap(
        ("k8s/hostpath-volume",),
        _non_core_volume,
        "the check flags every non-core volume type; the catalogue only hostPath",
    ),
    # KSV044: a Role/ClusterRole rule has '*' in apiGroups, resources and verbs together
    "KSV-0044": CheckMap(
        ("k8s/rbac-wildcard",),
        lambda r: all("*" in _strs(r.get(k)) for k in ("apiGroups", "resources", "verbs")),
        "the check needs '*' in apiGroups, resources and verbs at once; the catalogue any one",
    ),
    # KSV045: a Role/ClusterRole rule has verb '*' on a sensitive resource (pods, secrets, ...)
    "KSV-0045": CheckMap(
        ("k8s/rbac-wildcard",),
        lambda r: "*" in _strs(r.get("verbs")) and bool(set(_strs(r.get("resources"))) & _KSV045),
        "the check flags verb '*' on listed resources only; the catalogue any '*'",
    ),
    # AWS-0026: an aws_ebs_volume is not encrypted
    "AWS-0026": CheckMap(("tf/ebs-unencrypted",)),
    # AWS-0057 (deprecated): an IAM policy uses a wildcard in an action or a resource
    "AWS-0057": CheckMap(
        ("tf/iam-wildcard-action",),
        _any_wildcard,
        "the check flags any wildcard (s3:*, Resource '*'); the catalogue Action '*' only",
    ),
    # AWS-0065: a KMS key (other than a SIGN_VERIFY key) has rotation disabled
    "AWS-0065": CheckMap(
        ("tf/kms-rotation-disabled",),
        _kms_unrotated_not_signing,
        "the check exempts key_usage SIGN_VERIFY; the catalogue judges customer_master_key_spec",
    ),
    # AWS-0079: an aws_rds_cluster is not encrypted, or has no kms_key_id
    "AWS-0079": CheckMap(
        ("tf/rds-unencrypted",),
        _cluster_without_cmk,
        "the check also requires kms_key_id; the catalogue storage_encrypted only",
    ),
    # AWS-0080: an aws_db_instance does not set storage_encrypted
    "AWS-0080": CheckMap(("tf/rds-unencrypted",)),
    # AWS-0086: a public access block does not set block_public_acls (or there is none)
    "AWS-0086": CheckMap(
        ("tf/s3-public-access",),
        _pab_setting("block_public_acls"),
        "the check judges block_public_acls (and a missing block); the catalogue all four "
        "settings and public ACLs",
    ),
    # AWS-0087: a public access block does not set block_public_policy (or there is none)
    "AWS-0087": CheckMap(
        ("tf/s3-public-access",),
        _pab_setting("block_public_policy"),
        "the check judges block_public_policy (and a missing block); the catalogue all four "
        "settings and public ACLs",
    ),
    # AWS-0088 (deprecated): an S3 bucket has no server-side encryption configuration
    "AWS-0088": CheckMap(("tf/s3-unencrypted",)),
    # AWS-0091: a public access block does not set ignore_public_acls (or there is none)
    "AWS-0091": CheckMap(
        ("tf/s3-public-access",),
        _pab_setting("ignore_public_acls"),
        "the check judges ignore_public_acls (and a missing block); the catalogue all four "
        "settings and public ACLs",
    ),
    # AWS-0092: an S3 bucket (or its aws_s3_bucket_acl) uses a public canned ACL
    "AWS-0092": CheckMap(
        ("tf/s3-public-access",),
        _acl_public,
        "the check judges ACLs only; the catalogue also public access block settings",
    ),
    # AWS-0093: a public access block does not set restrict_public_buckets (or there is none)
    "AWS-0093": CheckMap(
        ("tf/s3-public-access",),
        _pab_setting("restrict_public_buckets"),
        "the check judges restrict_public_buckets (and a missing block); the catalogue all four "
        "settings and public ACLs",
    ),
    # AWS-0107: a security group ingress rule opens SSH/RDP (or all ports) to 0.0.0.0/0 or ::/0
    "AWS-0107": CheckMap(("tf/sg-open-admin-port",)),
    # AWS-0161: the S3 bucket a CloudTrail logs to has a public ACL
    "AWS-0161": CheckMap(
        ("tf/s3-public-access",),
        _trail_bucket_public,
        "the check judges the ACL of CloudTrail buckets only; the catalogue every bucket and "
        "public access block",
    ),
    # AWS-0180: an RDS instance sets publicly_accessible = true
    "AWS-0180": CheckMap(("tf/rds-public",)),
}


def trivy_id(raw: str) -> str:
    """``AVD-KSV-0012``, ``KSV012``, ``ksv-12`` -> ``KSV-0012``; other ids unchanged."""
    m = re.fullmatch(r"(?:AVD-)?([A-Za-z]+)-?(\d+)", raw.strip())
    return f"{m.group(1).upper()}-{int(m.group(2)):04d}" if m else raw.strip()


_RO_ROOTFS = CheckMap(("k8s/writable-root-filesystem",))
_LATEST = CheckMap(
    ("k8s/image-latest-tag",),
    lambda i: (
        isinstance(i[0].get("image"), str)
        and (":" not in i[0]["image"] or i[0]["image"].endswith(":latest"))
    ),
    "the policy requires a ':' in the image (a registry port passes) and no ':latest'; the "
    "catalogue also flags floating tags",
)
_REQUESTS_LIMITS = CheckMap(
    ("k8s/missing-resource-limits",),
    lambda i: (
        i[2] != "ephemeralContainers"
        and (
            _limit_missing(i[0], "memory")
            or _limit_missing(i[0], "cpu", "requests")
            or _limit_missing(i[0], "memory", "requests")
        )
    ),
    "the policy requires a memory limit and CPU/memory requests; the catalogue CPU and memory "
    "limits",
)
_RUN_AS_NON_ROOT = CheckMap(
    ("k8s/run-as-root",),
    lambda i: _eff(i[0], i[1], "runAsNonRoot") is not True,
    _ROOT_NOTE,
)
_SOCKETS = (
    "/var/run/docker.sock",
    "/var/run/containerd/containerd.sock",
    "/var/run/crio/crio.sock",
    "/var/run/cri-dockerd.sock",
)

KYVERNO: dict[str, KyvernoMap] = {
    # a container sets privileged: true
    "disallow-privileged-containers": KyvernoMap(CheckMap(("k8s/privileged-container",))),
    # the pod sets hostNetwork, hostPID or hostIPC to true
    "disallow-host-namespaces": KyvernoMap(_HOST_NAMESPACES),
    # the pod declares a hostPath volume
    "disallow-host-path": KyvernoMap(CheckMap(("k8s/hostpath-volume",))),
    # a container adds a capability outside the baseline allow-list
    "disallow-capabilities": KyvernoMap(
        CheckMap(("k8s/dangerous-capabilities",), _adds_outside(BASELINE_CAPS), _CAPS_NOTE)
    ),
    # a container adds a capability other than NET_BIND_SERVICE (require-drop-all: no id)
    "disallow-capabilities-strict": KyvernoMap(
        CheckMap(
            ("k8s/dangerous-capabilities",),
            _adds_outside(frozenset({"NET_BIND_SERVICE"})),
            _CAPS_NOTE,
        ),
        rules=("adding-capabilities-strict",),
        ignore=("require-drop-all",),
    ),
    # a container does not set allowPrivilegeEscalation: false
    "disallow-privilege-escalation": KyvernoMap(CheckMap(("k8s/privilege-escalation",))),
    # a container's effective runAsNonRoot (container over pod) is not true
    "require-run-as-nonroot": KyvernoMap(_RUN_AS_NON_ROOT),
    "require-run-as-non-root": KyvernoMap(_RUN_AS_NON_ROOT),
    # the pod uses a volume type outside the restricted core set (hostPath included)
    "restrict-volume-types": KyvernoMap(
        CheckMap(
            ("k8s/hostpath-volume",),
            _non_core_volume,
            "the policy flags every non-core volume type; the catalogue only hostPath",
        )
    ),
    # an image has no tag (require-image-tag) or the tag latest (validate-image-tag)
    "disallow-latest-tag": KyvernoMap(_LATEST, rules=("require-image-tag", "validate-image-tag")),
    # a container does not set readOnlyRootFilesystem: true
    "require-ro-rootfs": KyvernoMap(_RO_ROOTFS),
    # a container lacks a memory limit or CPU/memory requests
    "require-requests-limits": KyvernoMap(_REQUESTS_LIMITS),
    "require-pod-requests-limits": KyvernoMap(_REQUESTS_LIMITS),
    # a hostPath volume mounts the Docker, containerd, CRI-O or cri-dockerd socket
    "disallow-container-sock-mounts": KyvernoMap(
        CheckMap(
            ("k8s/hostpath-volume",),
            _sock_path(*_SOCKETS),
            "the policy flags container-runtime sockets only; the catalogue every hostPath",
        ),
        rules=(
            "validate-docker-sock-mount",
            "validate-containerd-sock-mount",
            "validate-crio-sock-mount",
            "validate-dockerd-sock-mount",
        ),
    ),
    # a Role/ClusterRole rule lists '*' in resources
    "restrict-wildcard-resources": KyvernoMap(
        CheckMap(
            ("k8s/rbac-wildcard",),
            lambda r: "*" in _strs(r.get("resources")),
            "the policy judges resources only; the catalogue also apiGroups and verbs",
        )
    ),
    # a Role/ClusterRole rule lists '*' in verbs
    "restrict-wildcard-verbs": KyvernoMap(
        CheckMap(
            ("k8s/rbac-wildcard",),
            lambda r: "*" in _strs(r.get("verbs")),
            "the policy judges verbs only; the catalogue also apiGroups and resources",
        )
    ),
    # a RoleBinding/ClusterRoleBinding's roleRef names cluster-admin (any roleRef kind)
    "restrict-binding-clusteradmin": KyvernoMap(
        CheckMap(
            ("k8s/cluster-admin-binding",),
            lambda b: _d(b.get("roleRef")).get("name") == "cluster-admin",
            "the policy matches the name cluster-admin whatever the roleRef kind",
        )
    ),
}


def _rw_hostpath(item: Item) -> bool:
    """Kubescape alert-rw-hostpath: a hostPath volume mounted without readOnly: true."""
    vol, pod = item
    if "hostPath" not in vol:
        return False
    mounts = [
        m
        for f in FIELDS
        for c in _l(pod.get(f))
        if isinstance(c, dict)
        for m in _l(c.get("volumeMounts"))
        if isinstance(m, dict) and m.get("name") == vol.get("name")
    ]
    return any(m.get("readOnly") is not True for m in mounts)


def _kubescape_root(item: Item) -> bool:
    """Kubescape non-root-containers: runAsNonRoot (container, else pod) unset/false and
    runAsUser (container, else pod) unset/0, or allowPrivilegeEscalation not false."""
    c, pod, _ = item
    nonroot, uid = _eff(c, pod, "runAsNonRoot"), _eff(c, pod, "runAsUser")
    root = nonroot in (None, False) and uid in (None, 0)
    return root or _eff(c, pod, "allowPrivilegeEscalation") is not False


def _psp_guard(objects: list[Obj]) -> str | None:
    if any(o.get("kind") == "PodSecurityPolicy" for o in objects):
        return "a PodSecurityPolicy in the input decides the rule (no canonical id)"
    return None


def insecure_capabilities(caps: list[str] | tuple[str, ...]) -> CheckMap:
    """Kubescape insecure-capabilities with its configured list (exact strings)."""
    return CheckMap(("k8s/dangerous-capabilities",), _adds(*caps), _CAPS_NOTE)


REGOLIBRARY: dict[str, CheckMap] = {
    # a container is privileged: true or adds SYS_ADMIN
    "rule-privileged-container": CheckMap(
        ("k8s/privileged-container",),
        lambda i: _sc(i[0]).get("privileged") is True or "SYS_ADMIN" in _added(i[0]),
        "the rule also flags SYS_ADMIN (catalogue: k8s/dangerous-capabilities)",
    ),
    # the pod sets hostPID or hostIPC to true
    "host-pid-ipc-privileges": CheckMap(("k8s/host-pid", "k8s/host-ipc")),
    # the pod sets hostNetwork: true
    "host-network-access": CheckMap(("k8s/host-network",)),
    # the pod declares a hostPath volume
    "alert-any-hostpath": CheckMap(("k8s/hostpath-volume",)),
    # a hostPath volume is mounted without readOnly: true
    "alert-rw-hostpath": CheckMap(
        ("k8s/hostpath-volume",),
        _rw_hostpath,
        "the rule flags writable hostPath mounts only; the catalogue every hostPath volume",
    ),
    # a container does not set allowPrivilegeEscalation: false (unless an input PSP forbids it)
    "rule-allow-privilege-escalation": CheckMap(("k8s/privilege-escalation",), guard=_psp_guard),
    # a container may run as root, or does not disable privilege escalation
    "non-root-containers": CheckMap(
        ("k8s/run-as-root",),
        _kubescape_root,
        "the rule also fails containers without allowPrivilegeEscalation: false "
        "(catalogue: k8s/privilege-escalation)",
    ),
    # a container does not set readOnlyRootFilesystem: true
    "immutable-container-filesystem": _RO_ROOTFS,
    # a container lacks a CPU or a memory limit
    "resource-policies": CheckMap(("k8s/missing-resource-limits",)),
    # a container lacks a CPU limit
    "resources-cpu-limits": _LIMIT_CPU,
    # a container lacks a memory limit
    "resources-memory-limits": _LIMIT_MEMORY,
    # a container lacks a CPU limit or request (or is outside configured ranges)
    "resources-cpu-limit-and-request": CheckMap(
        ("k8s/missing-resource-limits",),
        lambda i: _limit_missing(i[0], "cpu") or _limit_missing(i[0], "cpu", "requests"),
        "the rule requires a CPU limit and request; the catalogue CPU and memory limits",
    ),
    # a container lacks a memory limit or request (or is outside configured ranges)
    "resources-memory-limit-and-request": CheckMap(
        ("k8s/missing-resource-limits",),
        lambda i: _limit_missing(i[0], "memory") or _limit_missing(i[0], "memory", "requests"),
        "the rule requires a memory limit and request; the catalogue CPU and memory limits",
    ),
    # a container adds a capability of the configured insecure list (default list here)
    "insecure-capabilities": insecure_capabilities(KUBESCAPE_INSECURE_CAPS),
    # a hostPath volume mounts the Docker (socket or folder), containerd or CRI-O socket
    "containers-mounting-docker-socket": CheckMap(
        ("k8s/hostpath-volume",),
        _sock_path(
            "/var/run/docker.sock",
            "/var/run/docker",
            "/run/containerd/containerd.sock",
            "/var/run/crio/crio.sock",
        ),
        "the rule flags container-runtime sockets only; the catalogue every hostPath",
    ),
}


def _latest_or_untagged(item: Item) -> bool:
    image = item[0].get("image")
    if not isinstance(image, str) or "@" in image:
        return False
    last = image.rsplit("/", 1)[-1]
    return ":" not in last or last.endswith(":latest")


_CHECKOV_THEIRS: dict[str, CheckMap] = {
    "CKV_K8S_11": _LIMIT_CPU,
    "CKV_K8S_14": CheckMap(
        ("k8s/image-latest-tag",),
        _latest_or_untagged,
        "the check flags latest or no tag; the catalogue also floating tags",
    ),
    "CKV_K8S_13": _LIMIT_MEMORY,
    "CKV_K8S_27": CheckMap(
        ("k8s/hostpath-volume",),
        _sock_path("/var/run/docker.sock"),
        "the check flags the Docker socket only; the catalogue every hostPath",
    ),
    "CKV_K8S_39": _SYS_ADMIN,
}
CHECKOV: dict[str, CheckMap] = {
    rule: _CHECKOV_THEIRS.get(rule, CheckMap((vid,)))
    for rule, vid in TOOL_RULES["checkov"].items()
    if CATALOGUE[vid].kind == "k8s"
}
"""checkov's Kubernetes checks mapped in TOOL_RULES (names there); subset checks say so."""
