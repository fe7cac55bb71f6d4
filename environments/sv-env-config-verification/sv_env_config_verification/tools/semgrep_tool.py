"""The project's semgrep rules (rules/semgrep/*.yml) via semgrep's fast path
(`sv_shared.semgrep`: semgrep-core in the tool venv, invoked as osemgrep).

Semgrep parses the file itself; when it cannot (a parse error is only a *warning* in its JSON
`errors`, with no results) or skips the target or a rule, `run_warnings` reports it, and the
oracle then treats the scan as incomplete. Findings are attributed to the object / resource
whose lines hold them (`configs.resource_spans`), so ``scanned`` lists those resources.
"""

from __future__ import annotations

import subprocess
import time
from functools import cached_property
from pathlib import Path
from typing import Any

from sv_shared.semgrep import SemgrepEngine

from ..canonical import TOOL_RULES
from ..configs import ConfigError, ConfigFile, resource_at, resource_spans
from . import RawFinding, ToolResult, episode_copy, sha256_files

RULES_DIR = Path(__file__).resolve().parent.parent / "rules" / "semgrep"
RULE_FILES = {"k8s": "kubernetes.yml", "terraform": "terraform.yml"}
TIMEOUT_S = 60
WORKLOADS = frozenset(
    {
        "Pod",
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "ReplicationController",
        "Job",
        "CronJob",
    }
)
# Object kinds each canonical k8s id applies to (a match in another kind is dropped).
APPLIES_TO = {
    "k8s/rbac-wildcard": frozenset({"Role", "ClusterRole"}),
    "k8s/cluster-admin-binding": frozenset({"ClusterRoleBinding", "RoleBinding"}),
}


class SemgrepTool:
    """semgrep-core (OSS engine) with the project's own rules."""

    name = "semgrep"
    kinds = ("k8s", "terraform")

    def __init__(self, rules_dir: Path = RULES_DIR) -> None:
        self.rules_dir = rules_dir
        self.engine = SemgrepEngine()

    @cached_property
    def _rules_hash(self) -> str:
        return sha256_files(self.rules_dir.glob("*.yml"))

    def rules_hash(self) -> str:
        """sha256 of the rule files (read once per tool instance)."""
        return self._rules_hash

    def version(self) -> str:
        return f"semgrep {self.engine.version}; rules sha256:{self.rules_hash()[:16]}"

    def available(self) -> bool:
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        return self.engine.unavailable_reason()

    def run_raw(self, rules: Path, target: Path) -> dict[str, Any]:
        """The JSON output of one osemgrep run (raises RuntimeError on failure)."""
        return self.engine.run(rules, target)

    def scan(self, config: ConfigFile) -> ToolResult:
        start = time.perf_counter()
        reason = self.unavailable_reason()
        if reason:
            return ToolResult(self.name, available=False, reason=reason)
        try:
            spans = resource_spans(config)
            with episode_copy(config) as path:
                out = self.run_raw(self.rules_dir / RULE_FILES[config.kind], path)
        except ConfigError as exc:
            return ToolResult(
                self.name, error=f"invalid config: {exc}", seconds=time.perf_counter() - start
            )
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            return ToolResult(self.name, error=str(exc), seconds=time.perf_counter() - start)
        except Exception as exc:  # an input the adapter cannot handle: report, never crash
            return ToolResult(
                self.name,
                error=f"semgrep adapter failed: {type(exc).__name__}: {exc}"[:400],
                seconds=time.perf_counter() - start,
            )
        mapping = TOOL_RULES["semgrep"]
        findings = set()
        for r in out.get("results", []):
            rule_id = str(r.get("check_id", "")).rsplit(".", 1)[-1]
            line = int(r.get("start", {}).get("line", 0))
            resource = resource_at(spans, line)
            if resource is None:
                continue
            canonical = mapping.get(rule_id)
            if config.kind == "k8s" and canonical is not None:
                kinds = APPLIES_TO.get(canonical, WORKLOADS)
                if resource.split("/", 1)[0] not in kinds:
                    continue
            message = str(r.get("extra", {}).get("message", ""))
            findings.add(RawFinding(self.name, rule_id, resource, message, line))
        ordered = sorted(findings, key=lambda f: (f.rule_id, f.resource, f.line or 0))
        return ToolResult(
            self.name,
            ordered,
            seconds=time.perf_counter() - start,
            warnings=run_warnings(out, config.name),
            scanned=[res for _, _, res in spans],
        )


def run_warnings(out: dict[str, Any], name: str) -> list[str]:
    """What semgrep reports besides results: non-fatal errors (parse warnings, timeouts),
    skipped paths or rules, and a target that is not among the scanned paths."""
    warnings = [
        f"semgrep {e.get('level', '?')}: {e.get('type', '?')}: {str(e.get('message', ''))[:200]}"
        for e in out.get("errors") or []
    ]
    paths = out.get("paths") or {}
    warnings += [f"semgrep skipped {p.get('path', p)}" for p in paths.get("skipped") or []]
    warnings += [f"semgrep skipped rule {r}" for r in out.get("skipped_rules") or []]
    if not any(Path(str(p)).name == name for p in paths.get("scanned") or []):
        warnings.append(f"semgrep did not scan {name}")
    return warnings
