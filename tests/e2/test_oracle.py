"""Oracle: union/de-dup of mapped findings, unmapped bookkeeping, caching, error reporting."""

from __future__ import annotations

import pytest

from sv_env_config_verification.canonical import CATALOGUE, SEVERITY_WEIGHT, TOOL_RULES
from sv_env_config_verification.configs import ConfigError, ConfigFile
from sv_env_config_verification.oracle import Finding, merge, scan, tool_versions
from sv_env_config_verification.scan_cache import ScanCache, cache_key
from sv_env_config_verification.tools import DEFAULT_TOOLS, RawFinding, ToolResult, get_tool

BAD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostNetwork: true
  containers:
  - name: a
    image: nginx:latest
    securityContext: {privileged: true}
"""
SECURE = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  securityContext: {runAsNonRoot: true}
  containers:
  - name: a
    image: nginx:1.25.3
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities: {drop: [ALL]}
    resources:
      limits: {cpu: 100m, memory: 64Mi}
"""


class Counting:
    """A stand-in tool that counts invocations and reports fixed raw findings."""

    def __init__(self, name="checkov", findings=(), error=None, kinds=("k8s", "terraform")):
        self.name, self.kinds, self.calls = name, kinds, 0
        self._findings, self._error = list(findings), error

    def version(self):
        return "1.0"

    def rules_hash(self):
        return "r1"

    def available(self):
        return True

    def unavailable_reason(self):
        return None

    def scan(self, config):
        self.calls += 1
        return ToolResult(self.name, list(self._findings), error=self._error, seconds=0.01)


def test_catalogue():
    assert len(CATALOGUE) == 27 and SEVERITY_WEIGHT == {"low": 1, "med": 2, "high": 3}
    assert CATALOGUE["k8s/host-pid"].severity == "high" and CATALOGUE["tf/s3-unencrypted"].kind == (
        "terraform"
    )
    for tool, rules in TOOL_RULES.items():
        assert set(rules.values()) <= set(CATALOGUE), tool


def test_merge_unions_and_deduplicates():
    results = {
        "opa": ToolResult(
            "opa",
            [
                RawFinding("opa", "k8s/privileged-container", "Pod/p", "a"),
                RawFinding("opa", "k8s/privileged-container", "Pod/p", "b"),
                RawFinding("opa", "k8s/host-pid", "Pod/q"),
            ],
        ),
        "checkov": ToolResult(
            "checkov",
            [
                RawFinding("checkov", "CKV_K8S_16", "Pod/p"),
                RawFinding("checkov", "CKV_K8S_11", "Pod/p"),
                RawFinding("checkov", "CKV_K8S_13", "Pod/p"),
                RawFinding("checkov", "CKV_K8S_8", "Pod/p"),
                RawFinding("checkov", "CKV_AWS_3", "Pod/p"),
            ],
        ),
    }
    findings, unmapped = merge("k8s", results)
    assert findings == (
        Finding("k8s/host-pid", "high", "Pod/q", ("opa",)),
        Finding("k8s/missing-resource-limits", "low", "Pod/p", ("checkov",)),
        Finding("k8s/privileged-container", "high", "Pod/p", ("checkov", "opa")),
    )
    assert {u.rule_id for u in unmapped} == {"CKV_K8S_8", "CKV_AWS_3"}  # wrong kind: unmapped


def test_scan_real_tools_union():
    result = scan(ConfigFile("k8s", "m.yaml", BAD), cache=False)
    assert result.ok, result.errors
    by_id = {f.id: f for f in result.findings}
    assert by_id["k8s/privileged-container"].tools[:2] == ("checkov", "opa")
    assert {"k8s/host-network", "k8s/image-latest-tag", "k8s/run-as-root"} <= set(by_id)
    assert len(result.keys()) == len(result.findings)
    assert set(result.tool_versions()) == set(DEFAULT_TOOLS)


@pytest.mark.parametrize(
    ("kind", "name", "text"),
    [
        ("k8s", "secure.yaml", SECURE),
        (
            "terraform",
            "secure.tf",
            'resource "aws_ebs_volume" "v" {\n  encrypted = true\n  size = 1\n}\n'
            'resource "aws_kms_key" "k" {\n  enable_key_rotation = true\n}\n',
        ),
    ],
)
def test_secure_config_has_no_findings_from_any_tool(kind, name, text):
    result = scan(ConfigFile(kind, name, text), cache=False)
    assert result.findings == () and result.ok
    assert all(run.raw_findings == 0 for run in result.per_tool.values() if run.available)


def test_cache_hit_on_rescan(tmp_path):
    tool = Counting(findings=[RawFinding("checkov", "CKV_K8S_16", "Pod/p")])
    cache = ScanCache(maxsize=8)
    config = ConfigFile("k8s", "m.yaml", BAD)
    first = scan(config, tools=[tool], cache=cache)
    again = scan(ConfigFile("k8s", "renamed.yaml", BAD), tools=[tool], cache=cache)
    assert tool.calls == 1 and cache.hits == 1
    assert first.findings == again.findings and again.per_tool["checkov"].cached
    scan(ConfigFile("k8s", "m.yaml", BAD + "# changed\n"), tools=[tool], cache=cache)
    assert tool.calls == 2


def test_real_tools_rescan_is_free():
    cache = ScanCache()
    config = ConfigFile("k8s", "m.yaml", BAD)
    first = scan(config, cache=cache)
    second = scan(config, cache=cache)
    assert all(r.cached for r in second.per_tool.values() if r.available)
    assert first.findings == second.findings


def test_disk_cache_survives_processes(tmp_path):
    tool = Counting(findings=[RawFinding("checkov", "CKV_K8S_16", "Pod/p", "m", 3)])
    config = ConfigFile("k8s", "m.yaml", BAD)
    scan(config, tools=[tool], cache=ScanCache(directory=tmp_path))
    fresh = ScanCache(directory=tmp_path)
    result = scan(config, tools=[tool], cache=fresh)
    assert tool.calls == 1 and fresh.hits == 1 and len(list(tmp_path.rglob("*.json"))) == 1
    assert result.findings[0].id == "k8s/privileged-container"


def test_cache_key_covers_version_rules_kind_content():
    base = ("opa", "v1", "r1", "k8s", "h")
    keys = {cache_key(*base)} | {cache_key(*base[:i], "x", *base[i + 1 :]) for i in range(5)}
    assert len(keys) == 6


def test_lru_evicts_and_errors_are_not_cached():
    cache = ScanCache(maxsize=2)
    for k in "abc":
        cache.put(k, ToolResult("t"))
    assert len(cache) == 2 and cache.get("a") is None
    cache.put("e", ToolResult("t", error="boom"))
    assert cache.get("e") is None
    failing = Counting(error="checkov failed: x")
    config = ConfigFile("k8s", "m.yaml", BAD)
    for _ in range(2):
        result = scan(config, tools=[failing], cache=cache)
    assert (
        failing.calls == 2 and not result.ok and result.errors == {"checkov": "checkov failed: x"}
    )


def test_invalid_config_raises_before_tools_run():
    tool = Counting()
    with pytest.raises(ConfigError):
        scan(ConfigFile("k8s", "m.yaml", "kind: [\n"), tools=[tool], cache=False)
    assert tool.calls == 0


def test_unavailable_and_kind_mismatched_tools():
    k8s_only = Counting(name="kube-linter", kinds=("k8s",))
    tf = ConfigFile("terraform", "m.tf", 'resource "aws_kms_key" "k" {\n}\n')
    result = scan(tf, tools=["opa", k8s_only], cache=False)
    assert k8s_only.calls == 0 and set(result.per_tool) == {"opa"}
    result = scan(ConfigFile("k8s", "m.yaml", BAD), tools=["opa", "kube-linter"], cache=False)
    if not get_tool("kube-linter").available():
        assert result.missing_tools == ["kube-linter"] and result.ok
        assert result.tool_versions()["kube-linter"].startswith(
            "unavailable: kube-linter not found"
        )
    assert "opa" in tool_versions()
