"""Does a Kubernetes object have the shape the policies read?

The Rego pack silently finds nothing in a field of the wrong type (a ``securityContext`` that
is a string, ``containers`` that is a mapping, ``privileged: "true"``); the Kubernetes API
would reject such an object. `shape_problems` lists those fields, so that the oracle treats
the object as not evaluated instead of as clean. Unset (absent or null) fields are fine.
"""

from __future__ import annotations

from typing import Any

WORKLOAD_KINDS = frozenset(
    {"Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController"}
    | {"Job", "CronJob"}
)
CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
POD_BOOLS = ("hostNetwork", "hostPID", "hostIPC")
SECURITY_BOOLS = (
    "privileged",
    "allowPrivilegeEscalation",
    "readOnlyRootFilesystem",
    "runAsNonRoot",
)
_TYPES: dict[str, type | tuple[type, ...]] = {
    "mapping": dict,
    "list": list,
    "string": str,
    "bool": bool,
    "integer": int,
}


def pod_spec_path(kind: str) -> tuple[str, ...]:
    """Where a workload of kind keeps its pod spec (every other kind: a pod template)."""
    if kind == "Pod":
        return ("spec",)
    if kind == "CronJob":
        return ("spec", "jobTemplate", "spec", "template", "spec")
    return ("spec", "template", "spec")


def pod_spec(doc: dict[str, Any]) -> Any:
    """The node at the document's pod-spec path (None where a step is absent or not a
    mapping): the one pod-spec walker of the audit, the patch checks, the probes and the
    Gatekeeper reference."""
    node: Any = doc
    for key in pod_spec_path(str(doc.get("kind"))):
        node = node.get(key) if isinstance(node, dict) else None
    return node


class _Checker:
    def __init__(self, resource: str) -> None:
        self.resource = resource
        self.problems: list[str] = []

    def want(self, value: Any, expected: str, where: str) -> bool:
        """True when ``value`` is unset or of the expected type (else records a problem)."""
        if value is None:
            return True
        ok = isinstance(value, _TYPES[expected])
        if expected == "integer" and isinstance(value, bool):
            ok = False
        if not ok:
            self.problems.append(f"{self.resource}: {where} is not a {expected}")
        return ok

    def items(self, value: Any, expected: str, where: str) -> list[Any]:
        if not self.want(value, "list", where) or value is None:
            return []
        return [v for i, v in enumerate(value) if self.want(v, expected, f"{where}[{i}]")]

    def security(self, value: Any, where: str) -> None:
        if not self.want(value, "mapping", where) or value is None:
            return
        for key in SECURITY_BOOLS:
            self.want(value.get(key), "bool", f"{where}.{key}")
        self.want(value.get("runAsUser"), "integer", f"{where}.runAsUser")
        caps = value.get("capabilities")
        if self.want(caps, "mapping", f"{where}.capabilities") and caps is not None:
            self.items(caps.get("add"), "string", f"{where}.capabilities.add")

    def container(self, c: dict[str, Any], where: str) -> None:
        self.want(c.get("image"), "string", f"{where}.image")
        self.security(c.get("securityContext"), f"{where}.securityContext")
        res = c.get("resources")
        if self.want(res, "mapping", f"{where}.resources") and res is not None:
            self.want(res.get("limits"), "mapping", f"{where}.resources.limits")

    def pod(self, obj: dict[str, Any]) -> None:
        path = pod_spec_path(obj["kind"])
        spec: Any = obj
        for key in path:
            spec = spec.get(key) if isinstance(spec, dict) else None
        where = ".".join(path)
        if not isinstance(spec, dict):
            self.problems.append(f"{self.resource}: {where} is not a mapping")
            return
        for key in POD_BOOLS:
            self.want(spec.get(key), "bool", f"{where}.{key}")
        self.security(spec.get("securityContext"), f"{where}.securityContext")
        self.items(spec.get("volumes"), "mapping", f"{where}.volumes")
        if not isinstance(spec.get("containers"), list) or not spec["containers"]:
            self.problems.append(f"{self.resource}: {where}.containers is not a non-empty list")
        for field in CONTAINER_LISTS:
            for i, c in enumerate(self.items(spec.get(field), "mapping", f"{where}.{field}")):
                self.container(c, f"{where}.{field}[{i}]")

    def rbac(self, obj: dict[str, Any]) -> None:
        for i, rule in enumerate(self.items(obj.get("rules"), "mapping", "rules")):
            for key in ("apiGroups", "resources", "verbs"):
                self.items(rule.get(key), "string", f"rules[{i}].{key}")

    def binding(self, obj: dict[str, Any]) -> None:
        ref = obj.get("roleRef")
        if self.want(ref, "mapping", "roleRef") and ref is not None:
            self.want(ref.get("kind"), "string", "roleRef.kind")
            self.want(ref.get("name"), "string", "roleRef.name")


def shape_problems(obj: dict[str, Any], resource: str) -> list[str]:
    """Fields of one object that the policies cannot read (see the module docstring)."""
    check = _Checker(resource)
    kind = obj.get("kind")
    if kind in WORKLOAD_KINDS:
        check.pod(obj)
    elif kind in ("Role", "ClusterRole"):
        check.rbac(obj)
    elif kind in ("RoleBinding", "ClusterRoleBinding"):
        check.binding(obj)
    return check.problems
