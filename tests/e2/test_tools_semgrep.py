"""Semgrep adapter: fast path, own rules, nosemgrep disabled, clear unavailability."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sv_env_config_verification.canonical import TOOL_RULES
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools import get_tool
from sv_env_config_verification.tools.semgrep_tool import RULES_DIR, SemgrepTool

PRIV = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: a
    image: nginx:1.25
    securityContext:
      privileged: true  # nosemgrep
"""


@pytest.fixture(scope="module")
def semgrep():
    tool = get_tool("semgrep")
    if not tool.available():
        pytest.fail(f"installed by make setup but unavailable: {tool.unavailable_reason()}")
    return tool


def test_rule_files_match_the_mapping():
    ids = set()
    for path in RULES_DIR.glob("*.yml"):
        ids |= {r["id"] for r in yaml.safe_load(path.read_text())["rules"]}
    assert ids == set(TOOL_RULES["semgrep"])


def test_nosemgrep_comment_does_not_suppress(semgrep):
    result = semgrep.scan(ConfigFile("k8s", "m.yaml", PRIV))
    assert result.error is None
    assert [(f.rule_id, f.resource, f.line) for f in result.findings] == [
        ("sv-k8s-privileged-container", "Pod/p", 9)
    ]


def test_version_names_engine_and_rules(semgrep):
    v = semgrep.version()
    assert v.startswith("semgrep 1.") and f"rules sha256:{semgrep.rules_hash()[:16]}" in v


def test_tool_sees_only_a_temp_copy(semgrep, monkeypatch, tmp_path):
    seen = {}
    real = SemgrepTool.run_raw

    def spy(self, rules, target):
        seen["target"], seen["siblings"] = target, sorted(p.name for p in target.parent.iterdir())
        seen["text"] = target.read_text()
        return real(self, rules, target)

    monkeypatch.setattr(SemgrepTool, "run_raw", spy)
    monkeypatch.chdir(tmp_path)
    semgrep.scan(ConfigFile("k8s", "episode.yaml", PRIV))
    assert seen["siblings"] == ["episode.yaml"] and seen["text"] == PRIV
    assert not seen["target"].exists() and seen["target"].parent != Path.cwd()


def test_unavailable_with_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("SV_SEMGREP_HOME", str(tmp_path))
    tool = SemgrepTool()
    assert not tool.available()
    assert "SV_SEMGREP_HOME" in tool.unavailable_reason()
    result = tool.scan(ConfigFile("k8s", "m.yaml", PRIV))
    assert not result.available and result.findings == [] and "semgrep" in result.reason
