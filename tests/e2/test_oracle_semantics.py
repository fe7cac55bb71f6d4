"""Oracle semantics: every container type is audited, `kind: List` items are objects, JSON
manifests load like YAML ones, and `source=dir` never drops a broken file silently."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from sv_env_config_verification.canonical import CATALOGUE, DANGEROUS_CAPABILITIES, SAFE_SYSCTLS
from sv_env_config_verification.configs import (
    ConfigError,
    ConfigFile,
    detect_kind,
    k8s_spans,
    manifest_text,
    parse_k8s,
    resource_at,
)
from sv_env_config_verification.dataset import DatasetError, load_items, load_report
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.tools import get_tool

HARDENED = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "runAsNonRoot": True,
}
LIMITS = {"limits": {"cpu": "100m", "memory": "64Mi"}}
RISKY = {"privileged": True, "capabilities": {"add": ["SYS_ADMIN"]}}


def container(name: str, *, risky: bool = False, limits: bool = True) -> dict:
    c: dict = {"name": name, "image": "busybox:latest" if risky else "busybox:1.36"}
    c["securityContext"] = RISKY if risky else dict(HARDENED)
    if limits:
        c["resources"] = LIMITS
    return c


def pod_yaml(kind: str, name: str, spec: dict) -> str:
    if kind == "Pod":
        body = spec
    elif kind == "CronJob":
        body = {"schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": spec}}}}
    else:
        body = {"template": {"spec": spec}}
    obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, "spec": body}
    return json.dumps(obj, indent=2)  # JSON is YAML


def opa_keys(text: str) -> set[tuple[str, str]]:
    result = get_tool("opa").scan(ConfigFile("k8s", "m.yaml", text))
    assert result.error is None, result.error
    return {(f.rule_id, f.resource) for f in result.findings}


CONTAINER_IDS = {
    "k8s/privileged-container",
    "k8s/dangerous-capabilities",
    "k8s/image-latest-tag",
    "k8s/run-as-root",
    "k8s/privilege-escalation",
    "k8s/writable-root-filesystem",
}


# ------------------------------------------------------------------------ container types
@pytest.mark.parametrize("kind", ["Pod", "Deployment", "CronJob"])
@pytest.mark.parametrize("field", ["initContainers", "ephemeralContainers"])
def test_init_and_ephemeral_containers_are_audited_like_containers(kind: str, field: str) -> None:
    spec = {"containers": [container("app")], field: [container("x", risky=True, limits=False)]}
    found = opa_keys(pod_yaml(kind, "w", spec))
    resource = f"{kind}/w"
    assert {(vid, resource) for vid in CONTAINER_IDS} <= found
    # Ephemeral containers cannot set resources (API rule), so only init containers need limits.
    limits = ("k8s/missing-resource-limits", resource) in found
    assert limits == (field == "initContainers")


def test_a_hardened_pod_with_hardened_extra_containers_is_clean() -> None:
    spec = {
        "containers": [container("app")],
        "initContainers": [container("init")],
        "ephemeralContainers": [container("debug", limits=False)],
    }
    assert opa_keys(pod_yaml("Pod", "ok", spec)) == set()


def test_pod_level_run_as_non_root_covers_ephemeral_containers() -> None:
    debug = container("debug", limits=False)
    del debug["securityContext"]["runAsNonRoot"]
    spec = {
        "securityContext": {"runAsNonRoot": True},
        "containers": [container("app")],
        "ephemeralContainers": [debug],
    }
    assert ("k8s/run-as-root", "Pod/p") not in opa_keys(pod_yaml("Pod", "p", spec))


def test_rego_dangerous_capabilities_match_the_catalogue() -> None:
    engine = get_tool("opa")._engine
    assert set(json.loads(engine.eval_rule_as_json("data.sv.kubernetes.dangerous_caps"))) == set(
        DANGEROUS_CAPABILITIES
    )


def test_rego_safe_sysctls_match_the_catalogue() -> None:
    engine = get_tool("opa")._engine
    rego = json.loads(engine.eval_rule_as_json("data.sv.kubernetes.safe_sysctls"))
    assert set(rego) == set(SAFE_SYSCTLS)


# ------------------------------------------------------------------------ kind: List
LIST = """apiVersion: v1
kind: List
metadata: {}
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
  spec:
    hostPID: true
    containers:
    - name: c
      image: nginx:1.25
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: api
  spec:
    template:
      spec:
        containers:
        - name: c
          image: nginx:1.25
          securityContext:
            privileged: true
---
apiVersion: v1
kind: Service
metadata:
  name: svc
"""


def test_list_items_are_objects_with_their_own_names() -> None:
    objs = parse_k8s(LIST)
    assert [f"{o['kind']}/{o['metadata']['name']}" for o in objs] == [
        "Pod/web",
        "Deployment/api",
        "Service/svc",
    ]
    spans = k8s_spans(LIST)
    assert [s[2] for s in spans] == ["Pod/web", "Deployment/api", "Service/svc"]
    assert resource_at(spans, 10) == "Pod/web" and resource_at(spans, 25) == "Deployment/api"


def test_list_items_are_scanned_by_every_tool() -> None:
    result = scan(ConfigFile("k8s", "list.yaml", LIST), cache=False)
    assert result.errors == {}
    keys = result.keys()
    assert {("k8s/host-pid", "Pod/web"), ("k8s/privileged-container", "Deployment/api")} <= keys
    assert all(res in {"Pod/web", "Deployment/api"} for _, res in keys)
    ran = [name for name, run in result.per_tool.items() if run.available]
    for f in result.findings:
        if f.id in ("k8s/host-pid", "k8s/privileged-container"):
            assert set(f.tools) == set(ran) & {"opa", "checkov", "semgrep"}, f


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n", "item 1"),
        ("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "not a list"),
        ("apiVersion: v1\nkind: List\nitems:\n- kind: List\n  items: []\n", "nested List"),
        ("apiVersion: v1\nkind: List\nitems: []\n", "no Kubernetes objects"),
    ],
)
def test_bad_lists_are_clear_errors(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse_k8s(text)


# ------------------------------------------------------------------------ JSON manifests
POD_JSON = pod_yaml("Pod", "j", {"hostNetwork": True, "containers": [container("app")]})


def test_json_manifests_are_kubernetes_sources() -> None:
    assert detect_kind("pod.json", "") == "k8s"
    assert detect_kind("pod", POD_JSON) == "k8s"
    with pytest.raises(ConfigError, match=r"tf\.json"):
        detect_kind("main.tf.json", "{}")
    assert manifest_text("pod.json", POD_JSON) == POD_JSON
    tabbed = json.dumps(json.loads(POD_JSON), indent="\t")
    fixed = manifest_text("pod.json", tabbed)
    assert "\t" not in fixed and parse_k8s(fixed)[0] == json.loads(POD_JSON)
    with pytest.raises(ConfigError, match="invalid JSON at line 1"):
        manifest_text("pod.json", '{"kind": ')


def test_json_manifest_loads_like_yaml_in_a_dir_source(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "pod.json").write_text(json.dumps(json.loads(POD_JSON), indent="\t"))
    (tmp_path / "apps" / "same.yaml").write_text(POD_JSON.replace('"j"', '"y"'))
    items = {item.base_id: item for item in load_items("all", source="dir", path=tmp_path)}
    assert set(items) == {"apps/pod.json", "apps/same.yaml"}
    json_item = items["apps/pod.json"]
    assert json_item.kind == "k8s" and json_item.name == "pod.yaml"
    assert [(f["id"], f["resource"]) for f in json_item.findings] == [("k8s/host-network", "Pod/j")]
    assert [f["id"] for f in items["apps/same.yaml"].findings] == ["k8s/host-network"]
    assert set(next(iter(json_item.findings))["tools"]) >= {"opa"}


# ------------------------------------------------------------------------ strict / non-strict
def no_scan(config: ConfigFile) -> list:
    return []


@pytest.fixture
def mixed_dir(tmp_path: Path) -> Path:
    (tmp_path / "ok.yaml").write_text(POD_JSON)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.json").write_text('{"apiVersion": "v1", "kind": ')
    (tmp_path / "sub" / "noname.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {}\n")
    return tmp_path


def test_strict_dir_load_fails_naming_the_file_and_reason(mixed_dir: Path) -> None:
    with pytest.raises(DatasetError) as err:
        load_items("all", source="dir", path=mixed_dir, scan=no_scan)
    assert "sub/broken.json" in str(err.value) and "invalid JSON" in str(err.value)


def test_lenient_dir_load_skips_with_a_notice_and_a_count(
    mixed_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="sv_env_config_verification.dataset"):
        report = load_report("all", source="dir", path=mixed_dir, strict=False, scan=no_scan)
    assert [item.base_id for item in report.items] == ["ok.yaml"]
    assert [where for where, _ in report.skipped] == ["sub/broken.json", "sub/noname.yaml"]
    assert "metadata.name" in report.skipped[1][1]
    prov = report.provenance()
    assert prov["n"] == 1 and prov["skipped"] == 2 and len(prov["skipped_inputs"]) == 2
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("sub/broken.json" in m for m in logged)
    assert any("2 input(s) skipped" in m for m in logged)


def test_lenient_load_is_recorded_by_the_environment_and_the_pipeline(
    mixed_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from sv_env_config_verification import data_pipeline
    from sv_env_config_verification.environment import load_environment
    from sv_shared.data import SourceRequest

    cache = str(tmp_path_factory.mktemp("scans"))
    env = load_environment(
        split="all", source="dir", path=str(mixed_dir), strict=False, scan_cache_dir=cache
    )
    assert env.sv_dataset_info["n"] == 1 and env.sv_dataset_info["skipped"] == 2
    with pytest.raises(DatasetError, match=r"broken\.json"):
        load_environment(split="all", source="dir", path=str(mixed_dir), scan_cache_dir=cache)
    request = SourceRequest(
        path=str(mixed_dir), options={"tools": "opa", "strict": "false", "cache_dir": cache}
    )
    data = data_pipeline.data_adapter().sources["dir"](request)
    assert [w for w, _ in data.rejected] == ["sub/broken.json", "sub/noname.yaml"]
    assert [row.base_id for row in data.rows] == ["ok.yaml"]


def test_catalogue_documents_the_container_scope() -> None:
    assert "ephemeral containers cannot set resources" in (
        CATALOGUE["k8s/missing-resource-limits"].description
    )
    assert "(not ephemeral)" not in CATALOGUE["k8s/run-as-root"].description


def test_a_file_the_tools_did_not_fully_scan_gets_no_labels(tmp_path: Path) -> None:
    """Labels come only from a scan in which every tool evaluated every object."""
    (tmp_path / "ok.yaml").write_text(POD_JSON)
    # checkov drops an object with '#' in a name anywhere in it (a Helm comment used to do this
    # for a whole file; Helm templates are now skipped as such and comments stripped)
    doc = json.loads(POD_JSON)
    doc["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner#1", "uid": "0"}
    ]
    (tmp_path / "helm.yaml").write_text(json.dumps(doc))
    with pytest.raises(DatasetError, match=r"helm\.yaml.*did not scan every object"):
        load_items("all", source="dir", path=tmp_path)
    report = load_report("all", source="dir", path=tmp_path, strict=False)
    assert [item.base_id for item in report.items] == ["ok.yaml"]
    assert [where for where, _ in report.skipped] == ["helm.yaml"]
