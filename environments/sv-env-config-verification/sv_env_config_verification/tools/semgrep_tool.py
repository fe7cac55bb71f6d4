"""The project's semgrep rules (rules/semgrep/*.yml) via semgrep's fast path.

Semgrep lives in its own tool venv (its pins conflict with verifiers). Its bundled
`semgrep-core` binary, invoked through a symlink named `osemgrep`, runs
``osemgrep scan --experimental --metrics=off --disable-nosem --config RULES FILE --json``
(~0.1-0.2 s instead of ~2 s for the Python CLI). `--disable-nosem` stops a config from
silencing findings with `# nosemgrep` comments. The binary is found via `$SV_SEMGREP_HOME`
(a venv root), else `<repo>/.tools/semgrep`, else `osemgrep` / `semgrep-core` on PATH.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from functools import cached_property
from pathlib import Path
from typing import Any

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


def _repo_tool_dir() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / ".tools" / "semgrep"
        if candidate.is_dir():
            return candidate
    return None


def _core_in_venv(home: Path) -> Path | None:
    for core in sorted(home.glob("lib/python*/site-packages/semgrep/bin/semgrep-core")):
        if os.access(core, os.X_OK):
            return core
    return None


def _venv_version(core: Path) -> str | None:
    site = core.parents[2]
    for info in site.glob("semgrep-*.dist-info"):
        m = re.match(r"semgrep-(.+)\.dist-info$", info.name)
        if m:
            return m.group(1)
    return None


class SemgrepTool:
    """semgrep-core (OSS engine) with the project's own rules."""

    name = "semgrep"
    kinds = ("k8s", "terraform")

    def __init__(self, rules_dir: Path = RULES_DIR) -> None:
        self.rules_dir = rules_dir
        self._lock = threading.Lock()
        self._link: Path | None = None

    @cached_property
    def _locate(self) -> tuple[Path | None, str]:
        """(semgrep-core path, how it was found or why not)."""
        env = os.environ.get("SV_SEMGREP_HOME")
        if env:
            core = _core_in_venv(Path(env))
            return (
                (core, f"SV_SEMGREP_HOME={env}")
                if core
                else (None, f"SV_SEMGREP_HOME={env} holds no semgrep/bin/semgrep-core")
            )
        repo = _repo_tool_dir()
        if repo is not None and (core := _core_in_venv(repo)) is not None:
            return core, str(repo)
        for exe in ("osemgrep", "semgrep-core"):
            found = shutil.which(exe)
            if found:
                return Path(found), "PATH"
        where = f"{repo} has no semgrep-core; " if repo else ""
        return None, (
            f"semgrep not found: {where}set SV_SEMGREP_HOME to a venv with semgrep "
            "installed, or create <repo>/.tools/semgrep (pip install semgrep)"
        )

    def _osemgrep(self) -> Path:
        """A symlink named `osemgrep` to semgrep-core (the name selects the osemgrep CLI)."""
        core, _ = self._locate
        assert core is not None
        if core.name == "osemgrep":
            return core
        with self._lock:
            if self._link is None or not self._link.exists():
                tmp = tempfile.mkdtemp(prefix="sv-osemgrep-")
                atexit.register(shutil.rmtree, tmp, True)
                link = Path(tmp) / "osemgrep"
                link.symlink_to(core.resolve())
                self._link = link
            return self._link

    @cached_property
    def _rules_hash(self) -> str:
        return sha256_files(self.rules_dir.glob("*.yml"))

    def rules_hash(self) -> str:
        """sha256 of the rule files (read once per tool instance)."""
        return self._rules_hash

    @cached_property
    def _engine_version(self) -> str:
        core, _ = self._locate
        if core is None:
            return "unavailable"
        version = _venv_version(core.resolve())
        if version:
            return version
        try:
            out = subprocess.run(
                [str(core), "-version"], capture_output=True, text=True, timeout=30, check=False
            ).stdout
        except OSError:
            return "unknown"
        m = re.search(r"(\d+\.\d+\.\d+)", out)
        return m.group(1) if m else "unknown"

    def version(self) -> str:
        return f"semgrep {self._engine_version}; rules sha256:{self.rules_hash()[:16]}"

    def available(self) -> bool:
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        core, how = self._locate
        return None if core is not None else how

    def run_raw(self, rules: Path, target: Path) -> dict[str, Any]:
        """The JSON output of one osemgrep run (raises RuntimeError on failure)."""
        env = {**os.environ, "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
        cmd = [
            str(self._osemgrep()),
            "scan",
            "--experimental",
            "--metrics=off",
            "--disable-nosem",
            "-j",
            "1",
            "--config",
            str(rules),
            str(target),
            "--json",
        ]
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=env,
            cwd=target.parent,
            check=False,
        )
        try:
            out = json.loads(proc.stdout)
        except json.JSONDecodeError:
            tail = (proc.stderr or proc.stdout).strip()[-400:]
            raise RuntimeError(f"semgrep exited {proc.returncode} without JSON: {tail}") from None
        fatal = [e for e in out.get("errors", []) if e.get("level") == "error"]
        if fatal:
            raise RuntimeError(f"semgrep error: {fatal[0].get('message', fatal[0])}"[:400])
        return out

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
        return ToolResult(self.name, ordered, seconds=time.perf_counter() - start)
