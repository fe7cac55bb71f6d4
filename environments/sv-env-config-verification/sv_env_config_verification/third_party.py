"""Third-party checks that mean a catalogue id, and when one of their labelled cases can be scored.

Tables, one entry per check with a comment saying what the check flags: `TRIVY` (trivy-checks
AVD ids, normalised by `trivy_id`), `KYVERNO` (kyverno/policies policy names), `REGOLIBRARY`
(Kubescape regolibrary rule names) and `CHECKOV` (checkov's ids mapped in
``canonical.TOOL_RULES["checkov"]``). A check that is in no table is *uncovered*.

Scope. A labelled case is scored only when its verdict is decided by what the mapped ids model.
Where a check judges something the catalogue does not (or the reverse), `CheckMap.theirs` says
what the check flags, per *unit* (a container, a pod spec, a volume, an RBAC rule, a binding, a
container port naming a hostPort, a pod sysctl, a container annotation naming no container, a
Terraform resource or IAM statement), and `scope_reason` compares it with the catalogue's own
reading of the same unit (`OURS`: the semantics in ``canonical.CATALOGUE``, restated here for
scoping only). The case is out of scope when some unit is judged differently and no unit is
flagged by both (a unit both flag decides the case: both must call it a violation). A container
in a list the check does not read (``fields``) counts as "not flagged" on the check's side.

The catalogue reads Kubernetes objects as ``k8s_effective`` resolves them (a claim bound to a
hostPath PersistentVolume of the file, RBAC enumerations of every verb or most groups and
resources, ClusterRoles that aggregate or copy cluster-admin, limits beyond any node's size);
`OURS` is applied to those resolved units, a check to the objects as written, so a case that
hinges on a resolution the check does not make is out of scope (`EFFECTIVE_NOTE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .canonical import CATALOGUE, DANGEROUS_CAPABILITIES, SAFE_SYSCTLS, TOOL_RULES
from .configs import decode_policy
from .gatekeeper import pod_spec
from .k8s_effective import VACUOUS_KEY, effective_objects

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
    fields: frozenset[str] | None = None
    """Container lists the check reads, when the reader's guess from its source is wrong."""


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


def pod_annotations(obj: Obj) -> Obj:
    """The annotations of a workload's pods: a Pod's own, else its pod template's."""
    kind, spec = obj.get("kind"), _d(obj.get("spec"))
    if kind == "Pod":
        return _d(_d(obj.get("metadata")).get("annotations"))
    if kind == "CronJob":
        spec = _d(_d(spec.get("jobTemplate")).get("spec"))
    elif not pod_spec(obj):
        return {}
    return _d(_d(_d(spec.get("template")).get("metadata")).get("annotations"))


WORKLOAD_KINDS = frozenset(
    {"Pod", "CronJob", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"}
    | {"ReplicationController"}
)
SECCOMP_POD_KEY = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_KEY = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_KEY = "container.apparmor.security.beta.kubernetes.io/"
PROFILE_TYPES = frozenset({"RuntimeDefault", "Localhost"})


def _unconfined(value: Any) -> bool:
    """An annotation value the catalogue reads as unconfined (case-insensitive)."""
    return str(value).lower() == "unconfined"


def _host_port(value: Any) -> bool:
    """A hostPort the catalogue flags: set, and not 0."""
    zero = isinstance(value, int | float) and not isinstance(value, bool) and value == 0
    return value is not None and not zero


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


def _host_ports(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """(where, (container, pod spec, field, port)) for every container port naming a hostPort."""
    for where, (c, pod, f) in _containers(objects):
        for j, port in enumerate(_l(c.get("ports"))):
            if isinstance(port, dict) and "hostPort" in port:
                yield f"{where} port {j}", (c, pod, f, port)


def _profile_units(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """Seccomp/AppArmor units, each (container or None, pod spec, field, pod annotations, key):
    the pod (its securityContext and pod-wide annotation), every container (its own
    securityContext and annotation), and every container annotation naming no container."""
    for obj in objects:
        pod = pod_spec(obj)
        if obj.get("kind") not in WORKLOAD_KINDS:
            continue
        notes = pod_annotations(obj)
        yield f"{_name(obj)} pod", (None, pod, "pod", notes, None)
        names = set()
        for f in FIELDS:
            for c in _l(pod.get(f)):
                if isinstance(c, dict):
                    names.add(str(c.get("name")))
                    yield f"{_name(obj)} {f}[{c.get('name')}]", (c, pod, f, notes, None)
        for key in notes:
            for prefix in (SECCOMP_KEY, APPARMOR_KEY):
                if str(key).startswith(prefix) and str(key)[len(prefix) :] not in names:
                    yield f"{_name(obj)} annotation {key}", (None, pod, "annotation", notes, key)


def _sysctls(objects: list[Obj]) -> Iterator[tuple[str, Item]]:
    """(where, (sysctl entry, pod spec)) for every entry of a pod's securityContext.sysctls."""
    for where, pod in _pods(objects):
        for j, entry in enumerate(_l(_d(pod.get("securityContext")).get("sysctls"))):
            yield f"{where} sysctl {_d(entry).get('name', j)}", (entry, pod)


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


def _named(entry: Any, names: frozenset[str]) -> bool:
    """A sysctl entry whose name is one of `names`."""
    name = _d(entry).get("name")
    return isinstance(name, str) and name in names


def _profile_type(sc: Obj, key: str) -> Any:
    """``securityContext.<key>.type`` (seccompProfile, appArmorProfile), None when unset."""
    return _d(sc.get(key)).get("type")


def _own_note(item: Item, prefix: str) -> tuple[bool, Any]:
    """(present, value) of the annotation `prefix`<name> of a container unit."""
    c, _, _, notes, _ = item
    key = prefix + str(c.get("name"))
    return key in notes, notes.get(key)


def _seccomp_unconfined(item: Item) -> bool:
    """The catalogue: a pod or container seccompProfile.type Unconfined, or a seccomp
    annotation (pod-wide or per container, named container or not) 'unconfined'."""
    c, pod, kind, notes, key = item
    if kind == "pod":
        psc = _d(pod.get("securityContext"))
        pod_note = SECCOMP_POD_KEY in notes and _unconfined(notes[SECCOMP_POD_KEY])
        return _profile_type(psc, "seccompProfile") == "Unconfined" or pod_note
    if kind == "annotation":
        return str(key).startswith(SECCOMP_KEY) and _unconfined(notes[key])
    present, value = _own_note(item, SECCOMP_KEY)
    return _profile_type(_sc(c), "seccompProfile") == "Unconfined" or (
        present and _unconfined(value)
    )


def _apparmor_unconfined(item: Item) -> bool:
    """The catalogue: a pod or container appArmorProfile.type Unconfined, or a container
    AppArmor annotation (named container or not) 'unconfined'."""
    c, pod, kind, notes, key = item
    if kind == "pod":
        return _profile_type(_d(pod.get("securityContext")), "appArmorProfile") == "Unconfined"
    if kind == "annotation":
        return str(key).startswith(APPARMOR_KEY) and _unconfined(notes[key])
    present, value = _own_note(item, APPARMOR_KEY)
    return _profile_type(_sc(c), "appArmorProfile") == "Unconfined" or (
        present and _unconfined(value)
    )


OURS: dict[str, Pred] = {
    "k8s/privileged-container": lambda i: _sc(i[0]).get("privileged") is True,
    "k8s/run-as-root": lambda i: _root(i[0], i[1]),
    "k8s/privilege-escalation": lambda i: _sc(i[0]).get("allowPrivilegeEscalation") is not False,
    "k8s/missing-resource-limits": lambda i: (
        i[2] != "ephemeralContainers"
        and (
            _limit_missing(i[0], "cpu")
            or _limit_missing(i[0], "memory")
            or bool(_l(i[0].get(VACUOUS_KEY)))
        )
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
    "k8s/host-port": lambda i: _host_port(i[3].get("hostPort")),
    "k8s/seccomp-unconfined": _seccomp_unconfined,
    "k8s/apparmor-unconfined": _apparmor_unconfined,
    "k8s/unmasked-proc-mount": lambda i: _sc(i[0]).get("procMount") not in (None, "Default"),
    "k8s/unsafe-sysctls": lambda i: not _named(i[0], SAFE_SYSCTLS),
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
    "k8s/host-port": _host_ports,
    "k8s/seccomp-unconfined": _profile_units,
    "k8s/apparmor-unconfined": _profile_units,
    "k8s/unmasked-proc-mount": _containers,
    "k8s/unsafe-sysctls": _sysctls,
    "tf/s3-public-access": _tf_resources,
    "tf/kms-rotation-disabled": _tf_resources,
    "tf/rds-unencrypted": _tf_resources,
    "tf/iam-wildcard-action": _statements,
}


CONTAINER_UNITS = (_containers, _host_ports, _profile_units)
"""Unit kinds whose items are (container, pod spec, field, ...): a container in a list the
check does not read is "not flagged" on the check's side."""
EFFECTIVE_NOTE = {
    "k8s/hostpath-volume": "the catalogue follows a claim to a hostPath PersistentVolume of the "
    "file; the check reads the pod's volumes as written",
    "k8s/rbac-wildcard": "the catalogue counts an enumeration of every verb or of most built-in "
    "groups or resources (and rules an aggregationRule gathers) as '*'; the check reads the "
    "rule as written",
    "k8s/cluster-admin-binding": "the catalogue resolves a ClusterRole of the file that "
    "aggregates or copies cluster-admin; the check reads roleRef as written",
    "k8s/missing-resource-limits": "the catalogue reads a limit beyond any node's size (over "
    "128 cores or 1 TiB) as no limit; the check reads it as set",
}
"""Why a unit differs when only the catalogue's resolution (``k8s_effective``) changes it."""


def _resolved(objects: list[Obj], context: list[Obj] | None) -> list[Obj]:
    """The `objects` as ``k8s_effective`` resolves them within their episode (`context`)."""
    ctx = context if context is not None else objects
    position = {id(o): i for i, o in enumerate(ctx)}
    if not all(id(o) in position for o in objects):
        ctx, position = objects, {id(o): i for i, o in enumerate(objects)}
    resolved = effective_objects(ctx)
    return [resolved[position[id(o)]] for o in objects]


def _keyed(units: Iterator[tuple[str, Item]]) -> Iterator[tuple[tuple[str, int], Item]]:
    """Units keyed by (where, occurrence), so that resolved and written units pair up."""
    seen: dict[str, int] = {}
    for where, item in units:
        seen[where] = seen.get(where, -1) + 1
        yield (where, seen[where]), item


def scope_reason(
    check: CheckMap,
    objects: list[Obj],
    fields: frozenset[str] = ALL_FIELDS,
    context: list[Obj] | None = None,
) -> str | None:
    """Why a case of `check` cannot be scored, or None (module docstring). `objects` are the
    Kubernetes objects the label is about (or normalised Terraform resources for tf ids);
    `context` is the whole episode, for the check's `guard` and the catalogue's resolution."""
    if check.guard is not None and (why := check.guard(context or objects)) is not None:
        return why
    items = ITEMS.get(check.ids[0])
    if items is None:
        return None
    fields = check.fields if check.fields is not None else fields
    ours = [OURS[i] for i in check.ids]
    k8s = CATALOGUE[check.ids[0]].kind == "k8s"
    written = dict(_keyed(items(objects)))
    resolved = _keyed(items(_resolved(objects, context))) if k8s else written.items()
    differ: str | None = None
    for key, item in resolved:
        raw = written.get(key)
        o = any(p(item) for p in ours)
        o_raw = raw is not None and any(p(raw) for p in ours)
        t = raw is not None and (check.theirs(raw) if check.theirs is not None else o_raw)
        unread = items in CONTAINER_UNITS and item[2] in FIELDS and item[2] not in fields
        t = t and not unread
        if o and t:
            return None
        if o != t and differ is None:
            side = "the catalogue flags it, the check does not" if o else "the check flags it"
            if unread and o:
                what = f"the check does not read {item[2]}"
            elif o != o_raw and t == o_raw:
                what = EFFECTIVE_NOTE.get(check.ids[0], "the catalogue resolves the object")
            else:
                what = check.differs
            differ = f"{what}; at {key[0]}: {side}"
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
_ANY_HOST_PORT = "the check fails any hostPort, 0 included; the catalogue one other than 0"


def _ksv002(item: Item) -> bool:
    """Trivy KSV002: a container's AppArmor annotation is set to anything but runtime/default
    (securityContext.appArmorProfile is not read)."""
    if item[0] is None:
        return False
    present, value = _own_note(item, APPARMOR_KEY)
    return present and value != "runtime/default"


def _ksv030(item: Item) -> bool:
    """Trivy KSV030: a pod-wide seccomp annotation other than runtime/default; without one, a
    container whose own seccompProfile.type is not RuntimeDefault or Localhost (unset fails)."""
    c, _, kind, notes, _ = item
    if kind == "pod":
        return SECCOMP_POD_KEY in notes and notes[SECCOMP_POD_KEY] != "runtime/default"
    if kind == "annotation":
        return False
    pod_note = SECCOMP_POD_KEY in notes and notes[SECCOMP_POD_KEY] is not False
    return not pod_note and _profile_type(_sc(c), "seccompProfile") not in PROFILE_TYPES


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
    # KSV002: a container's AppArmor annotation is not runtime/default
    "KSV-0002": CheckMap(
        ("k8s/apparmor-unconfined",),
        _ksv002,
        "the check fails any AppArmor annotation but runtime/default (localhost/* too) and reads "
        "no appArmorProfile; the catalogue flags unconfined only",
    ),
    # KSV023: the pod declares a hostPath volume
    "KSV-0023": CheckMap(("k8s/hostpath-volume",)),
    # KSV024: a container port sets hostPort (any value; its allowed list is empty)
    "KSV-0024": CheckMap(("k8s/host-port",), lambda i: "hostPort" in i[3], _ANY_HOST_PORT),
    # KSV026: the pod sets a sysctl outside the baseline safe set (of Kubernetes 1.32 by default)
    "KSV-0026": CheckMap(("k8s/unsafe-sysctls",)),  # the same 1.32 set as the catalogue
    # KSV027: a container sets securityContext.procMount (any value)
    "KSV-0027": CheckMap(
        ("k8s/unmasked-proc-mount",),
        lambda i: "procMount" in _sc(i[0]),
        "the check fails any procMount, Default included; the catalogue anything but Default",
    ),
    # KSV028: the pod uses a volume type outside the restricted core set (hostPath included)
    "KSV-0028": CheckMap(
        ("k8s/hostpath-volume",),
        _non_core_volume,
        "the check flags every non-core volume type; the catalogue only hostPath",
    ),
    # KSV030: a pod-wide seccomp annotation other than runtime/default, or a container whose own
    # seccompProfile.type is not RuntimeDefault or Localhost (unset included: restricted)
    "KSV-0030": CheckMap(
        ("k8s/seccomp-unconfined",),
        _ksv030,
        "the check requires RuntimeDefault or Localhost on each container (an unset profile "
        "fails; the pod's profile and container annotations are not read); the catalogue flags "
        "Unconfined only",
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

KYVERNO_SYSCTLS = frozenset(
    [
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
    ]
)
"""Kyverno restrict-sysctls: the five sysctls its pattern allows."""


def _bad_type(sc: Obj) -> bool:
    """Kyverno's =(seccompProfile): =(type): "RuntimeDefault | Localhost" fails: a type is set
    to anything else."""
    profile = _d(sc.get("seccompProfile"))
    return "type" in profile and profile["type"] not in PROFILE_TYPES


def _restrict_seccomp(item: Item) -> bool:
    """Kyverno restrict-seccomp: the pod's or a container's own seccompProfile.type is set and
    not RuntimeDefault or Localhost (annotations are not read)."""
    c, pod, kind, _, _ = item
    if kind == "annotation":
        return False
    return _bad_type(_d(pod.get("securityContext")) if c is None else _sc(c))


def _restrict_seccomp_strict(item: Item) -> bool:
    """Kyverno restrict-seccomp-strict (restricted): it fails exactly when some container sets a
    type other than RuntimeDefault/Localhost, or sets none while the pod-level type is not one
    of them (its two anyPattern alternatives, per container)."""
    c, pod, _, _, _ = item
    if c is None:
        return False
    own = _profile_type(_sc(c), "seccompProfile")
    pod_type = _profile_type(_d(pod.get("securityContext")), "seccompProfile")
    return _bad_type(_sc(c)) or (own is None and pod_type not in PROFILE_TYPES)


def _apparmor_value_bad(value: Any) -> bool:
    """Kyverno's "runtime/default | localhost/*" fails the value."""
    ok = value == "runtime/default" or (isinstance(value, str) and value.startswith("localhost/"))
    return not ok


def _restrict_apparmor(item: Item) -> bool:
    """Kyverno restrict-apparmor-profiles: any container.apparmor.security.beta.kubernetes.io/*
    annotation (a container's or a stray one) other than runtime/default or localhost/*."""
    _, _, kind, notes, key = item
    if kind == "pod":
        return False
    if kind == "annotation":
        return str(key).startswith(APPARMOR_KEY) and _apparmor_value_bad(notes[key])
    present, value = _own_note(item, APPARMOR_KEY)
    return present and _apparmor_value_bad(value)


_PROC_MOUNT = CheckMap(
    ("k8s/unmasked-proc-mount",),
    lambda i: "procMount" in _sc(i[0]) and _sc(i[0])["procMount"] != "Default",
    "the policy fails procMount: null too",
)
_SECCOMP_NOTE = "reads no annotations; the catalogue flags Unconfined (type or annotation) only"

KYVERNO: dict[str, KyvernoMap] = {
    # a container port sets hostPort to anything but 0 (unset or 0 passes)
    "disallow-host-ports": KyvernoMap(
        CheckMap(
            ("k8s/host-port",),
            lambda i: i[3]["hostPort"] != 0,
            "the policy fails hostPort: null too",
        )
    ),
    # the pod's or a container's seccompProfile.type is set to other than RuntimeDefault/Localhost
    "restrict-seccomp": KyvernoMap(
        CheckMap(
            ("k8s/seccomp-unconfined",),
            _restrict_seccomp,
            "the policy fails any type but RuntimeDefault or Localhost and " + _SECCOMP_NOTE,
        )
    ),
    # restricted profile: as restrict-seccomp, and an unset profile fails (scored only where an
    # Unconfined container decides, or where every profile is RuntimeDefault/Localhost)
    "restrict-seccomp-strict": KyvernoMap(
        CheckMap(
            ("k8s/seccomp-unconfined",),
            _restrict_seccomp_strict,
            "the policy (restricted) also fails an unset profile and " + _SECCOMP_NOTE,
        )
    ),
    # a container AppArmor annotation is other than runtime/default or localhost/*
    "restrict-apparmor-profiles": KyvernoMap(
        CheckMap(
            ("k8s/apparmor-unconfined",),
            _restrict_apparmor,
            "the policy fails any AppArmor annotation but runtime/default or localhost/* and "
            "reads no appArmorProfile; the catalogue flags unconfined only",
            fields=ALL_FIELDS,  # it reads annotations, whatever list the container is in
        )
    ),
    # a container sets procMount to other than Default (policy file disallow-proc-mount)
    "require-default-proc-mount": KyvernoMap(_PROC_MOUNT),
    "disallow-proc-mount": KyvernoMap(_PROC_MOUNT),
    # the pod sets a sysctl outside the five original safe ones
    "restrict-sysctls": KyvernoMap(
        CheckMap(
            ("k8s/unsafe-sysctls",),
            lambda i: "name" in _d(i[0]) and not _named(i[0], KYVERNO_SYSCTLS),
            "the policy allows only the five original safe sysctls (not "
            "ip_local_reserved_ports, tcp_keepalive_*, tcp_fin_timeout); the catalogue the "
            "current baseline set",
        )
    ),
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


KYVERNO_FORMS: dict[str, tuple[str, KyvernoMap]] = {
    # the older disallow-host-ports (X(hostPort): 0) fails any hostPort, 0 included
    "disallow-host-ports": (
        "X(hostPort)",
        KyvernoMap(
            CheckMap(
                ("k8s/host-port",),
                lambda i: "hostPort" in i[3],
                "this older form of the policy (X(hostPort)) fails any hostPort, 0 included; "
                "the catalogue one other than 0",
            )
        ),
    ),
}
"""Policies whose meaning changed across kyverno/policies versions: (text that marks the
other form in the policy file, its mapping)."""


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


def _proc_mount_gate(objects: list[Obj]) -> str | None:
    """Kubescape set-procmount-default judges only when a ControlPlaneInfo of the input runs
    the API server with --feature-gates=...ProcMountType=true."""
    for obj in objects:
        if obj.get("kind") != "ControlPlaneInfo":
            continue
        if obj.get("apiVersion") != "hostdata.kubescape.cloud/v1beta0":
            continue
        cmd = _d(_d(obj.get("data")).get("APIServerInfo")).get("cmdLine")
        gated = isinstance(cmd, str) and "--feature-gates=" in cmd
        if gated and any(re.search("ProcMountType=true", a) for a in re.split(" +", cmd)):
            return None
    return (
        "no ControlPlaneInfo of the input enables the ProcMountType feature gate (the rule "
        "judges nothing)"
    )


REGOLIBRARY: dict[str, CheckMap] = {
    # a container (not an initContainer) port sets hostPort (any value but false: 0 included)
    "container-hostPort": CheckMap(
        ("k8s/host-port",),
        lambda i: "hostPort" in i[3] and i[3]["hostPort"] is not False,
        "the rule fails any hostPort, 0 included; the catalogue one other than 0",
    ),
    # with the ProcMountType feature gate on: a container (not an initContainer) whose procMount
    # is not Default (unset included in the current rule)
    "set-procmount-default": CheckMap(
        ("k8s/unmasked-proc-mount",),
        lambda i: _sc(i[0]).get("procMount") != "Default",
        "the rule requires procMount: Default (an unset procMount fails); the catalogue flags "
        "any other value only",
        guard=_proc_mount_gate,
    ),
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
