"""Semgrep's fast path, shared by every environment that scans with semgrep rules.

Semgrep lives in its own tool venv (its pins conflict with verifiers). Its bundled
`semgrep-core` binary, invoked through a symlink named `osemgrep`, runs
``osemgrep scan --experimental --metrics=off --disable-nosem --config RULES TARGET --json``
(~0.1-0.2 s instead of ~2 s for the Python CLI). `--disable-nosem` stops scanned code from
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
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

TIMEOUT_S = 60


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


class SemgrepEngine:
    """Locates semgrep-core and runs it on one target with local rule files only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._link: Path | None = None

    @cached_property
    def located(self) -> tuple[Path | None, str]:
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

    @property
    def site_packages(self) -> Path | None:
        """The tool venv's site-packages (where companion rule packages are installed)."""
        core, _ = self.located
        if core is None or core.resolve().parent.name != "bin":
            return None
        return core.resolve().parents[2]

    def unavailable_reason(self) -> str | None:
        core, how = self.located
        return None if core is not None else how

    @cached_property
    def version(self) -> str:
        core, _ = self.located
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

    def _osemgrep(self) -> Path:
        """A symlink named `osemgrep` to semgrep-core (the name selects the osemgrep CLI)."""
        core, how = self.located
        if core is None:
            raise RuntimeError(how)
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

    def run(self, rules: Path | Sequence[Path], target: Path) -> dict[str, Any]:
        """The JSON output of one osemgrep run (raises RuntimeError on failure)."""
        configs = [rules] if isinstance(rules, Path) else list(rules)
        env = {**os.environ, "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
        cmd = [str(self._osemgrep()), "scan", "--experimental", "--metrics=off", "--disable-nosem"]
        cmd += ["-j", "1"]
        for config in configs:
            cmd += ["--config", str(config)]
        cmd += [str(target), "--json"]
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


_ENGINE: SemgrepEngine | None = None


def engine() -> SemgrepEngine:
    """The process-wide engine."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = SemgrepEngine()
    return _ENGINE
