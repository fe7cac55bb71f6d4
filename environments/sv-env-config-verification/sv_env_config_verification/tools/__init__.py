"""Tool adapters: each runs one real policy tool on an episode config.

Every adapter exposes `name`, `kinds` (config kinds it scans), `version()`, `rules_hash()`,
`available()` / `unavailable_reason()` and `scan(config) -> ToolResult`. Tools never see the
caller's paths: file-based tools get a private temp copy of the episode text.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..configs import ConfigFile, Kind


@dataclass(frozen=True)
class RawFinding:
    """One tool finding before mapping: the tool's own `rule_id`, canonical `resource`."""

    tool: str
    rule_id: str
    resource: str
    message: str = ""
    line: int | None = None


@dataclass
class ToolResult:
    """The outcome of one tool on one config."""

    tool: str
    findings: list[RawFinding] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    available: bool = True
    reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    """Parse warnings, skipped checks or objects, values the tool could not interpret."""
    scanned: list[str] | None = None
    """Canonical resources the tool evaluated (a multiset); None when the tool cannot tell."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolResult:
        findings = [RawFinding(**f) for f in data.get("findings", [])]
        return cls(**{**data, "findings": findings})


@runtime_checkable
class Tool(Protocol):
    name: str
    kinds: tuple[Kind, ...]

    def version(self) -> str: ...
    def rules_hash(self) -> str: ...
    def available(self) -> bool: ...
    def unavailable_reason(self) -> str | None: ...
    def scan(self, config: ConfigFile) -> ToolResult: ...


def sha256_files(paths: Iterable[Path]) -> str:
    """sha256 over (name, content) of `paths` in sorted order."""
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda p: p.name):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@contextmanager
def episode_copy(config: ConfigFile, text: str | None = None) -> Iterator[Path]:
    """A private temp dir holding only `config.name` with the episode text; removed after."""
    with tempfile.TemporaryDirectory(prefix="sv-e2-") as tmp:
        path = Path(tmp) / config.name  # name is validated as a plain file name
        if path.parent != Path(tmp):
            raise ValueError(f"unsafe config name {config.name!r}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(config.text if text is None else text)
        yield path


def unavailable(tool: str, reason: str) -> ToolResult:
    return ToolResult(tool=tool, available=False, reason=reason)


ADAPTER_REVISION = "2"
"""Bumped when an adapter's output changes for the same tool version (part of cache keys)."""
TOOL_NAMES = ("opa", "checkov", "semgrep", "kube-linter")
DEFAULT_TOOLS = ("opa", "checkov", "semgrep")


@cache
def get_tool(name: str) -> Tool:
    """The process-wide adapter for a tool name (see `TOOL_NAMES`)."""
    if name == "opa":
        from .opa import OpaTool

        return OpaTool()
    if name == "checkov":
        from .checkov_tool import CheckovTool

        return CheckovTool()
    if name == "semgrep":
        from .semgrep_tool import SemgrepTool

        return SemgrepTool()
    if name == "kube-linter":
        from .kubelinter import KubeLinterTool

        return KubeLinterTool()
    raise KeyError(f"unknown tool {name!r}; expected one of {TOOL_NAMES}")


__all__ = [
    "ADAPTER_REVISION",
    "DEFAULT_TOOLS",
    "TOOL_NAMES",
    "RawFinding",
    "Tool",
    "ToolResult",
    "episode_copy",
    "get_tool",
    "sha256_files",
    "unavailable",
]
