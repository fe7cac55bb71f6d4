"""KubeLinter adapter: runs a `kube-linter` binary from PATH when there is one.

KubeLinter cannot be installed offline (not on PyPI/apt/npm); without the binary this tool
reports ``available=False`` and never produces findings. With it, only the checks mapped in
`canonical.TOOL_RULES["kube-linter"]` run, on a temp copy of the manifest from which
`ignore-check.kube-linter.io/*` and `kube-linter.io/ignore-all` annotations are removed (a
config must not silence its own findings). kube-linter skips objects it cannot load with only
a line on stderr; those lines become ``warnings`` (the oracle then treats the scan as
incomplete). Its JSON lists no evaluated objects, so ``scanned`` stays unknown.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import time
from functools import cached_property
from typing import Any

import yaml

from ..canonical import TOOL_RULES
from ..configs import ConfigError, ConfigFile, parse_k8s
from . import RawFinding, ToolResult, episode_copy

TIMEOUT_S = 60
IGNORE_MARKERS = ("ignore-check.kube-linter.io/", "kube-linter.io/ignore-all")


def _strip_ignores(text: str) -> str:
    if not any(m in text for m in IGNORE_MARKERS):
        return text

    def scrub(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: scrub(v)
                for k, v in node.items()
                if not any(str(k).startswith(m) for m in IGNORE_MARKERS)
            }
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return yaml.safe_dump_all([scrub(o) for o in parse_k8s(text)], sort_keys=False)


def parse_report(data: dict[str, Any], tool: str = "kube-linter") -> list[RawFinding]:
    """Findings from `kube-linter lint --format json` output (Reports[].Check/Object/Diagnostic)."""
    findings = set()
    for rep in data.get("Reports") or []:
        obj = (rep.get("Object") or {}).get("K8sObject") or {}
        kind = (obj.get("GroupVersionKind") or {}).get("Kind", "?")
        message = str((rep.get("Diagnostic") or {}).get("Message", ""))
        findings.add(
            RawFinding(tool, str(rep.get("Check", "")), f"{kind}/{obj.get('Name', '?')}", message)
        )
    return sorted(findings, key=lambda f: (f.rule_id, f.resource, f.message))


class KubeLinterTool:
    """stackrox/kube-linter from PATH (optional)."""

    name = "kube-linter"
    kinds = ("k8s",)

    @cached_property
    def _binary(self) -> str | None:
        return shutil.which("kube-linter")

    def rules_hash(self) -> str:
        return hashlib.sha256("\n".join(sorted(TOOL_RULES[self.name])).encode()).hexdigest()

    @cached_property
    def _version(self) -> str:
        if not self._binary:
            return "unavailable"
        try:
            out = subprocess.run(
                [self._binary, "version"], capture_output=True, text=True, timeout=30, check=False
            ).stdout
        except OSError:
            return "unknown"
        m = re.search(r"v?(\d+\.\d+\.\d+\S*)", out)
        return m.group(1) if m else (out.strip() or "unknown")

    def version(self) -> str:
        return f"kube-linter {self._version}"

    def available(self) -> bool:
        return self._binary is not None

    def unavailable_reason(self) -> str | None:
        return None if self._binary else "kube-linter not found on PATH"

    def scan(self, config: ConfigFile) -> ToolResult:
        start = time.perf_counter()
        if not self._binary:
            return ToolResult(self.name, available=False, reason="kube-linter not found on PATH")
        if config.kind != "k8s":
            return ToolResult(self.name, error="kube-linter scans Kubernetes manifests only")
        checks = ",".join(sorted(TOOL_RULES[self.name]))
        try:
            text = _strip_ignores(config.text)
            with episode_copy(config, text) as path:
                proc = subprocess.run(
                    [
                        self._binary,
                        "lint",
                        "--format",
                        "json",
                        "--do-not-auto-add-defaults",
                        "--include",
                        checks,
                        str(path),
                    ],
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                    check=False,
                )
            data = json.loads(proc.stdout)
        except ConfigError as exc:
            return ToolResult(
                self.name, error=f"invalid config: {exc}", seconds=time.perf_counter() - start
            )
        except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
            return ToolResult(
                self.name,
                error=f"kube-linter failed: {exc}"[:400],
                seconds=time.perf_counter() - start,
            )
        except Exception as exc:  # an input the adapter cannot handle: report, never crash
            return ToolResult(
                self.name,
                error=f"kube-linter adapter failed: {type(exc).__name__}: {exc}"[:400],
                seconds=time.perf_counter() - start,
            )
        return ToolResult(
            self.name,
            parse_report(data, self.name),
            seconds=time.perf_counter() - start,
            warnings=stderr_warnings(proc.stderr),
        )


_SUMMARY_RE = re.compile(r"^(Error: )?(found \d+ lint errors?|no lint errors found!?)$", re.I)


def stderr_warnings(stderr: str | None) -> list[str]:
    """kube-linter's stderr lines other than its lint summary: it reports objects it could not
    load ("Warning: failed to load object from ...") only there, and skips them."""
    lines = (line.strip() for line in (stderr or "").splitlines())
    return [f"kube-linter: {line[:200]}" for line in lines if line and not _SUMMARY_RE.match(line)]
