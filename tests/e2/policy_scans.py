"""Shared by the policy-pack tests: one scan per (tool, config) per session, mapped findings."""

from __future__ import annotations

from functools import cache

import pytest

from sv_env_config_verification.canonical import TOOL_RULES
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools import ToolResult, get_tool


@cache
def scan_once(kind: str, name: str, tool_name: str, text: str) -> ToolResult:
    """One scan per (tool, config) per test session (tests share violating cases)."""
    return get_tool(tool_name).scan(ConfigFile(kind, name, text))


def mapped_findings(kind: str, name: str, tool_name: str, text: str) -> set[tuple[str, str]]:
    """(canonical id, resource) pairs a tool reports; fails if a project-installed tool is
    missing, since its tests must run it."""
    tool = get_tool(tool_name)
    if not tool.available():
        pytest.fail(
            f"{tool_name} is installed by make setup but unavailable: {tool.unavailable_reason()}"
        )
    result = scan_once(kind, name, tool_name, text)
    assert result.error is None, result.error
    mapping = TOOL_RULES[tool_name]
    return {(mapping[f.rule_id], f.resource) for f in result.findings if f.rule_id in mapping}


def check_violating(kind: str, name: str, tool: str, case: tuple) -> None:
    """A violating case is caught by every tool it lists; the Rego pack catches every case."""
    label, vid, resource, text, tools = case
    found = (vid, resource) in mapped_findings(kind, name, tool, text)
    if tool in tools:
        assert found, f"{tool} missed {vid} on {resource} ({label})"
    elif tool == "opa":
        pytest.fail("every case must be caught by the Rego pack")


def check_compliant(kind: str, name: str, tool: str, case: tuple) -> None:
    label, vid, resource, text = case
    assert (vid, resource) not in mapped_findings(kind, name, tool, text), (
        f"{tool} flags {vid} ({label})"
    )


def check_mapped_rules_fire(kind: str, name: str, prefix: str, violating: list) -> None:
    """Each mapped checkov check / semgrep rule fires on at least one violating case."""
    for tool in ("checkov", "semgrep"):
        mapped_findings(kind, name, tool, violating[0][3])  # fails if the tool is missing
        fired: set[str] = set()
        for case in violating:
            fired |= {f.rule_id for f in scan_once(kind, name, tool, case[3]).findings}
        expected = {r for r, cid in TOOL_RULES[tool].items() if cid.startswith(prefix)}
        assert expected <= fired, f"{tool} rules never fired: {sorted(expected - fired)}"
