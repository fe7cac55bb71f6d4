"""A patched config's scan counts only when every tool parsed and evaluated every object.

Each class of evasion (a tool that errors, skips an object or the file, logs only a parse
warning, reads a field it cannot interpret; YAML that has no single JSON reading; an adapter
that raises) makes the scan invalid with a reason, and the patch an invalid patch.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

from sv_env_config_verification import oracle, scoring
from sv_env_config_verification.configs import ConfigError, ConfigFile, parse_k8s
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.mutations import MutationResult, mutate
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import make_unified_diff
from sv_env_config_verification.reward import AuditWeights
from sv_env_config_verification.scoring import AuditParser, score_episode_details
from sv_env_config_verification.tools import ToolResult, get_tool
from sv_env_config_verification.tools.checkov_tool import CheckovTool
from sv_env_config_verification.tools.kubelinter import stderr_warnings
from sv_env_config_verification.tools.semgrep_tool import run_warnings

METADATA = "\nmetadata:\n"
BAD_NAME = "  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: 'owner#1', uid: '0'}\n"


@cache
def case() -> MutationResult:
    """A Deployment + Service with a privileged container sharing the host PID namespace."""
    base = load_bases()["k8s/deployment-web"]
    return mutate(base, ["k8s/privileged-container", "k8s/host-pid"], random.Random(1))


def with_metadata(extra: str, count: int = -1) -> str:
    """The case's manifest with ``extra`` added to the metadata of every (``count``) object."""
    return case().config.text.replace(METADATA, METADATA + extra, count)


def k8s(text: str) -> ConfigFile:
    return ConfigFile("k8s", case().config.name, text)


def info() -> dict:
    config = case().config
    findings = [
        {"id": f.id, "severity": f.severity, "resource": f.resource} for f in scan(config).findings
    ]
    return {
        "id": "t",
        "kind": "k8s",
        "name": config.name,
        "text": config.text,
        "findings": findings,
    }


def score(patched_text: str) -> tuple[dict[str, float], dict]:
    episode = info()
    patch = make_unified_diff(episode["name"], episode["text"], patched_text)
    ids = [f["id"] for f in episode["findings"]]
    body = {"violations": [{"id": i, "severity": "high"} for i in ids], "patch": patch}
    answer = AuditParser().parse(json.dumps({**body, "confidence": 0.9}))
    return score_episode_details(answer, episode, AuditWeights())


def assert_invalid_patch(patched_text: str, reason: str) -> None:
    metrics, details = score(patched_text)
    assert metrics["patch"] == pytest.approx(-AuditWeights().invalid_patch_penalty)
    assert metrics["patch_applied"] == 0.0
    why = details["scan_invalid_reason"] or details["patch_reason"] or ""
    assert reason in why, why


def test_honest_scan_and_fix_are_valid():
    assert scan(case().config).valid
    fixed = scan(k8s(case().base.text))
    assert fixed.valid and not fixed.findings
    metrics, details = score(case().base.text)
    assert metrics["patch"] == 1.0 and metrics["scan_invalid"] == 0.0
    assert details["scan_invalid_reason"] is None


# ------------------------------------------------------------------ tools that skip objects
def test_checkov_skipping_the_file_is_invalid():
    """Helm template syntax anywhere (even a comment) makes checkov drop the whole file."""
    result = scan(k8s("# {{ .Values.x }}\n" + case().config.text))
    assert not result.valid
    assert result.per_tool["checkov"].unscanned == (
        "Deployment/web-frontend",
        "Service/web-frontend",
    )
    assert any("checkov did not evaluate" in r for r in result.invalid_reasons)
    metrics, details = score("# {{ .Values.x }}\n" + case().config.text)
    assert metrics["scan_invalid"] == 1.0 and metrics["patch"] < 0
    assert "checkov did not evaluate" in details["scan_invalid_reason"]


def test_checkov_skipping_an_object_is_invalid():
    """A `name` with '#' anywhere in an object makes checkov's validator drop the object."""
    result = scan(k8s(with_metadata(BAD_NAME, 1)))
    assert not result.valid
    assert result.per_tool["checkov"].unscanned == ("Deployment/web-frontend",)
    assert_invalid_patch(
        with_metadata(BAD_NAME), "checkov did not evaluate Deployment/web-frontend"
    )


def test_checkov_skipped_checks_are_warnings(monkeypatch):
    """Skip annotations are stripped before checkov runs; if one got through, the skipped
    check is reported as a warning, not as a pass."""
    from sv_env_config_verification.tools import checkov_tool

    monkeypatch.setattr(checkov_tool, "_strip_skip_annotations", lambda text: text)
    note = "  annotations:\n    checkov.io/skip1: CKV_K8S_16=accepted\n"
    result = CheckovTool().scan(k8s(with_metadata(note)))
    assert any("checkov skipped CKV_K8S_16" in w for w in result.warnings)
    assert oracle.validity(["Deployment/web-frontend"], {"checkov": result})[0]


def test_object_count_mismatch_is_invalid():
    expected = ["Deployment/web", "Service/web"]
    partial = ToolResult("x", scanned=["Service/web"])
    reasons, unscanned = oracle.validity(expected, {"x": partial})
    assert (
        unscanned["x"] == ("Deployment/web",) and "x did not evaluate Deployment/web" in reasons[0]
    )
    duplicate = ["Deployment/web", "Deployment/web"]
    assert oracle.validity(duplicate, {"x": ToolResult("x", scanned=["Deployment/web"])})[0]
    assert oracle.validity(expected, {"x": ToolResult("x", scanned=None)}) == ([], {})


def test_unreadable_fields_are_invalid():
    """A field of the wrong type reads as unset to the policies: not evaluated, not clean."""
    text = case().config.text.replace("privileged: true", "privileged: 'yes'")
    result = scan(k8s(text))
    assert not result.valid
    assert any("privileged is not a bool" in r for r in result.invalid_reasons)
    spec = case().config.text.replace("      containers:\n", "      containers: {}\n      x:\n", 1)
    assert not scan(k8s(spec)).valid


# ------------------------------------------------------------------ parse warnings and errors
def test_semgrep_parse_warning_is_reported():
    """A lone surrogate escape: semgrep logs only a parse warning and finds nothing."""
    text = with_metadata('  finalizers: ["\\ud800"]\n')
    result = get_tool("semgrep").scan(k8s(text))
    assert not result.findings and result.error is None
    assert any("semgrep warn" in w for w in result.warnings)


def test_semgrep_run_warnings():
    out = {
        "errors": [{"level": "warn", "type": "Syntax error", "message": "bad"}],
        "paths": {"scanned": ["/tmp/x/other.yaml"], "skipped": [{"path": "/tmp/x/a.yaml"}]},
        "skipped_rules": ["r1"],
    }
    warnings = run_warnings(out, "a.yaml")
    assert len(warnings) == 4 and "semgrep did not scan a.yaml" in warnings
    assert run_warnings({"errors": [], "paths": {"scanned": ["/t/a.yaml"]}}, "a.yaml") == []


def test_kube_linter_stderr_warnings():
    stderr = "Warning: failed to load object from /t/a.yaml: bad\nError: found 2 lint errors\n"
    assert stderr_warnings(stderr) == [
        "kube-linter: Warning: failed to load object from /t/a.yaml: bad"
    ]
    assert stderr_warnings("No lint errors found!\n") == []


def test_tool_error_is_invalid(monkeypatch):
    monkeypatch.setattr(get_tool("opa"), "evaluate", lambda kind, data: 1 / 0)
    result = scan(k8s(with_metadata("  annotations: {tweak: '1'}\n")), cache=False)
    assert not result.valid and "opa error" in result.invalid_reasons[0]


# ------------------------------------------------------------------ YAML without one JSON reading
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('  finalizers: ["\\ud800"]\n', "lone surrogate"),
        ("  generation: .inf\n", "not a JSON number"),
        ("  generation: .nan\n", "not a JSON number"),
        ("  finalizers: [!!timestamp 2001-12-14]\n", "has no JSON form"),
        ("  finalizers: !!set {a, b}\n", "has no JSON form"),
        ("  finalizers: [!!binary aGVsbG8=]\n", "has no JSON form"),
        ("  annotations: !!omap [{a: b}]\n", "has no JSON form"),
        ("  annotations: {1: x}\n", "not a string"),
        ("  <<: {annotations: {a: b}}\n", "merge keys"),
        ("  annotations: {a: b, a: c}\n", "duplicate mapping key 'a'"),
        ("  finalizers: " + "[" * 1000 + "]" * 1000 + "\n", "nested more than"),
        ("  finalizers: " + "[" * 80 + "]" * 80 + "\n", "nested more than"),
        ("  x: !custom 1\n", "invalid YAML"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) else None,
)
def test_non_json_yaml_is_a_clear_error(extra, message):
    with pytest.raises(ConfigError, match=message):
        parse_k8s(with_metadata(extra, 1))
    assert_invalid_patch(with_metadata(extra, 1), message)


def test_alias_bomb_is_a_clear_error():
    bomb = "  finalizers: &a [x]\n  annotations:\n" + "".join(
        f"    k{i}: &a{i} [{', '.join(['*a' if i == 0 else f'*a{i - 1}'] * 10)}]\n"
        for i in range(7)
    )
    with pytest.raises(ConfigError, match="expands to more than"):
        parse_k8s(with_metadata(bomb))


# ------------------------------------------------------------------ adapter crashes
def test_adapter_exception_is_an_invalid_patch(monkeypatch, caplog):
    def boom(config: ConfigFile) -> ToolResult:
        raise TypeError("adapter bug")

    monkeypatch.setattr(get_tool("checkov"), "scan", boom)
    before = oracle.ADAPTER_FAILURES["checkov"]
    text = with_metadata("  annotations: {crash: 'yes'}\n")
    metrics, details = score(text)
    assert metrics["patch"] == pytest.approx(-AuditWeights().invalid_patch_penalty)
    assert metrics["scan_invalid"] == 1.0 and metrics["scan_error"] == 1.0
    assert "checkov error: adapter raised TypeError" in details["scan_invalid_reason"]
    assert oracle.ADAPTER_FAILURES["checkov"] == before + 1
    assert "checkov adapter raised" in caplog.text


def test_rescan_exception_is_logged_and_counted(monkeypatch, caplog):
    def boom(config: ConfigFile) -> None:
        raise RuntimeError("infrastructure down")

    monkeypatch.setattr(scoring, "scan", boom)
    metrics, details = score(case().base.text)
    assert metrics["scan_error"] == 1.0 and metrics["patch"] < 0
    assert "re-scan failed: RuntimeError" in details["scan_invalid_reason"]
    assert "re-scan of patched" in caplog.text
