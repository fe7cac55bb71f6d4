"""Test cases of an OPA Gatekeeper library checkout, mapped onto canonical ids.

A checkout has the public layout ``library/<group>/<policy>/suite.yaml``; a suite lists tests
(a constraint file and cases), a case names an object file and assertions on the violations
Gatekeeper reports for it. `POLICIES` maps the policies whose meaning the catalogue covers
(``general`` and ``pod-security-policy``) to canonical ids; every other policy is *uncovered*.

A mapped case is *in scope* when its label is decided by what the mapped ids model. It is out
of scope, with the reason recorded (never scored), when the object is an AdmissionReview
(Gatekeeper skips UPDATE requests; a static manifest has no operation), its kind is not matched
by the constraint, or a constraint parameter the catalogue does not model could decide the
label (allowed host paths or volume types, hostPort ranges, user/group ranges, allow-listed or
required-drop capabilities, resource maxima or requests, tags other than ``latest``). When the
modelled part alone already makes the object violate (e.g. ``hostNetwork: true`` under a
constraint that forbids it), the case stays in scope whatever the other parameters say.

``exemptImages`` become part of the episode for container-level policies: the scored episode is
the object without its exempted containers (what Gatekeeper audits), or the case is out of scope
when every container is exempt. For pod-level policies (host namespaces, host paths, volume
types) an exempt image puts the case out of scope.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from .canonical import DANGEROUS_CAPABILITIES

_CONTAINER_FIELDS = ("containers", "initContainers", "ephemeralContainers")
_TEMPLATE_KINDS = {
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Job",
}

Obj = dict[str, Any]
Params = dict[str, Any]


class GatekeeperError(ValueError):
    """A path that is not a readable Gatekeeper library checkout."""


@dataclass(frozen=True)
class Case:
    """One suite case: ``policy`` is ``<group>/<policy>``; ``expected`` None when undecided."""

    policy: str
    test: str
    name: str
    constraint: Path | None
    obj: Path | None
    expected: bool | None


# ------------------------------------------------------------------------------ loading
def _violates(assertions: object) -> bool | None:
    """True/False from a case's assertions; None when they only filter messages."""
    if not isinstance(assertions, list) or not assertions:
        return None
    decided: bool | None = None
    for a in assertions:
        if not isinstance(a, dict):
            continue
        count = a.get("violations")
        if isinstance(count, str):
            count = {"yes": True, "no": False}.get(count.strip().lower(), count)
        if count is True or (type(count) is int and count > 0):
            return True
        if (count is False or count == 0) and "message" not in a:
            decided = False
    return decided


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GatekeeperError(f"{path}: cannot read: {exc}") from None


def suite_paths(root: Path) -> list[Path]:
    """Every ``library/<group>/<policy>/suite.yaml`` under a checkout (raises on a bad root)."""
    root = Path(root)
    if not root.is_dir():
        raise GatekeeperError(f"{root}: not a directory")
    suites = sorted((root / "library").glob("*/*/suite.yaml"))
    if not suites:
        raise GatekeeperError(
            f"{root}: not a Gatekeeper library checkout (no library/<group>/<policy>/suite.yaml)"
        )
    return suites


def load_cases(root: Path) -> list[Case]:
    """The cases of every suite of a checkout, in suite order."""
    cases = []
    for suite_path in suite_paths(root):
        policy_dir = suite_path.parent
        policy = f"{policy_dir.parent.name}/{policy_dir.name}"
        suite = _read_yaml(suite_path) or {}
        for test in suite.get("tests") or []:
            if not isinstance(test, dict):
                continue
            constraint = test.get("constraint")
            for case in test.get("cases") or []:
                if not isinstance(case, dict):
                    continue
                obj = case.get("object")
                cases.append(
                    Case(
                        policy,
                        str(test.get("name") or "").strip() or "(unnamed)",
                        str(case.get("name") or ""),
                        policy_dir / constraint if isinstance(constraint, str) else None,
                        policy_dir / obj if isinstance(obj, str) else None,
                        _violates(case.get("assertions")),
                    )
                )
    return cases


def read_objects(path: Path) -> list[Obj]:
    """The mappings of an object file (``kind: List`` items flattened); [] when unreadable."""
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    out: list[Obj] = []
    for doc in docs:
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            out.extend(i for i in doc.get("items") or [] if isinstance(i, dict))
        elif isinstance(doc, dict):
            out.append(doc)
    return out


# ------------------------------------------------------------------------------ object helpers
def pod_spec(obj: Obj) -> Obj:
    """The pod spec of a workload object ({} for other kinds)."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    kind = obj.get("kind")
    if kind == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
        spec = spec.get("spec") or {}
    elif kind in _TEMPLATE_KINDS:
        spec = (spec.get("template") or {}).get("spec") or {}
    elif kind != "Pod":
        return {}
    return spec if isinstance(spec, dict) else {}


def containers(obj: Obj, fields: Iterable[str] = _CONTAINER_FIELDS) -> Iterator[Obj]:
    """The container mappings of a workload's pod spec (all three kinds by default)."""
    spec = pod_spec(obj)
    for f in fields:
        for c in spec.get(f) or []:
            if isinstance(c, dict):
                yield c


def exempt(image: object, patterns: Iterable[object]) -> bool:
    """Gatekeeper's exemptImages match: exact, or a prefix when the pattern ends with '*'."""
    if not isinstance(image, str):
        return False
    for p in patterns:
        if isinstance(p, str) and (image.startswith(p[:-1]) if p.endswith("*") else image == p):
            return True
    return False


def _quantity(value: object) -> float | None:
    """A Kubernetes quantity (cpu or memory) as a number; None when unparseable."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or not value:
        return None
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
    units |= {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
    for suffix in sorted(units, key=len, reverse=True):
        if value.endswith(suffix):
            value, scale = value[: -len(suffix)], units[suffix]
            break
    else:
        scale = 1.0
    try:
        return float(value) * scale
    except ValueError:
        return None


# ------------------------------------------------------------------------------ scope rules
Scope = Callable[[Params, list[Obj]], str | None]


def _no_params(params: Params, objects: list[Obj]) -> str | None:
    return None


def _limits(objects: list[Obj], kind: str = "limits") -> list[Obj]:
    """The resources.<kind> mapping of every container and initContainer."""
    flat = [c for o in objects for c in containers(o, ("containers", "initContainers"))]
    return [((c.get("resources") or {}).get(kind) or {}) for c in flat]


def _missing(required: set[str], objects: list[Obj]) -> bool:
    """True when some container lacks one of the `required` cpu/memory limits."""
    return any(not lim.get(r) for lim in _limits(objects) for r in required & {"cpu", "memory"})


def _limits_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sContainerLimits: a missing required limit decides; `-1` and maxima may not."""
    required = {r for r in ("cpu", "memory") if str(params.get(r)) != "-1"}
    if _missing(required, objects):
        return None  # a limit both require is missing: the label is decided
    not_required = sorted({"cpu", "memory"} - required)
    if not_required:
        return f"constraint does not require a {not_required[0]} limit ({not_required[0]}: -1)"
    for lim in _limits(objects):
        for res in (r for r in ("cpu", "memory") if r in params):
            have, most = _quantity(lim[res]), _quantity(params[res])
            if have is None or most is None or have > most:
                return f"{res} limit {lim[res]!r} vs the constraint's maximum {params[res]!r}"
    return None


def _resources_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sRequiredResources: a missing required cpu/memory limit decides; other requirements
    (a limit not required, requests, other resources) may not."""
    required = set(params.get("limits") or [])
    if _missing(required, objects):
        return None
    if not {"cpu", "memory"} <= required:
        return f"constraint requires limits {sorted(required)}, not cpu and memory"
    for kind, names in (("limits", required), ("requests", set(params.get("requests") or []))):
        if any(not have.get(n) for have in _limits(objects, kind) for n in names):
            return f"a container lacks required {kind} {sorted(names)} (no canonical id)"
    return None


def _image_tag(image: str) -> str:
    last = image.rsplit("/", 1)[-1]
    return last.rsplit(":", 1)[1] if ":" in last else ""


PINNED_TAG = re.compile(r"^(?:[vV]?[0-9]+\.[0-9]+|[0-9]{6,}|(?:sha-|g)?[0-9a-f]{7,40}$)")
"""Tags `kubernetes.rego`'s ``pinned_tag`` accepts (release, date/build stamp, commit hash)."""


def _tags_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sDisallowedTags: 'latest' must be disallowed; other tags may decide the label."""
    tags = set(params.get("tags") or [])
    if "latest" not in tags:
        return "constraint does not disallow the latest tag"
    images = [c.get("image") for o in objects for c in containers(o)]
    pinned = [i for i in images if isinstance(i, str) and "@" not in i]
    if any(_image_tag(i) in ("", "latest") for i in pinned):
        return None
    extra = sorted({_image_tag(i) for i in pinned} & (tags - {"latest"}))
    if extra:
        return f"disallowed tags {extra} (no canonical id)"
    floating = sorted({t for i in pinned if not PINNED_TAG.match(t := _image_tag(i))} - tags)
    return (
        f"floating tags {floating} the constraint allows (the catalogue does not)"
        if floating
        else None
    )


def _host_network_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPHostNetworkingPorts: hostNetwork must be forbidden; hostPorts may decide."""
    if params.get("hostNetwork"):
        return "constraint allows hostNetwork (it only checks hostPort ranges)"
    if any(pod_spec(o).get("hostNetwork") is True for o in objects):
        return None
    ports = [p for o in objects for c in containers(o) for p in c.get("ports") or []]
    if any(isinstance(p, dict) and p.get("hostPort") for p in ports):
        return "hostPort range (no canonical id)"
    return None


def _users_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPAllowedUsers: only runAsUser MustRunAsNonRoot is modelled."""
    rule = (params.get("runAsUser") or {}).get("rule")
    if rule != "MustRunAsNonRoot":
        return f"runAsUser rule {rule!r} (only MustRunAsNonRoot is modelled)"
    for key in ("runAsGroup", "supplementalGroups", "fsGroup"):
        if (params.get(key) or {}).get("rule") in ("MustRunAs", "MayRunAs"):
            return f"{key} ranges (no canonical id)"
    return None


def _host_paths_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPHostFilesystem: allowedHostPaths may allow a hostPath the catalogue flags."""
    allowed = [p.get("pathPrefix", "") for p in params.get("allowedHostPaths") or []]
    paths = [
        str((v.get("hostPath") or {}).get("path", ""))
        for o in objects
        for v in pod_spec(o).get("volumes") or []
        if isinstance(v, dict) and "hostPath" in v
    ]
    if not allowed or any(not any(p.startswith(a) for a in allowed) for p in paths):
        return None
    return "hostPath allowed by allowedHostPaths" if paths else None


def _volumes_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPVolumeTypes: hostPath must be disallowed; other types may decide."""
    allowed = set(params.get("volumes") or [])
    if allowed & {"*", "hostPath"}:
        return "constraint allows hostPath volumes"
    volumes = [v for o in objects for v in pod_spec(o).get("volumes") or [] if isinstance(v, dict)]
    if any("hostPath" in v for v in volumes):
        return None
    types = sorted({k for v in volumes for k in v if k != "name"} - allowed)
    return f"volume types {types} not allowed (no canonical id)" if types else None


def _norm_cap(cap: str) -> str:
    up = cap.upper()
    return up[4:] if up.startswith("CAP_") else up


def _caps_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPCapabilities: an allow-list and required drops versus the catalogue's deny-list."""
    allowed = {str(c).lower() for c in params.get("allowedCapabilities") or []}
    must_drop = {str(c).lower() for c in params.get("requiredDropCapabilities") or []}
    differ, drops_missing = set(), False
    for c in (c for o in objects for c in containers(o)):
        caps = ((c.get("securityContext") or {}).get("capabilities")) or {}
        for cap in (x for x in caps.get("add") or [] if isinstance(x, str)):
            theirs = "*" not in allowed and cap.lower() not in allowed
            ours = _norm_cap(cap) in DANGEROUS_CAPABILITIES
            if theirs and ours:
                return None  # a capability both forbid decides the label
            if theirs != ours:
                differ.add(cap)
        dropped = {str(x).lower() for x in caps.get("drop") or []}
        drops_missing |= bool(must_drop - dropped) and "all" not in dropped
    if differ:
        return f"allowedCapabilities judge {sorted(differ)} unlike the catalogue's set"
    return "requiredDropCapabilities (no canonical id)" if drops_missing else None


Exemptions = Literal["containers", "pod", "none"]


@dataclass(frozen=True)
class PolicyMap:
    """Canonical ids a policy's violations correspond to, its parameter scope rule and what
    ``exemptImages`` exempt: single containers, the pod's property, or nothing modelled."""

    ids: tuple[str, ...]
    scope: Scope = _no_params
    exemptions: Exemptions = "containers"
    note: str = ""


POLICIES: dict[str, PolicyMap] = {
    "general/containerlimits": PolicyMap(
        ("k8s/missing-resource-limits",), _limits_scope, note="limits required, maxima ignored"
    ),
    "general/containerresources": PolicyMap(
        ("k8s/missing-resource-limits",), _resources_scope, note="limits [cpu, memory]"
    ),
    "general/disallowedtags": PolicyMap(
        ("k8s/image-latest-tag",), _tags_scope, note="tags [latest]; untagged images too"
    ),
    "pod-security-policy/privileged-containers": PolicyMap(("k8s/privileged-container",)),
    "pod-security-policy/allow-privilege-escalation": PolicyMap(("k8s/privilege-escalation",)),
    "pod-security-policy/host-namespaces": PolicyMap(
        ("k8s/host-pid", "k8s/host-ipc"), exemptions="pod"
    ),
    "pod-security-policy/host-network-ports": PolicyMap(
        ("k8s/host-network",), _host_network_scope, exemptions="none"
    ),
    "pod-security-policy/read-only-root-filesystem": PolicyMap(("k8s/writable-root-filesystem",)),
    "pod-security-policy/users": PolicyMap(("k8s/run-as-root",), _users_scope),
    "pod-security-policy/host-filesystem": PolicyMap(
        ("k8s/hostpath-volume",), _host_paths_scope, exemptions="pod"
    ),
    "pod-security-policy/volumes": PolicyMap(
        ("k8s/hostpath-volume",), _volumes_scope, exemptions="pod"
    ),
    "pod-security-policy/capabilities": PolicyMap(("k8s/dangerous-capabilities",), _caps_scope),
}


def _matched_kinds(constraint: Obj) -> set[str] | None:
    kinds = ((constraint.get("spec") or {}).get("match") or {}).get("kinds")
    if not isinstance(kinds, list):
        return None
    return {str(k) for entry in kinds if isinstance(entry, dict) for k in entry.get("kinds") or []}


def without_exempt(objects: list[Obj], patterns: list[Any]) -> tuple[list[Obj], int, int]:
    """(copies of `objects` without exempted containers, containers removed, containers kept)."""
    out, removed, kept = [], 0, 0
    for obj in objects:
        obj = copy.deepcopy(obj)
        spec = pod_spec(obj)
        for f in _CONTAINER_FIELDS:
            if isinstance(spec.get(f), list):
                keep = [
                    c
                    for c in spec[f]
                    if not (isinstance(c, dict) and exempt(c.get("image"), patterns))
                ]
                removed += len(spec[f]) - len(keep)
                kept += len(keep)
                spec[f] = keep
        out.append(obj)
    return out, removed, kept


@dataclass(frozen=True)
class Assessment:
    """How a mapped case is scored: `reason` set means out of scope; `objects` set means the
    episode is these objects (exempted containers removed) rather than the object file."""

    reason: str | None = None
    objects: list[Obj] | None = None
    exempted: int = 0


def assess(case: Case, mapping: PolicyMap) -> Assessment:
    """Whether and how a mapped case is scored (module docstring)."""
    if case.expected is None:
        return Assessment("assertions only filter messages")
    if case.obj is None or not case.obj.is_file():
        return Assessment("object file missing")
    if case.constraint is None or not case.constraint.is_file():
        return Assessment("constraint file missing")
    objects = read_objects(case.obj)
    if any(o.get("kind") == "AdmissionReview" for o in objects):
        return Assessment(
            "AdmissionReview request (Gatekeeper skips UPDATE; not a static manifest)"
        )
    constraint = _read_yaml(case.constraint) or {}
    params = (constraint.get("spec") or {}).get("parameters") or {}
    kinds = _matched_kinds(constraint)
    unmatched = sorted({str(o.get("kind")) for o in objects} - (kinds or set()))
    if kinds is not None and "*" not in kinds and unmatched:
        return Assessment(f"kind {unmatched} not matched by the constraint")
    patterns = (params.get("exemptImages") or []) if mapping.exemptions != "none" else []
    view, removed, kept = without_exempt(objects, patterns)
    if removed and mapping.exemptions == "pod":
        return Assessment("image exempted by exemptImages (pod-level property)")
    if removed and not kept:
        return Assessment("every container exempted by exemptImages")
    reason = mapping.scope(params, view)
    if reason is not None:
        return Assessment(reason)
    return Assessment(None, view if removed else None, removed)
