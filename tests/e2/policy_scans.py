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
