"""The tools the auditing model may call. Each reads only the episode's own config.

The episode is injected by the environment (hidden from the model's tool schema); the model
names the file, and any other name — `../../etc/passwd`, an absolute path — is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from sv_env_config_verification.canonical import TOOL_RULES
from sv_env_config_verification.configs import ConfigError, ConfigFile
from sv_env_config_verification.tools import get_tool

MAX_TOOL_FINDINGS = 50
EPISODE_ARG = "episode"


def _run(tool_name: str, file: str, episode: Mapping[str, Any]) -> str:
    if file != episode["name"]:
        return json.dumps({"error": f"only the file under audit, '{episode['name']}', can be "
                           f"scanned; '{file}' is not available"})  # fmt: skip
    tool = get_tool(tool_name)
    if not tool.available():
        return json.dumps({"tool": tool_name, "available": False,
                           "reason": tool.unavailable_reason()})  # fmt: skip
    try:
        config = ConfigFile(kind=episode["kind"], name=episode["name"], text=episode["text"])
    except ConfigError as exc:
        return json.dumps({"error": str(exc)})
    if config.kind not in tool.kinds:
        return json.dumps({"tool": tool_name, "error": f"{tool_name} does not scan {config.kind}"})
    result = tool.scan(config)
    mapping = TOOL_RULES.get(tool_name, {})
    findings = [
        {
            "rule": f.rule_id,
            "canonical_id": mapping.get(f.rule_id),
            "resource": f.resource,
            "line": f.line,
            "message": f.message[:200],
        }
        for f in result.findings[:MAX_TOOL_FINDINGS]
    ]
    return json.dumps(
        {"tool": tool_name, "version": tool.version(), "error": result.error,
         "findings": findings, "truncated": len(result.findings) > MAX_TOOL_FINDINGS}
    )  # fmt: skip


def run_opa(file: str, episode: dict) -> str:
    """Evaluate the project's Rego policy pack on the file under audit.

    Args:
        file: The name of the file under audit, exactly as shown in the task.
    """
    return _run("opa", file, episode)


def run_checkov(file: str, episode: dict) -> str:
    """Run checkov's Kubernetes / Terraform checks on the file under audit.

    Args:
        file: The name of the file under audit, exactly as shown in the task.
    """
    return _run("checkov", file, episode)


def run_semgrep(file: str, episode: dict) -> str:
    """Run the project's semgrep rules for YAML / Terraform on the file under audit.

    Args:
        file: The name of the file under audit, exactly as shown in the task.
    """
    return _run("semgrep", file, episode)


def run_kubelinter(file: str, episode: dict) -> str:
    """Run kube-linter on the file under audit (reports unavailable when not installed).

    Args:
        file: The name of the file under audit, exactly as shown in the task.
    """
    return _run("kube-linter", file, episode)


MODEL_TOOLS: tuple[Callable[..., str], ...] = (run_opa, run_checkov, run_semgrep, run_kubelinter)
