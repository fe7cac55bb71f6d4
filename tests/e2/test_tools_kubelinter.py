"""KubeLinter adapter: honest unavailability offline; output parsing with a stand-in binary."""

from __future__ import annotations

import json
import os
import stat
import sys

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools.kubelinter import KubeLinterTool, parse_report

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    ignore-check.kube-linter.io/privileged-container: "trust me"
spec:
  containers:
  - {name: a, image: nginx, securityContext: {privileged: true}}
"""
REPORT = {
    "Reports": [
        {
            "Diagnostic": {"Message": 'container "a" is privileged'},
            "Check": "privileged-container",
            "Remediation": "Do not run your container as privileged.",
            "Object": {
                "Metadata": {"FilePath": "m.yaml"},
                "K8sObject": {
                    "Namespace": "",
                    "Name": "p",
                    "GroupVersionKind": {"Group": "", "Version": "v1", "Kind": "Pod"},
                },
            },
        }
    ]
}


def test_unavailable_without_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    tool = KubeLinterTool()
    assert not tool.available()
    result = tool.scan(ConfigFile("k8s", "m.yaml", POD))
    assert (result.available, result.reason, result.findings) == (
        False,
        "kube-linter not found on PATH",
        [],
    )


def test_parse_report():
    [f] = parse_report(REPORT)
    assert (f.tool, f.rule_id, f.resource) == ("kube-linter", "privileged-container", "Pod/p")


def test_runs_binary_on_sanitised_copy(monkeypatch, tmp_path):
    """A stand-in executable checks the plumbing: args, temp copy without ignore annotations."""
    log = tmp_path / "log.json"
    fake = tmp_path / "kube-linter"
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        "if sys.argv[1] == 'version':\n    print('v0.7.2'); sys.exit(0)\n"
        f"open({str(log)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], "
        "'text': open(sys.argv[-1]).read()}))\n"
        f"print(json.dumps({REPORT!r}))\nsys.exit(1)\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    tool = KubeLinterTool()
    result = tool.scan(ConfigFile("k8s", "m.yaml", POD))
    assert result.error is None and [f.rule_id for f in result.findings] == ["privileged-container"]
    seen = json.loads(log.read_text())
    assert seen["argv"][:3] == ["lint", "--format", "json"] and "--include" in seen["argv"]
    assert "ignore-check.kube-linter.io" not in seen["text"] and "privileged: true" in seen["text"]
    assert tool.version() == "kube-linter 0.7.2"
