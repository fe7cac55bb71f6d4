"""Kubernetes policies: each canonical id has violating and compliant examples, checked on
every tool that maps it (the project's Rego pack, checkov's mapped checks, semgrep rules)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import policy_scans
import pytest
import yaml

from sv_env_config_verification.canonical import ids_for
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools import get_tool

SECURE: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "securityContext": {"runAsNonRoot": True, "runAsUser": 10001},
                "containers": [
                    {
                        "name": "app",
                        "image": "nginx:1.25.3",
                        "securityContext": {
                            "allowPrivilegeEscalation": False,
                            "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]},
                        },
                        "resources": {
                            "limits": {"cpu": "500m", "memory": "256Mi"},
                            "requests": {"cpu": "100m", "memory": "128Mi"},
                        },
                        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
                    }
                ],
                "volumes": [{"name": "tmp", "emptyDir": {}}],
            },
        },
    },
}
ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "reader"},
    "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
}
BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRoleBinding",
    "metadata": {"name": "ops"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
    "subjects": [{"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"}],
}


Mutation = Callable[[dict[str, Any]], None]


def pod(d: dict[str, Any]) -> dict[str, Any]:
    return d["spec"]["template"]["spec"]


def ctr(d: dict[str, Any]) -> dict[str, Any]:
    return pod(d)["containers"][0]


def sc(d: dict[str, Any]) -> dict[str, Any]:
    return ctr(d)["securityContext"]


def manifest(mutate: Mutation | None = None, extra: list[dict[str, Any]] | None = None) -> str:
    docs = [copy.deepcopy(SECURE), copy.deepcopy(ROLE), copy.deepcopy(BINDING), *(extra or [])]
    if mutate:
        mutate(docs[0])
    return yaml.safe_dump_all(docs, sort_keys=False)


def setter(getter: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> Mutation:
    return lambda d: getter(d).__setitem__(key, value)


def deleter(getter: Callable[[dict[str, Any]], dict[str, Any]], key: str) -> Mutation:
    return lambda d: getter(d).pop(key)


def add_init(**sec: Any) -> Mutation:
    def m(d: dict[str, Any]) -> None:
        init = copy.deepcopy(ctr(d))
        init["name"] = "init"
        init["securityContext"].update(sec)
        pod(d)["initContainers"] = [init]

    return m


def add_volume(volume: dict[str, Any]) -> Mutation:
    return lambda d: pod(d)["volumes"].append(volume)


def add_caps(*caps: str) -> Mutation:
    return lambda d: sc(d)["capabilities"].__setitem__("add", list(caps))


def rbac(rule: dict[str, Any]) -> str:
    role = {**copy.deepcopy(ROLE), "rules": [ROLE["rules"][0], rule]}
    return yaml.safe_dump_all([copy.deepcopy(SECURE), role, copy.deepcopy(BINDING)])


def binding(kind: str, name: str) -> str:
    b = copy.deepcopy(BINDING)
    b["roleRef"].update(kind=kind, name=name)
    return yaml.safe_dump_all([copy.deepcopy(SECURE), copy.deepcopy(ROLE), b])


D, R, B = "Deployment/web", "ClusterRole/reader", "ClusterRoleBinding/ops"
ALL3 = ("opa", "checkov", "semgrep")
# (case, canonical id, resource, manifest text, tools that must report it); compliant
# near-misses are in COMPLIANT below.
VIOLATING = [
    ("privileged", "k8s/privileged-container", D, manifest(setter(sc, "privileged", True)), ALL3),
    ("privileged-init", "k8s/privileged-container", D, manifest(add_init(privileged=True)), ALL3),
    ("host-network", "k8s/host-network", D, manifest(setter(pod, "hostNetwork", True)), ALL3),
    ("host-pid", "k8s/host-pid", D, manifest(setter(pod, "hostPID", True)), ALL3),
    ("host-ipc", "k8s/host-ipc", D, manifest(setter(pod, "hostIPC", True)), ALL3),
    (
        "root-no-pod-context",
        "k8s/run-as-root",
        D,
        manifest(deleter(pod, "securityContext")),
        ("opa", "checkov"),
    ),
    (
        "root-uid-0",
        "k8s/run-as-root",
        D,
        manifest(setter(pod, "securityContext", {"runAsUser": 0})),
        ("opa", "checkov"),
    ),
    (
        "root-container-override",
        "k8s/run-as-root",
        D,
        manifest(
            lambda d: (
                pod(d).__setitem__("securityContext", {"runAsUser": 1000}),
                sc(d).__setitem__("runAsUser", 0),
            )
        ),
        ("opa", "checkov"),
    ),
    (
        "escalation-true",
        "k8s/privilege-escalation",
        D,
        manifest(setter(sc, "allowPrivilegeEscalation", True)),
        ALL3,
    ),
    (
        "escalation-unset",
        "k8s/privilege-escalation",
        D,
        manifest(deleter(sc, "allowPrivilegeEscalation")),
        ("opa", "checkov"),
    ),
    (
        "escalation-init",
        "k8s/privilege-escalation",
        D,
        manifest(add_init(allowPrivilegeEscalation=True)),
        ALL3,
    ),
    (
        "no-memory-limit",
        "k8s/missing-resource-limits",
        D,
        manifest(lambda d: ctr(d)["resources"]["limits"].pop("memory")),
        ("opa", "checkov"),
    ),
    (
        "no-limits",
        "k8s/missing-resource-limits",
        D,
        manifest(lambda d: ctr(d).pop("resources")),
        ("opa", "checkov"),
    ),
    ("latest", "k8s/image-latest-tag", D, manifest(setter(ctr, "image", "nginx:latest")), ALL3),
    ("no-tag", "k8s/image-latest-tag", D, manifest(setter(ctr, "image", "nginx")), ALL3),
    (
        "no-tag-port",
        "k8s/image-latest-tag",
        D,
        manifest(setter(ctr, "image", "registry.local:5000/team/nginx")),
        ("opa", "semgrep"),
    ),
    (
        "docker-sock",
        "k8s/hostpath-volume",
        D,
        manifest(add_volume({"name": "d", "hostPath": {"path": "/var/run/docker.sock"}})),
        ALL3,
    ),
    (
        "hostpath-etc",
        "k8s/hostpath-volume",
        D,
        manifest(add_volume({"name": "e", "hostPath": {"path": "/etc"}})),
        ("opa", "semgrep"),
    ),
    ("sys-admin", "k8s/dangerous-capabilities", D, manifest(add_caps("SYS_ADMIN")), ALL3),
    (
        "net-raw",
        "k8s/dangerous-capabilities",
        D,
        manifest(add_caps("CHOWN", "NET_RAW")),
        ("opa", "semgrep"),
    ),
    (
        "cap-prefix",
        "k8s/dangerous-capabilities",
        D,
        manifest(add_caps("cap_sys_ptrace")),
        ("opa", "semgrep"),
    ),
    (
        "rofs-false",
        "k8s/writable-root-filesystem",
        D,
        manifest(setter(sc, "readOnlyRootFilesystem", False)),
        ("opa", "checkov"),
    ),
    (
        "rofs-unset",
        "k8s/writable-root-filesystem",
        D,
        manifest(deleter(sc, "readOnlyRootFilesystem")),
        ("opa", "checkov"),
    ),
    (
        "wildcard-verbs",
        "k8s/rbac-wildcard",
        R,
        yaml.safe_dump_all(
            [
                copy.deepcopy(SECURE),
                {**ROLE, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}]},
            ]
        ),
        ALL3,
    ),
    (
        "wildcard-second-rule",
        "k8s/rbac-wildcard",
        R,
        rbac({"apiGroups": [""], "resources": ["*"], "verbs": ["get"]}),
        ("opa", "semgrep"),
    ),
    (
        "cluster-admin",
        "k8s/cluster-admin-binding",
        B,
        binding("ClusterRole", "cluster-admin"),
        ("opa", "semgrep"),
    ),
    # Pod Security Standards baseline controls: the Rego pack only
    ("host-port", "k8s/host-port", D,
     manifest(setter(ctr, "ports", [{"containerPort": 80, "hostPort": 80}])), ("opa",)),
    ("seccomp-unconfined", "k8s/seccomp-unconfined", D,
     manifest(setter(sc, "seccompProfile", {"type": "Unconfined"})), ("opa",)),
    ("apparmor-unconfined", "k8s/apparmor-unconfined", D,
     manifest(setter(sc, "appArmorProfile", {"type": "Unconfined"})), ("opa",)),
    ("proc-mount-unmasked", "k8s/unmasked-proc-mount", D,
     manifest(setter(sc, "procMount", "Unmasked")), ("opa",)),
    ("unsafe-sysctl", "k8s/unsafe-sysctls", D,
     manifest(lambda d: pod(d).setdefault("securityContext", {}).update(
         sysctls=[{"name": "kernel.msgmax", "value": "65536"}])), ("opa",)),
]  # fmt: skip

COMPLIANT = [
    ("privileged-false", "k8s/privileged-container", D, manifest(setter(sc, "privileged", False))),
    ("host-network-false", "k8s/host-network", D, manifest(setter(pod, "hostNetwork", False))),
    ("host-pid-false", "k8s/host-pid", D, manifest(setter(pod, "hostPID", False))),
    ("host-ipc-false", "k8s/host-ipc", D, manifest(setter(pod, "hostIPC", False))),
    (
        "root-container-nonroot",
        "k8s/run-as-root",
        D,
        manifest(lambda d: (pod(d).pop("securityContext"), sc(d).update(runAsNonRoot=True))),
    ),
    (
        "root-uid-only",
        "k8s/run-as-root",
        D,
        manifest(setter(pod, "securityContext", {"runAsUser": 1000})),
    ),
    ("escalation-false", "k8s/privilege-escalation", D, manifest()),
    (
        "limits-set",
        "k8s/missing-resource-limits",
        D,
        manifest(lambda d: ctr(d)["resources"].pop("requests")),
    ),
    (
        "digest",
        "k8s/image-latest-tag",
        D,
        manifest(setter(ctr, "image", "nginx@sha256:" + "a" * 64)),
    ),
    (
        "port-and-tag",
        "k8s/image-latest-tag",
        D,
        manifest(setter(ctr, "image", "registry.local:5000/nginx:1.25")),
    ),
    ("emptydir", "k8s/hostpath-volume", D, manifest(add_volume({"name": "c", "emptyDir": {}}))),
    ("safe-cap", "k8s/dangerous-capabilities", D, manifest(add_caps("NET_BIND_SERVICE"))),
    ("rofs-true", "k8s/writable-root-filesystem", D, manifest()),
    (
        "specific-rules",
        "k8s/rbac-wildcard",
        R,
        rbac({"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "watch"]}),
    ),
    ("view-binding", "k8s/cluster-admin-binding", B, binding("ClusterRole", "view")),
    ("role-named-cluster-admin", "k8s/cluster-admin-binding", B, binding("Role", "cluster-admin")),
    (
        "host-port-zero",
        "k8s/host-port",
        D,
        manifest(setter(ctr, "ports", [{"containerPort": 80, "hostPort": 0}])),
    ),
    (
        "seccomp-runtime-default",
        "k8s/seccomp-unconfined",
        D,
        manifest(setter(sc, "seccompProfile", {"type": "RuntimeDefault"})),
    ),
    (
        "apparmor-runtime-default",
        "k8s/apparmor-unconfined",
        D,
        manifest(setter(sc, "appArmorProfile", {"type": "RuntimeDefault"})),
    ),
    (
        "proc-mount-default",
        "k8s/unmasked-proc-mount",
        D,
        manifest(setter(sc, "procMount", "Default")),
    ),
    (
        "safe-sysctl",
        "k8s/unsafe-sysctls",
        D,
        manifest(
            lambda d: (
                pod(d)
                .setdefault("securityContext", {})
                .update(sysctls=[{"name": "net.ipv4.tcp_syncookies", "value": "1"}])
            )
        ),
    ),
]


def reported(tool_name: str, text: str) -> set[tuple[str, str]]:
    return policy_scans.mapped_findings("k8s", "manifest.yaml", tool_name, text)


@pytest.mark.parametrize("tool", ALL3)
@pytest.mark.parametrize(
    ("case", "vid", "resource", "text", "tools"), VIOLATING, ids=[c[0] for c in VIOLATING]
)
def test_violating(tool, case, vid, resource, text, tools):
    policy_scans.check_violating("k8s", "manifest.yaml", tool, (case, vid, resource, text, tools))


@pytest.mark.parametrize("tool", ALL3)
@pytest.mark.parametrize(
    ("case", "vid", "resource", "text"), COMPLIANT, ids=[c[0] for c in COMPLIANT]
)
def test_compliant(tool, case, vid, resource, text):
    policy_scans.check_compliant("k8s", "manifest.yaml", tool, (case, vid, resource, text))


def test_every_id_has_cases():
    assert {c[1] for c in VIOLATING} == set(ids_for("k8s"))
    assert {c[1] for c in COMPLIANT} == set(ids_for("k8s"))


def test_every_mapped_rule_is_exercised():
    policy_scans.check_mapped_rules_fire("k8s", "manifest.yaml", "k8s/", VIOLATING)


def test_secure_manifest_is_clean_for_all_tools():
    for tool in ALL3:
        assert reported(tool, manifest()) == set(), tool


WORKLOADS = {
    "Pod": lambda ps: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"}, "spec": ps},
    "StatefulSet": lambda ps: {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "w"},
        "spec": {"template": {"spec": ps}},
    },
    "DaemonSet": lambda ps: {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "w"},
        "spec": {"template": {"spec": ps}},
    },
    "Job": lambda ps: {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "w"},
        "spec": {"template": {"spec": ps}},
    },
    "CronJob": lambda ps: {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "w"},
        "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": ps}}}},
    },
}


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_pod_template_paths(kind):
    bad = copy.deepcopy(pod(SECURE))
    bad["hostPID"] = True
    bad["initContainers"] = [
        {**copy.deepcopy(bad["containers"][0]), "name": "i", "image": "busybox:latest"}
    ]
    text = yaml.safe_dump(WORKLOADS[kind](bad))
    good = yaml.safe_dump(WORKLOADS[kind](copy.deepcopy(pod(SECURE))))
    for tool in ("opa", "checkov"):
        assert {("k8s/host-pid", f"{kind}/w"), ("k8s/image-latest-tag", f"{kind}/w")} <= reported(
            tool, text
        ), tool
        assert reported(tool, good) == set(), tool


def test_opa_reports_each_container():
    text = manifest(
        lambda d: (
            ctr(d).update(image="a:latest")
            or pod(d).update(
                initContainers=[{**copy.deepcopy(ctr(d)), "name": "init", "image": "b"}]
            )
        )
    )
    result = get_tool("opa").scan(ConfigFile("k8s", "m.yaml", text))
    msgs = {f.message for f in result.findings if f.rule_id == "k8s/image-latest-tag"}
    assert len(msgs) == 2 and any("initContainer 'init'" in m for m in msgs)
    assert all(f.line == 1 for f in result.findings if f.resource == D)


def test_non_workloads_are_ignored():
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"hostNetwork": "true", "privileged": "true"},
    }
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv"},
        "spec": {"hostPath": {"path": "/data"}, "capacity": {"storage": "1Gi"}},
    }
    text = manifest(extra=[cm, pv])
    for tool in ALL3:
        assert reported(tool, text) == set(), tool
