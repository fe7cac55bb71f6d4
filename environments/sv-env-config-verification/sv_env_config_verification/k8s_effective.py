"""Kubernetes objects as the API server would resolve them, before the Rego pack evaluates them.

`effective_objects` returns a copy of a manifest's objects in which capabilities reached
through another object or spelt another way are made explicit, so that the pack's rules (which
read one object at a time) see what a workload or binding actually gets:

* **Claims** — a pod volume ``persistentVolumeClaim`` (and a StatefulSet
  ``volumeClaimTemplates`` entry or an ``ephemeral`` claim template) whose claim can bind a
  PersistentVolume of this file that has a ``hostPath`` (by ``volumeName``, by the volume's
  ``claimRef``, or by a shared ``storageClassName`` for an unbound claim) gains that
  ``hostPath``: the pod mounts the host's filesystem.
* **RBAC enumerations** — a rule whose ``verbs`` list every standard verb, whose
  ``apiGroups`` list most built-in groups, or whose ``resources`` list most of the built-in
  resources of its groups (`RESOURCE_SHARE`, at least `MIN_ENUMERATED`) gains ``"*"`` there.
* **Aggregation and copies of cluster-admin** — a ClusterRole whose ``aggregationRule`` can
  select the built-in cluster-admin role (an empty selector, or selectors the label
  ``kubernetes.io/bootstrapping: rbac-defaults`` satisfies) or whose rules grant ``*`` on
  ``*`` in ``*`` *is* cluster-admin: a binding to it gets ``roleRef.name: cluster-admin``. An
  aggregated role also gains the rules of the file's ClusterRoles its selectors match.
* **Vacuous limits** — a CPU or memory limit above `MAX_CPU_CORES` / `MAX_MEMORY_BYTES` (no
  node has that much, so it limits nothing) is listed in the container's
  ``x-sv-vacuous-limits``, which the pack reads as a missing limit.

Objects are never removed; the copy is only ever given to the project's own Rego pack (the
other tools read the file as written).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from .k8s_shape import pod_spec
from .patching import WORKLOAD_KINDS

ALL_VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
RESOURCE_SHARE = 0.8
MIN_ENUMERATED = 5
MAX_CPU_CORES = 128.0
MAX_MEMORY_BYTES = 2.0**40  # 1 TiB
VACUOUS_KEY = "x-sv-vacuous-limits"
CLUSTER_ADMIN_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
RESOURCES_PATH = Path(__file__).with_name("data") / "k8s_api_resources.json"
_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?\s*([a-zA-Z]*)\s*$")
_SUFFIX = {
    "": 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60,
}  # fmt: skip


@cache
def api_resources() -> dict[str, tuple[str, ...]]:
    """Built-in API group ("" = core) -> its top-level resources (shipped data file)."""
    raw = json.loads(RESOURCES_PATH.read_text(encoding="utf-8"))
    return {group: tuple(names) for group, names in raw["groups"].items()}


KNOWN_GROUPS: tuple[str, ...] = tuple(api_resources())


def group_resources(group: str) -> tuple[str, ...]:
    return api_resources().get(group, ())


def quantity(value: Any) -> float | None:
    """A Kubernetes quantity as a number (``"500m"`` -> 0.5, ``"1Gi"`` -> 2**30); None if not
    one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    m = _QUANTITY.match(value)
    if m is None or m.group(3) not in _SUFFIX:
        return None
    number = float(m.group(1)) * (10.0 ** int(m.group(2)) if m.group(2) else 1.0)
    return number * _SUFFIX[m.group(3)]


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The non-empty pod spec of a workload (`k8s_shape.pod_spec`), else None."""
    if _kind(obj) not in WORKLOAD_KINDS:
        return None
    spec = pod_spec(obj)
    return spec if isinstance(spec, dict) and spec else None


def _kind(obj: dict[str, Any]) -> str:
    kind = obj.get("kind")
    return kind if isinstance(kind, str) else ""


def _namespace(obj: dict[str, Any]) -> str:
    return str(_mapping(obj.get("metadata")).get("namespace") or "default")


def _name(obj: dict[str, Any]) -> str:
    return str(_mapping(obj.get("metadata")).get("name") or "")


# ------------------------------------------------------------------------------ claims
def _host_volumes(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        o
        for o in objects
        if o.get("kind") == "PersistentVolume" and "hostPath" in _mapping(o.get("spec"))
    ]


def _claim_host_path(
    claim_name: str | None, claim_spec: dict[str, Any], namespace: str, volumes: list[dict]
) -> dict[str, Any] | None:
    """The hostPath of a PersistentVolume of the file the claim can bind, or None."""
    bound = claim_spec.get("volumeName")
    for pv in volumes:
        spec = _mapping(pv.get("spec"))
        ref = _mapping(spec.get("claimRef"))
        if bound:
            match = _name(pv) == bound
        elif ref.get("name"):
            match = (
                ref.get("name") == claim_name and (ref.get("namespace") or "default") == namespace
            )
        else:
            match = spec.get("storageClassName", "") == claim_spec.get("storageClassName", "")
        if match:
            return _mapping(spec.get("hostPath"))
    return None


def _resolve_claims(objects: list[dict[str, Any]]) -> None:
    volumes = _host_volumes(objects)
    if not volumes:
        return
    claims = {
        (_namespace(o), _name(o)): _mapping(o.get("spec"))
        for o in objects
        if o.get("kind") == "PersistentVolumeClaim"
    }
    for obj in objects:
        spec = _pod_spec(obj)
        if spec is None:
            continue
        namespace = _namespace(obj)
        for vol in _list(spec.get("volumes")):
            if not isinstance(vol, dict) or "hostPath" in vol:
                continue
            claim = _mapping(vol.get("persistentVolumeClaim")).get("claimName")
            claim = str(claim) if claim is not None else None
            template = _mapping(_mapping(vol.get("ephemeral")).get("volumeClaimTemplate"))
            if claim is not None and (namespace, claim) in claims:
                host = _claim_host_path(claim, claims[(namespace, claim)], namespace, volumes)
            elif template:
                host = _claim_host_path(None, _mapping(template.get("spec")), namespace, volumes)
            else:
                host = None
            if host is not None:
                vol["hostPath"] = host
        if obj.get("kind") == "StatefulSet":
            for template in _list(_mapping(obj.get("spec")).get("volumeClaimTemplates")):
                tspec = _mapping(_mapping(template).get("spec"))
                host = _claim_host_path(None, tspec, namespace, volumes)
                if host is not None:
                    name = _name(_mapping(template)) or "claim-template"
                    spec.setdefault("volumes", [])
                    spec["volumes"].append({"name": name, "hostPath": host})


# ------------------------------------------------------------------------------ RBAC
def _widen_rule(rule: dict[str, Any]) -> None:
    verbs = {v for v in _list(rule.get("verbs")) if isinstance(v, str)}
    if "*" not in verbs and verbs >= set(ALL_VERBS):
        rule["verbs"] = [*rule["verbs"], "*"]
    groups = [g for g in _list(rule.get("apiGroups")) if isinstance(g, str)]
    known = set(KNOWN_GROUPS)
    if "*" not in groups and len(known & set(groups)) >= RESOURCE_SHARE * len(known):
        rule["apiGroups"] = [*rule["apiGroups"], "*"]
    names = {r for r in _list(rule.get("resources")) if isinstance(r, str)}
    if "*" in names or not groups:
        return
    listed = {r for g in groups if g != "*" for r in group_resources(g)}
    covered = len(listed & names)
    if listed and covered >= MIN_ENUMERATED and covered >= RESOURCE_SHARE * len(listed):
        rule["resources"] = [*rule["resources"], "*"]


def _selector_matches(selector: Any, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels + matchExpressions) against a label set."""
    sel = _mapping(selector)
    for key, value in _mapping(sel.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expr in _list(sel.get("matchExpressions")):
        expr = _mapping(expr)
        key, op = str(expr.get("key")), expr.get("operator")
        values = {str(v) for v in _list(expr.get("values"))}
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def _full_wildcard(rules: Any) -> bool:
    return any(
        "*" in _list(_mapping(r).get("verbs"))
        and "*" in _list(_mapping(r).get("resources"))
        and "*" in _list(_mapping(r).get("apiGroups"))
        for r in _list(rules)
    )


def _resolve_roles(objects: list[dict[str, Any]]) -> None:
    roles = [o for o in objects if _kind(o) in ("Role", "ClusterRole")]
    for role in roles:
        for rule in _list(role.get("rules")):
            if isinstance(rule, dict):
                _widen_rule(rule)
    admin_like: set[str] = set()
    cluster_roles = [o for o in roles if o.get("kind") == "ClusterRole"]
    for role in cluster_roles:
        selectors = _list(_mapping(role.get("aggregationRule")).get("clusterRoleSelectors"))
        if selectors:
            if any(_selector_matches(s, CLUSTER_ADMIN_LABELS) for s in selectors):
                admin_like.add(_name(role))
            gathered = [
                copy.deepcopy(rule)
                for other in cluster_roles
                if other is not role
                for s in selectors
                if _selector_matches(s, _labels(other))
                for rule in _list(other.get("rules"))
            ]
            if gathered:
                role["rules"] = [*_list(role.get("rules")), *gathered]
        if _full_wildcard(role.get("rules")):
            admin_like.add(_name(role))
    for obj in objects:
        if _kind(obj) not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        ref = obj.get("roleRef")
        if (
            isinstance(ref, dict)
            and ref.get("kind") == "ClusterRole"
            and str(ref.get("name")) in admin_like
        ):
            ref["name"] = "cluster-admin"


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    raw = _mapping(_mapping(obj.get("metadata")).get("labels"))
    return {str(k): str(v) for k, v in raw.items()}


# ------------------------------------------------------------------------------ limits
def _containers(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in ("containers", "initContainers"):
        for c in _list(spec.get(key)):
            if isinstance(c, dict):
                yield c


def _vacuous(resource: str, value: Any) -> bool:
    number = quantity(value)
    bound = MAX_CPU_CORES if resource == "cpu" else MAX_MEMORY_BYTES
    return number is not None and number > bound


def _mark_limits(objects: list[dict[str, Any]]) -> None:
    for obj in objects:
        spec = _pod_spec(obj)
        for c in _containers(spec or {}):
            limits = _mapping(_mapping(c.get("resources")).get("limits"))
            vacuous = [r for r in ("cpu", "memory") if _vacuous(r, limits.get(r))]
            if vacuous:
                c[VACUOUS_KEY] = vacuous


def effective_objects(objects: list[Any]) -> list[Any]:
    """A resolved copy of a manifest's objects (module docstring); non-mappings kept as is."""
    out = copy.deepcopy(objects)
    mappings = [o for o in out if isinstance(o, dict)]
    _resolve_claims(mappings)
    _resolve_roles(mappings)
    _mark_limits(mappings)
    return out
