"""The oracle: the de-duplicated union of mapped findings of several real tools.

Each tool's raw rule ids are mapped to canonical ids (`canonical.TOOL_RULES`); findings are
keyed by ``(id, resource)`` and carry the tools that reported them. Rule ids without a mapping
are kept in `ScanResult.unmapped` and never reach the oracle. Per-tool results are cached by
(tool, version, rules hash, kind, content hash), so re-scanning an unchanged config runs no tool.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .canonical import CATALOGUE, SEVERITY_WEIGHT, canonical_id
from .configs import ConfigFile, parse
from .scan_cache import ScanCache, cache_key
from .tools import DEFAULT_TOOLS, RawFinding, Tool, ToolResult, get_tool

DEFAULT_CACHE = ScanCache()


@dataclass(frozen=True, order=True)
class Finding:
    """One canonical violation on one resource, with the tools that reported it."""

    id: str
    severity: str
    resource: str
    tools: tuple[str, ...]

    @property
    def weight(self) -> int:
        return SEVERITY_WEIGHT[self.severity]


@dataclass(frozen=True)
class ToolRun:
    """How one tool fared on one config."""

    tool: str
    version: str
    available: bool
    reason: str | None = None
    error: str | None = None
    seconds: float = 0.0
    cached: bool = False
    raw_findings: int = 0


@dataclass
class ScanResult:
    """Oracle findings (sorted, unique per (id, resource)) plus per-tool details."""

    kind: str
    content_hash: str
    findings: tuple[Finding, ...]
    unmapped: tuple[RawFinding, ...] = ()
    per_tool: dict[str, ToolRun] = field(default_factory=dict)

    def tool_versions(self) -> dict[str, str]:
        return {
            name: run.version if run.available else f"unavailable: {run.reason}"
            for name, run in self.per_tool.items()
        }

    @property
    def errors(self) -> dict[str, str]:
        return {n: r.error for n, r in self.per_tool.items() if r.error is not None}

    @property
    def missing_tools(self) -> list[str]:
        return [n for n, r in self.per_tool.items() if not r.available]

    @property
    def ok(self) -> bool:
        """True when every available tool ran without error."""
        return not self.errors

    def ids(self) -> set[str]:
        return {f.id for f in self.findings}

    def keys(self) -> set[tuple[str, str]]:
        return {(f.id, f.resource) for f in self.findings}

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "content_hash": self.content_hash,
            "findings": [asdict(f) for f in self.findings],
            "unmapped": [asdict(f) for f in self.unmapped],
            "per_tool": {n: asdict(r) for n, r in self.per_tool.items()},
        }


def merge(
    kind: str, results: Mapping[str, ToolResult]
) -> tuple[tuple[Finding, ...], tuple[RawFinding, ...]]:
    """Union of mapped findings, de-duplicated by (id, resource); unmapped raw findings."""
    reporters: dict[tuple[str, str], set[str]] = {}
    unmapped: set[RawFinding] = set()
    for name, result in results.items():
        for raw in result.findings:
            cid = canonical_id(name, raw.rule_id)
            if cid is None or CATALOGUE[cid].kind != kind:
                unmapped.add(raw)
                continue
            reporters.setdefault((cid, raw.resource), set()).add(name)
    findings = tuple(
        sorted(
            Finding(cid, CATALOGUE[cid].severity, res, tuple(sorted(tools)))
            for (cid, res), tools in reporters.items()
        )
    )
    ordered = tuple(sorted(unmapped, key=lambda f: (f.tool, f.rule_id, f.resource, f.message)))
    return findings, ordered


_VALID: OrderedDict[tuple[str, str], None] = OrderedDict()


def _validate(config: ConfigFile) -> None:
    """Parse `config` (raises ConfigError); remembers recently valid contents."""
    key = (config.kind, config.content_hash)
    if key in _VALID:
        _VALID.move_to_end(key)
        return
    parse(config)
    _VALID[key] = None
    while len(_VALID) > 4096:
        _VALID.popitem(last=False)


def _resolve_tools(tools: Iterable[str | Tool]) -> list[Tool]:
    return [get_tool(t) if isinstance(t, str) else t for t in tools]


def run_tool(tool: Tool, config: ConfigFile, cache: ScanCache | None) -> tuple[ToolResult, bool]:
    """(result, served from cache) for one tool on one config."""
    if not tool.available():
        return ToolResult(tool.name, available=False, reason=tool.unavailable_reason()), False
    key = None
    if cache is not None:
        key = cache_key(
            tool.name, tool.version(), tool.rules_hash(), config.kind, config.content_hash
        )
        hit = cache.get(key)
        if hit is not None:
            return hit, True
    result = tool.scan(config)
    if cache is not None and key is not None:
        cache.put(key, result)
    return result, False


def scan(
    config: ConfigFile,
    tools: Sequence[str | Tool] = DEFAULT_TOOLS,
    cache: ScanCache | Literal[False] | None = None,
) -> ScanResult:
    """Run `tools` on `config` and return the oracle's findings.

    `cache=None` uses the process-wide `DEFAULT_CACHE`; `False` disables caching. Raises
    `ConfigError` if the config does not parse (no tool runs then). Tools that do not scan
    this kind are skipped; unavailable tools are listed in `per_tool` (see `missing_tools`).
    """
    _validate(config)
    store = DEFAULT_CACHE if cache is None else (None if cache is False else cache)
    results: dict[str, ToolResult] = {}
    runs: dict[str, ToolRun] = {}
    for tool in _resolve_tools(tools):
        if config.kind not in tool.kinds:
            continue
        result, cached = run_tool(tool, config, store)
        results[tool.name] = result
        runs[tool.name] = ToolRun(
            tool.name,
            tool.version() if result.available else "unavailable",
            result.available,
            result.reason,
            result.error,
            0.0 if cached else result.seconds,
            cached,
            len(result.findings),
        )
    findings, unmapped = merge(config.kind, results)
    return ScanResult(config.kind, config.content_hash, findings, unmapped, runs)


def tool_versions(tools: Sequence[str | Tool] = DEFAULT_TOOLS) -> dict[str, str]:
    """Tool versions (with rules hashes) for run metadata; unavailable tools say why."""
    return {
        t.name: t.version() if t.available() else f"unavailable: {t.unavailable_reason()}"
        for t in _resolve_tools(tools)
    }
