"""The oracle: the de-duplicated union of mapped findings of several real tools.

Each tool's raw rule ids are mapped to canonical ids (`canonical.TOOL_RULES`); findings are
keyed by ``(id, resource)`` and carry the tools that reported them. Rule ids without a mapping
are kept in `ScanResult.unmapped` and never reach the oracle. Per-tool results are cached by
(tool, version, adapter revision, rules hash, kind, content hash), so re-scanning an unchanged
config runs no tool.

Scan validity: a scan counts (`ScanResult.valid`) only when every available tool parsed and
evaluated every object of the file. Any tool error, any warning (a parse warning, a skipped
check or object, a value the tool could not interpret) and any object or resource of the
project's own parse that a tool did not evaluate (compared as multisets of canonical resource
names) is listed in `ScanResult.invalid_reasons`. A tool adapter that raises is reported as
that tool's error (logged, counted in `ADAPTER_FAILURES`), never as "no findings".

Disagreement: the oracle is the union, so a finding from any tool stands. A tool that has a
rule mapped to a finding's id, evaluated the resource and still did not report it is recorded
in its `ToolRun.silent` (``"<id> <resource>"``); that does not invalidate the scan — a tool
that did not evaluate the resource does (above).
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .canonical import CATALOGUE, SEVERITY_WEIGHT, TOOL_RULES, canonical_id
from .configs import ConfigFile, k8s_resource, normalise_terraform, parse
from .scan_cache import ScanCache, cache_key
from .tools import ADAPTER_REVISION, DEFAULT_TOOLS, RawFinding, Tool, ToolResult, get_tool

DEFAULT_CACHE = ScanCache()
ADAPTER_FAILURES: Counter[str] = Counter()
"""Per tool: how often its adapter raised in this process (our bug, reported as a tool error)."""
log = logging.getLogger(__name__)


class _NeverHits(ScanCache):
    """A scan cache that stores results but never returns one."""

    def get(self, key: str) -> None:  # type: ignore[override]
        return None


def disable_scan_cache() -> None:
    """Make the process-wide `DEFAULT_CACHE` never hit, so every scan really runs the tools
    (the spec's `cold_caches` hook: the bench's cold runs measure real re-scans)."""
    global DEFAULT_CACHE
    DEFAULT_CACHE = _NeverHits()


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
    warnings: tuple[str, ...] = ()
    unscanned: tuple[str, ...] = ()
    """Resources of the project's parse this tool did not evaluate."""
    silent: tuple[str, ...] = ()
    """Oracle findings ("<id> <resource>") this tool has a rule for but did not report."""


@dataclass
class ScanResult:
    """Oracle findings (sorted, unique per (id, resource)) plus per-tool details."""

    kind: str
    content_hash: str
    findings: tuple[Finding, ...]
    unmapped: tuple[RawFinding, ...] = ()
    per_tool: dict[str, ToolRun] = field(default_factory=dict)
    invalid_reasons: tuple[str, ...] = ()

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

    @property
    def valid(self) -> bool:
        """True when every available tool parsed and evaluated every object (module doc)."""
        return not self.invalid_reasons

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
            "invalid_reasons": list(self.invalid_reasons),
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


def expected_resources(config: ConfigFile) -> list[str]:
    """Canonical names of every object (k8s) / resource and data block (Terraform) of the
    project's own parse: what each tool must have evaluated."""
    parsed = parse(config)
    if config.kind == "k8s":
        return [k8s_resource(o) for o in parsed]  # type: ignore[arg-type]
    return [r["address"] for r in normalise_terraform(parsed)["resources"]]  # type: ignore[arg-type]


def _silent(name: str, result: ToolResult, findings: Sequence[Finding]) -> tuple[str, ...]:
    mapped = set(TOOL_RULES.get(name, {}).values())
    scanned = set(result.scanned or ())
    return tuple(
        f"{f.id} {f.resource}"
        for f in findings
        if f.id in mapped and name not in f.tools and f.resource in scanned
    )


def validity(
    expected: Sequence[str], results: Mapping[str, ToolResult]
) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """(reasons the scan is invalid, per tool the expected resources it did not evaluate)."""
    reasons: list[str] = []
    unscanned: dict[str, tuple[str, ...]] = {}
    for name, result in results.items():
        if not result.available:
            continue
        if result.error is not None:
            reasons.append(f"{name} error: {result.error}")
            continue
        reasons += [f"{name} warning: {w}" for w in result.warnings]
        if result.scanned is not None:
            missing = Counter(expected) - Counter(result.scanned)
            unscanned[name] = tuple(sorted(missing.elements()))
            if missing:
                reasons.append(f"{name} did not evaluate {', '.join(unscanned[name][:5])}")
    return reasons, unscanned


def _resolve_tools(tools: Iterable[str | Tool]) -> list[Tool]:
    return [get_tool(t) if isinstance(t, str) else t for t in tools]


def run_tool(tool: Tool, config: ConfigFile, cache: ScanCache | None) -> tuple[ToolResult, bool]:
    """(result, served from cache) for one tool on one config."""
    if not tool.available():
        return ToolResult(tool.name, available=False, reason=tool.unavailable_reason()), False
    key = None
    if cache is not None:
        version = f"{tool.version()}; adapter {ADAPTER_REVISION}"
        key = cache_key(tool.name, version, tool.rules_hash(), config.kind, config.content_hash)
        hit = cache.get(key)
        if hit is not None:
            return hit, True
    try:
        result = tool.scan(config)
    except Exception as exc:  # an adapter bug: visible (logged, counted), never "no findings"
        ADAPTER_FAILURES[tool.name] += 1
        log.exception("%s adapter raised on %s", tool.name, config.name)
        return ToolResult(
            tool.name, error=f"adapter raised {type(exc).__name__}: {exc}"[:400]
        ), False
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
    Whether every tool evaluated every object is in `invalid_reasons` (module docstring).
    """
    _validate(config)
    expected = expected_resources(config)
    store = DEFAULT_CACHE if cache is None else (None if cache is False else cache)
    results: dict[str, ToolResult] = {}
    cached: dict[str, bool] = {}
    resolved = {t.name: t for t in _resolve_tools(tools) if config.kind in t.kinds}
    for name, tool in resolved.items():
        results[name], cached[name] = run_tool(tool, config, store)
    findings, unmapped = merge(config.kind, results)
    reasons, unscanned = validity(expected, results)
    runs = {
        name: ToolRun(
            name,
            resolved[name].version() if result.available else "unavailable",
            result.available,
            result.reason,
            result.error,
            0.0 if cached[name] else result.seconds,
            cached[name],
            len(result.findings),
            tuple(result.warnings),
            unscanned.get(name, ()),
            _silent(name, result, findings) if result.error is None else (),
        )
        for name, result in results.items()
    }
    return ScanResult(config.kind, config.content_hash, findings, unmapped, runs, tuple(reasons))


def tool_versions(tools: Sequence[str | Tool] = DEFAULT_TOOLS) -> dict[str, str]:
    """Tool versions (with rules hashes) for run metadata; unavailable tools say why."""
    return {
        t.name: t.version() if t.available() else f"unavailable: {t.unavailable_reason()}"
        for t in _resolve_tools(tools)
    }
