"""Deterministic injection of canonical misconfigurations into secure base configs.

Kubernetes manifests are edited as parsed documents and re-serialised with
``yaml.safe_dump_all(sort_keys=False)``; :func:`normalise` applies the same serialisation to
the base, so a mutated file differs from its base only where the mutation edited it (and so
comments or layout never reveal whether a file was mutated). Terraform has no HCL writer, so
mutations are targeted line edits of the original text; all other formatting is kept.

Every mutation records the canonical id it injects and the resource it touched; a
:class:`MutationResult` carries the exact inverse as a unified diff (``fix_patch``), which is
what the ``tool-oracle-fix`` baseline emits. All randomness comes from the ``random.Random``
passed in, so equal seeds give equal results.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import hcl2
import yaml

from sv_env_config_verification.configs import ConfigError, ConfigFile, k8s_resource, parse_k8s
from sv_env_config_verification.k8s_shape import pod_spec
from sv_env_config_verification.patching import make_unified_diff

__all__ = [
    "K8S_MUTATIONS",
    "TF_MUTATIONS",
    "Mutation",
    "MutationError",
    "MutationResult",
    "dump_k8s",
    "mutate",
    "normalise",
    "random_mutation",
    "supported_ids",
]


class MutationError(ValueError):
    """A requested mutation does not apply to the config."""


@dataclass(frozen=True)
class Mutation:
    """One injected misconfiguration: its canonical id, the resource touched, what changed."""

    id: str
    resource: str
    detail: str


@dataclass(frozen=True)
class MutationResult:
    """A mutated config, the (normalised) base it came from and the inverse patch."""

    base: ConfigFile
    config: ConfigFile
    mutations: tuple[Mutation, ...]
    fix_patch: str

    @property
    def injected(self) -> list[str]:
        """Canonical ids injected, in order."""
        return [m.id for m in self.mutations]


# ============================================================================ Kubernetes
def dump_k8s(docs: Sequence[Any]) -> str:
    """The canonical serialisation of manifests (block style, keys in document order)."""
    return yaml.safe_dump_all(list(docs), sort_keys=False, width=4096, allow_unicode=True)


def _resource(doc: dict[str, Any]) -> str:
    return k8s_resource(doc)


def _workloads(docs: list[Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(document, pod spec) of every workload document with containers."""
    out = []
    for doc in docs:
        spec = pod_spec(doc) if isinstance(doc, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
            out.append((doc, spec))
    return out


def _containers(docs: list[Any]) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(document, pod spec, container) for every regular container of every workload."""
    return [
        (doc, spec, c)
        for doc, spec in _workloads(docs)
        for c in spec["containers"]
        if isinstance(c, dict)
    ]


def _set_before(mapping: dict[str, Any], key: str, value: Any, before: str) -> None:
    """Set ``mapping[key]``; a new key is inserted before ``before`` (else appended)."""
    if key in mapping or before not in mapping:
        mapping[key] = value
        return
    items = list(mapping.items())
    mapping.clear()
    for k, v in items:
        if k == before:
            mapping[key] = value
        mapping[k] = v


def _sec(container: dict[str, Any]) -> dict[str, Any]:
    ctx = container.get("securityContext")
    if not isinstance(ctx, dict):
        ctx = container["securityContext"] = {}
    return ctx


def _where(doc: dict[str, Any], container: dict[str, Any] | None = None) -> str:
    return f"container {container.get('name')}" if container else _resource(doc)


K8sTarget = tuple[dict[str, Any], ...]
K8sApply = Callable[[K8sTarget, random.Random], str]


@dataclass(frozen=True)
class _K8sMutator:
    targets: Callable[[list[Any]], list[K8sTarget]]
    apply: K8sApply


def _container_targets(docs: list[Any]) -> list[K8sTarget]:
    return [(doc, c) for doc, _, c in _containers(docs)]


def _container_without(check: Callable[[dict[str, Any]], bool]) -> Callable:
    def targets(docs: list[Any]) -> list[K8sTarget]:
        return [(doc, c) for doc, c in _container_targets(docs) if check(c)]

    return targets


def _pod_targets(key: str) -> Callable[[list[Any]], list[K8sTarget]]:
    def targets(docs: list[Any]) -> list[K8sTarget]:
        return [(doc, spec) for doc, spec in _workloads(docs) if spec.get(key) is not True]

    return targets


def _privileged(target: K8sTarget, rng: random.Random) -> str:
    _sec(target[1])["privileged"] = True
    return f"{_where(*target)}: securityContext.privileged=true"


def _host_flag(key: str) -> K8sApply:
    def apply(target: K8sTarget, rng: random.Random) -> str:
        _set_before(target[1], key, True, "containers")
        return f"pod spec {key}=true"

    return apply


def _run_as_root(target: K8sTarget, rng: random.Random) -> str:
    ctx = _sec(target[1])
    ctx["runAsNonRoot"] = False
    ctx["runAsUser"] = 0
    return f"{_where(*target)}: runAsUser=0, runAsNonRoot=false"


def _privilege_escalation(target: K8sTarget, rng: random.Random) -> str:
    _sec(target[1])["allowPrivilegeEscalation"] = True
    return f"{_where(*target)}: allowPrivilegeEscalation=true"


def _drop_limits(target: K8sTarget, rng: random.Random) -> str:
    container = target[1]
    resources = container.get("resources")
    if rng.random() < 0.5 or not isinstance(resources, dict) or len(resources) <= 1:
        container.pop("resources", None)
        return f"{_where(*target)}: resources removed"
    resources.pop("limits", None)
    return f"{_where(*target)}: resources.limits removed"


def _latest(target: K8sTarget, rng: random.Random) -> str:
    from sv_env_config_verification.patching import image_repository

    container = target[1]
    repo = image_repository(container.get("image"))
    container["image"] = f"{repo}:latest" if rng.random() < 0.7 else repo
    return f"{_where(*target)}: image {container['image']}"


_HOST_PATHS = ("/var/run/docker.sock", "/", "/etc", "/var/lib/kubelet", "/proc")


def _hostpath(target: K8sTarget, rng: random.Random) -> str:
    doc, container = target
    spec = pod_spec(doc)
    path = rng.choice(_HOST_PATHS)
    volumes = spec.setdefault("volumes", [])
    taken = {v.get("name") for v in volumes if isinstance(v, dict)}
    name = next(n for n in ("host", "host-root", "node-fs", "hostfs-2") if n not in taken)
    volumes.append({"name": name, "hostPath": {"path": path}})
    mounts = container.setdefault("volumeMounts", [])
    mounts.append({"name": name, "mountPath": "/host" + (path if path != "/" else "")})
    return f"{_where(doc, container)}: hostPath {path} mounted"


_CAPABILITIES = ("SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE", "SYS_MODULE", "ALL")


def _capabilities(target: K8sTarget, rng: random.Random) -> str:
    caps = _sec(target[1]).setdefault("capabilities", {})
    cap = rng.choice(_CAPABILITIES)
    caps["add"] = [cap]
    return f"{_where(*target)}: capabilities.add=[{cap}]"


def _writable_root(target: K8sTarget, rng: random.Random) -> str:
    ctx = _sec(target[1])
    if rng.random() < 0.6:
        ctx["readOnlyRootFilesystem"] = False
        return f"{_where(*target)}: readOnlyRootFilesystem=false"
    ctx.pop("readOnlyRootFilesystem", None)
    return f"{_where(*target)}: readOnlyRootFilesystem removed"


def _role_rules(docs: list[Any]) -> list[K8sTarget]:
    return [
        (doc, rule)
        for doc in docs
        if isinstance(doc, dict) and doc.get("kind") in ("Role", "ClusterRole")
        for rule in doc.get("rules") or []
        if isinstance(rule, dict) and "*" not in (rule.get("verbs") or [])
    ]


def _rbac_wildcard(target: K8sTarget, rng: random.Random) -> str:
    rule = target[1]
    fields = ["verbs"] + (["resources", "both"] if "resources" in rule else [])
    field = rng.choice(fields)
    for key in ("resources", "verbs") if field == "both" else (field,):
        rule[key] = ["*"]
    rule.pop("resourceNames", None)
    return f"{_resource(target[0])}: rule {field} set to ['*']"


def _bindings(docs: list[Any]) -> list[K8sTarget]:
    return [
        (doc,)
        for doc in docs
        if isinstance(doc, dict)
        and doc.get("kind") in ("RoleBinding", "ClusterRoleBinding")
        and (doc.get("roleRef") or {}).get("name") != "cluster-admin"
    ]


def _cluster_admin(target: K8sTarget, rng: random.Random) -> str:
    target[0]["roleRef"] = {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "cluster-admin",
    }
    return f"{_resource(target[0])}: roleRef -> ClusterRole cluster-admin"


def _not_privileged(c: dict[str, Any]) -> bool:
    return (c.get("securityContext") or {}).get("privileged") is not True


def _has_limits(c: dict[str, Any]) -> bool:
    return isinstance(c.get("resources"), dict) and "limits" in c["resources"]


def _pinned(c: dict[str, Any]) -> bool:
    image = str(c.get("image") or "")
    return ":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest")


def _no_caps_added(c: dict[str, Any]) -> bool:
    return not ((c.get("securityContext") or {}).get("capabilities") or {}).get("add")


def _read_only(c: dict[str, Any]) -> bool:
    return (c.get("securityContext") or {}).get("readOnlyRootFilesystem") is True


def _non_root(c: dict[str, Any]) -> bool:
    return (c.get("securityContext") or {}).get("runAsUser") != 0


def _no_escalation(c: dict[str, Any]) -> bool:
    return (c.get("securityContext") or {}).get("allowPrivilegeEscalation") is not True


K8S_MUTATIONS: dict[str, _K8sMutator] = {
    "k8s/privileged-container": _K8sMutator(_container_without(_not_privileged), _privileged),
    "k8s/host-network": _K8sMutator(_pod_targets("hostNetwork"), _host_flag("hostNetwork")),
    "k8s/host-pid": _K8sMutator(_pod_targets("hostPID"), _host_flag("hostPID")),
    "k8s/host-ipc": _K8sMutator(_pod_targets("hostIPC"), _host_flag("hostIPC")),
    "k8s/run-as-root": _K8sMutator(_container_without(_non_root), _run_as_root),
    "k8s/privilege-escalation": _K8sMutator(
        _container_without(_no_escalation), _privilege_escalation
    ),
    "k8s/missing-resource-limits": _K8sMutator(_container_without(_has_limits), _drop_limits),
    "k8s/image-latest-tag": _K8sMutator(_container_without(_pinned), _latest),
    "k8s/hostpath-volume": _K8sMutator(_container_targets, _hostpath),
    "k8s/dangerous-capabilities": _K8sMutator(_container_without(_no_caps_added), _capabilities),
    "k8s/writable-root-filesystem": _K8sMutator(_container_without(_read_only), _writable_root),
    "k8s/rbac-wildcard": _K8sMutator(_role_rules, _rbac_wildcard),
    "k8s/cluster-admin-binding": _K8sMutator(_bindings, _cluster_admin),
}


@lru_cache(maxsize=512)
def _k8s_docs(text: str) -> list[Any]:
    """Parsed manifests (memoised: parsing YAML dominates the cost; callers copy)."""
    return parse_k8s(text)


def _mutate_k8s(
    base: ConfigFile, ids: Sequence[str], rng: random.Random
) -> tuple[str, list[Mutation]]:
    docs = copy.deepcopy(_k8s_docs(base.text))
    done: list[Mutation] = []
    for mutation_id in ids:
        targets = K8S_MUTATIONS[mutation_id].targets(docs)
        if not targets:
            raise MutationError(f"{mutation_id} does not apply to {base.name}")
        target = targets[rng.randrange(len(targets))]
        detail = K8S_MUTATIONS[mutation_id].apply(target, rng)
        done.append(Mutation(mutation_id, _resource(target[0]), detail))
    return dump_k8s(docs), done


# ============================================================================ Terraform
@dataclass(frozen=True)
class _Block:
    """A top-level ``resource`` block: 0-based first and last line indices."""

    type: str
    name: str
    start: int
    end: int

    @property
    def address(self) -> str:
        return f"{self.type}.{self.name}"


@lru_cache(maxsize=512)
def _tf_blocks(text: str) -> tuple[_Block, ...]:
    try:
        parsed = hcl2.loads(text)
    except Exception as exc:
        raise ConfigError(f"invalid HCL: {exc}") from None
    blocks = []
    for entry in parsed.get("resource", []):
        for rtype, named in entry.items():
            for name, body in named.items():
                blocks.append(
                    _Block(rtype, name, body["__start_line__"] - 1, body["__end_line__"] - 1)
                )
    return tuple(sorted(blocks, key=lambda b: b.start))


def _depths(lines: list[str]) -> tuple[int, ...]:
    """Brace depth at the start of each line (strings and ``#``/``//`` comments skipped)."""
    return _line_depths(tuple(lines))


@lru_cache(maxsize=256)
def _line_depths(lines: tuple[str, ...]) -> tuple[int, ...]:
    depths, depth = [], 0
    for line in lines:
        depths.append(depth)
        in_string, i = False, 0
        while i < len(line):
            ch = line[i]
            if in_string:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "#" or line.startswith("//", i):
                break
            elif ch in "{[(":
                depth += 1
            elif ch in "}])":
                depth -= 1
            i += 1
    return tuple(depths)


_ATTR_RE = r"^(\s*{name}\s*=\s*)(.*?)\s*$"


def _attr_line(lines: list[str], start: int, end: int, name: str, depth: int) -> int | None:
    """Index of the line ``name = ...`` at brace ``depth`` within ``[start, end]``."""
    depths = _depths(lines)
    pattern = re.compile(_ATTR_RE.format(name=re.escape(name)))
    for i in range(start, end + 1):
        if depths[i] == depth and pattern.match(lines[i]):
            return i
    return None


def _set_value(lines: list[str], index: int, name: str, value: str) -> None:
    match = re.match(_ATTR_RE.format(name=re.escape(name)), lines[index])
    assert match is not None
    lines[index] = match.group(1) + value


def _value(lines: list[str], block: _Block, name: str) -> str | None:
    index = _attr_line(lines, block.start, block.end, name, _depths(lines)[block.start] + 1)
    if index is None:
        return None
    match = re.match(_ATTR_RE.format(name=re.escape(name)), lines[index])
    return match.group(2) if match else None


TfTarget = tuple[_Block, int]  # block, line index of interest (or -1)


@dataclass(frozen=True)
class _TfMutator:
    targets: Callable[[list[str], Sequence[_Block]], list[TfTarget]]
    apply: Callable[[list[str], TfTarget, random.Random], tuple[str, str]]  # resource, detail


def _attr_targets(rtypes: tuple[str, ...], attr: str, secure: str) -> Callable:
    def targets(lines: list[str], blocks: Sequence[_Block]) -> list[TfTarget]:
        return [(b, -1) for b in blocks if b.type in rtypes and _value(lines, b, attr) == secure]

    return targets


def _flip(
    attr: str, insecure: str, drop: tuple[str, ...] = (), unset_share: float = 0.0
) -> Callable:
    """Set ``attr`` to ``insecure`` (or, with probability ``unset_share``, delete the line:
    for attributes whose default is insecure) and delete the ``drop`` attributes."""

    def apply(lines: list[str], target: TfTarget, rng: random.Random) -> tuple[str, str]:
        block = target[0]
        depth = _depths(lines)[block.start] + 1
        index = _attr_line(lines, block.start, block.end, attr, depth)
        assert index is not None
        extras = {n: _attr_line(lines, block.start, block.end, n, depth) for n in drop}
        unset = rng.random() < unset_share
        if unset:
            lines[index] = None  # type: ignore[call-overload]  # dropped by the caller
        else:
            _set_value(lines, index, attr, insecure)
        removed = [name for name, extra in extras.items() if extra is not None]
        for name in removed:
            lines[extras[name]] = None  # type: ignore[call-overload]
        note = f" (removed {', '.join(removed)})" if removed else ""
        return block.address, (f"{attr} removed" if unset else f"{attr} = {insecure}") + note

    return apply


_PAB_ALL = (
    "block_public_acls",
    "block_public_policy",
    "ignore_public_acls",
    "restrict_public_buckets",
)


def _bucket_of(lines: list[str], block: _Block) -> str:
    ref = _value(lines, block, "bucket") or ""
    match = re.match(r"aws_s3_bucket\.(\w+)\.(?:id|bucket)$", ref)
    return f"aws_s3_bucket.{match.group(1)}" if match else block.address


def _pab_targets(lines: list[str], blocks: Sequence[_Block]) -> list[TfTarget]:
    return [
        (b, -1)
        for b in blocks
        if b.type == "aws_s3_bucket_public_access_block"
        and all(_value(lines, b, flag) == "true" for flag in _PAB_ALL)
    ]


def _public_access(lines: list[str], target: TfTarget, rng: random.Random) -> tuple[str, str]:
    block = target[0]
    depth = _depths(lines)[block.start] + 1
    flags = sorted(rng.sample(_PAB_ALL, rng.randint(1, len(_PAB_ALL))), key=_PAB_ALL.index)
    for flag in flags:
        index = _attr_line(lines, block.start, block.end, flag, depth)
        assert index is not None
        _set_value(lines, index, flag, "false")
    return block.address, f"{', '.join(flags)} = false"


def _remove_block(lines: list[str], block: _Block) -> None:
    for i in range(block.start, block.end + 1):
        lines[i] = None  # type: ignore[call-overload]
    before = block.start - 1
    if before >= 0 and lines[before] is not None and not lines[before].strip():
        lines[before] = None  # type: ignore[call-overload]
    elif block.end + 1 < len(lines) and not (lines[block.end + 1] or "x").strip():
        lines[block.end + 1] = None  # type: ignore[call-overload]


def _sse_targets(lines: list[str], blocks: Sequence[_Block]) -> list[TfTarget]:
    return [
        (b, -1) for b in blocks if b.type == "aws_s3_bucket_server_side_encryption_configuration"
    ]


def _unencrypt_bucket(lines: list[str], target: TfTarget, rng: random.Random) -> tuple[str, str]:
    block = target[0]
    resource = _bucket_of(lines, block)
    _remove_block(lines, block)
    return resource, f"{block.address} removed"


_ADMIN_PORTS = (22, 3389)
_PRIVATE_CIDR = re.compile(r'^\["(10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.)[\d./]+"\]$')


def _sg_targets(lines: list[str], blocks: Sequence[_Block]) -> list[TfTarget]:
    depths = _depths(lines)
    out = []
    for block in (b for b in blocks if b.type == "aws_security_group"):
        inner = depths[block.start] + 1
        for i in range(block.start + 1, block.end):
            if depths[i] != inner or not re.match(r"^\s*ingress\s*\{\s*$", lines[i]):
                continue
            end = next(j for j in range(i + 1, block.end + 1) if depths[j] == inner) - 1
            ports = [_value(lines, _Block("", "", i, end), p) for p in ("from_port", "to_port")]
            cidr = _attr_line(lines, i, end, "cidr_blocks", inner + 1)
            if None in ports or cidr is None:
                continue
            low, high = int(ports[0] or 0), int(ports[1] or 0)
            value = _value(lines, _Block("", "", i, end), "cidr_blocks") or ""
            if any(low <= p <= high for p in _ADMIN_PORTS) and _PRIVATE_CIDR.match(value):
                out.append((block, cidr))
    return out


def _open_port(lines: list[str], target: TfTarget, rng: random.Random) -> tuple[str, str]:
    block, index = target
    _set_value(lines, index, "cidr_blocks", '["0.0.0.0/0"]')
    return block.address, f"ingress line {index + 1}: cidr_blocks = 0.0.0.0/0"


_IAM_POLICY_TYPES = (
    "aws_iam_policy",
    "aws_iam_role_policy",
    "aws_iam_user_policy",
    "aws_iam_group_policy",
)


def _iam_targets(lines: list[str], blocks: Sequence[_Block]) -> list[TfTarget]:
    depths = _depths(lines)
    out = []
    for block in (b for b in blocks if b.type in _IAM_POLICY_TYPES):
        for i in range(block.start, block.end + 1):
            if not re.match(r'^\s*Action\s*=\s*(\[.*\]|".*")\s*$', lines[i]) or '"*"' in lines[i]:
                continue
            start = next(j for j in range(i, block.start - 1, -1) if depths[j] < depths[i])
            end = next(j for j in range(i, block.end + 1) if depths[j] < depths[i])
            statement = "\n".join(lines[start : end + 1])
            if re.search(r'Effect\s*=\s*"Allow"', statement):
                out.append((block, i))
    return out


def _wildcard_action(lines: list[str], target: TfTarget, rng: random.Random) -> tuple[str, str]:
    block, index = target
    value = rng.choice(('"*"', '["*"]'))
    _set_value(lines, index, "Action", value)
    return block.address, f"statement line {index + 1}: Action = {value}"


TF_MUTATIONS: dict[str, _TfMutator] = {
    "tf/s3-public-access": _TfMutator(_pab_targets, _public_access),
    "tf/s3-unencrypted": _TfMutator(_sse_targets, _unencrypt_bucket),
    "tf/sg-open-admin-port": _TfMutator(_sg_targets, _open_port),
    "tf/rds-unencrypted": _TfMutator(
        _attr_targets(("aws_db_instance",), "storage_encrypted", "true"),
        _flip("storage_encrypted", "false", drop=("kms_key_id",), unset_share=0.3),
    ),
    "tf/rds-public": _TfMutator(
        _attr_targets(("aws_db_instance",), "publicly_accessible", "false"),
        _flip("publicly_accessible", "true"),
    ),
    "tf/iam-wildcard-action": _TfMutator(_iam_targets, _wildcard_action),
    "tf/ebs-unencrypted": _TfMutator(
        _attr_targets(("aws_ebs_volume",), "encrypted", "true"),
        _flip("encrypted", "false", drop=("kms_key_id",), unset_share=0.3),
    ),
    "tf/kms-rotation-disabled": _TfMutator(
        _attr_targets(("aws_kms_key",), "enable_key_rotation", "true"),
        _flip("enable_key_rotation", "false", drop=("rotation_period_in_days",), unset_share=0.3),
    ),
    "tf/cloudtrail-logging-disabled": _TfMutator(
        _attr_targets(("aws_cloudtrail",), "enable_logging", "true"),
        _flip("enable_logging", "false"),
    ),
}


def _mutate_tf(
    base: ConfigFile, ids: Sequence[str], rng: random.Random
) -> tuple[str, list[Mutation]]:
    text = base.text
    done: list[Mutation] = []
    for mutation_id in ids:
        lines = text.split("\n")
        targets = TF_MUTATIONS[mutation_id].targets(lines, _tf_blocks(text))
        if not targets:
            raise MutationError(f"{mutation_id} does not apply to {base.name}")
        target = targets[rng.randrange(len(targets))]
        resource, detail = TF_MUTATIONS[mutation_id].apply(lines, target, rng)
        text = "\n".join(line for line in lines if line is not None)
        done.append(Mutation(mutation_id, resource, detail))
    return text, done


# ============================================================================ public API
@lru_cache(maxsize=512)
def normalise(config: ConfigFile) -> ConfigFile:
    """The form mutations start from: K8s re-serialised by :func:`dump_k8s`, TF unchanged."""
    if config.kind != "k8s":
        return config
    return ConfigFile(kind="k8s", name=config.name, text=dump_k8s(_k8s_docs(config.text)))


def supported_ids(config: ConfigFile) -> dict[str, int]:
    """``{canonical id: number of possible targets}`` for ids that apply to ``config``."""
    return dict(_supported(config.kind, config.text))


@lru_cache(maxsize=512)
def _supported(kind: str, text: str) -> tuple[tuple[str, int], ...]:
    out = {}
    if kind == "k8s":
        docs = _k8s_docs(text)
        for mutation_id, k8s_mutator in K8S_MUTATIONS.items():
            if n := len(k8s_mutator.targets(docs)):
                out[mutation_id] = n
    else:
        lines, blocks = text.split("\n"), _tf_blocks(text)
        for mutation_id, tf_mutator in TF_MUTATIONS.items():
            if n := len(tf_mutator.targets(lines, blocks)):
                out[mutation_id] = n
    return tuple(out.items())


def mutate(config: ConfigFile, ids: Sequence[str], rng: random.Random) -> MutationResult:
    """Inject ``ids`` (in order, each once) into ``config``; raise MutationError if one
    does not apply. ``config`` is normalised first; ``fix_patch`` maps the result back to it.
    """
    if len(set(ids)) != len(ids):
        raise MutationError(f"duplicate mutation ids: {list(ids)}")
    table = K8S_MUTATIONS if config.kind == "k8s" else TF_MUTATIONS
    unknown = [i for i in ids if i not in table]
    if unknown:
        raise MutationError(f"no {config.kind} mutation for {unknown}")
    base = normalise(config)
    mutator = _mutate_k8s if config.kind == "k8s" else _mutate_tf
    text, done = mutator(base, ids, rng)
    mutated = ConfigFile(kind=base.kind, name=base.name, text=text)
    return MutationResult(base, mutated, tuple(done), make_unified_diff(base.name, text, base.text))


def random_mutation(config: ConfigFile, rng: random.Random, count: int = 1) -> MutationResult:
    """``count`` distinct applicable ids (fewer if fewer apply) chosen by ``rng``."""
    available = sorted(supported_ids(normalise(config)))
    if not available:
        raise MutationError(f"no mutation applies to {config.name}")
    ids = rng.sample(available, min(count, len(available)))
    return mutate(config, ids, rng)
