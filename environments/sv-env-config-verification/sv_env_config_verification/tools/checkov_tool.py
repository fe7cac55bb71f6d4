"""Checkov run in-process on a private temp copy of the episode file.

Checkov is imported once per process (~2-3 s) and set to parse sequentially (its default
forks worker processes, unsafe in the threads that score episodes). A *fresh* runner is built
for every scan: a reused `checkov` runner keeps the definitions of its first run and silently
returns stale results for later files (measured with checkov 3.3.30); building one costs
~0.1 ms. Only the checks mapped in `canonical.TOOL_RULES["checkov"]` run
(RunnerFilter(checks=...)) unless `checks` is given. In-file suppressions are disabled:
Terraform skip comments are not collected and Kubernetes `checkov.io/skip*` (also
bridgecrew.io/cortex.io) annotations are removed from the copy checkov sees, so a config
cannot silence its own findings.

Checkov drops what it cannot read without an error: a file with Helm template syntax
(``{{ .Values.x }}``, even in a comment), an object with a ``name`` key holding ``#``, ``{``
or ``}`` anywhere, YAML it cannot load. The result therefore lists the resources checkov
actually evaluated (``scanned``) and any skipped check (``warnings``); the oracle compares
them with the project's own parse.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import threading
import time
from collections.abc import Sequence
from functools import cache, cached_property
from typing import Any

import yaml

from ..canonical import TOOL_RULES
from ..configs import (
    ConfigError,
    ConfigFile,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
)
from . import RawFinding, ToolResult, episode_copy

FRAMEWORK = {"k8s": "kubernetes", "terraform": "terraform"}
SKIP_MARKERS = ("checkov.io/skip", "bridgecrew.io/skip", "cortex.io/skip")
_LOCK = threading.Lock()


@cache
def _checkov() -> dict[str, Any]:
    """Import checkov once per process; its runner classes and the ids of data-source checks."""
    logging.getLogger("checkov").setLevel(logging.ERROR)
    from checkov.common.models.enums import ParallelizationType
    from checkov.common.parallelizer.parallel_runner import parallel_runner
    from checkov.kubernetes.runner import Runner as K8sRunner
    from checkov.runner_filter import RunnerFilter
    from checkov.terraform.checks.data.registry import data_registry
    from checkov.terraform.runner import Runner as TfRunner

    # One file per scan: checkov's default is to *fork* worker processes to parse it, which
    # in a multi-threaded process (scoring runs in worker threads) can fork while another
    # thread holds a lock and deadlock the child. Sequential parsing gives the same results.
    parallel_runner.type = ParallelizationType.NONE
    data_ids = frozenset(c.id for checks in data_registry.checks.values() for c in checks)
    data_types = {t: frozenset(c.id for c in checks) for t, checks in data_registry.checks.items()}
    return {
        "k8s": K8sRunner,
        "terraform": TfRunner,
        "filter": RunnerFilter,
        "data": data_ids,
        "data_types": data_types,
    }


def checkov_resource(kind: str, check_id: str, resource: str, data_ids: frozenset[str]) -> str:
    """Canonical resource from checkov's: 'Kind.namespace.name' -> 'Kind/name'; data.* prefix."""
    if kind == "k8s":
        parts = resource.split(".", 2)
        return f"{parts[0]}/{parts[2]}" if len(parts) == 3 else resource
    resource = resource.split("[", 1)[0]
    if check_id in data_ids and not resource.startswith("data."):
        return f"data.{resource}"
    return resource


def terraform_addresses(text: str) -> list[str]:
    """Addresses of the resource and data blocks of a Terraform file (the project's parser)."""
    return [r["address"] for r in normalise_terraform(parse_terraform(text))["resources"]]


def _strip_skip_annotations(text: str) -> str:
    """The manifest without checkov skip annotations (re-serialised only when some exist)."""
    if not any(m in text for m in SKIP_MARKERS):
        return text

    def scrub(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: scrub(v) for k, v in node.items() if not any(m in str(k) for m in SKIP_MARKERS)
            }
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return yaml.safe_dump_all([scrub(o) for o in parse_k8s(text)], sort_keys=False)


class CheckovTool:
    """checkov 3 (kubernetes and terraform frameworks), in-process."""

    name = "checkov"
    kinds = ("k8s", "terraform")

    def __init__(self, checks: Sequence[str] | None = None) -> None:
        self.checks = tuple(sorted(checks if checks is not None else TOOL_RULES["checkov"]))

    def rules_hash(self) -> str:
        return hashlib.sha256("\n".join(self.checks).encode()).hexdigest()

    @cached_property
    def _version(self) -> str:
        return f"checkov {importlib.metadata.version('checkov')}"

    def version(self) -> str:
        return self._version

    def available(self) -> bool:
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        try:
            importlib.metadata.version("checkov")
        except importlib.metadata.PackageNotFoundError:
            return "checkov is not installed"
        return None

    def _checks_for(self, kind: str) -> list[str]:
        return [c for c in self.checks if c.startswith("CKV_K8S_") == (kind == "k8s")]

    def scan(self, config: ConfigFile, checks: Sequence[str] | None = None) -> ToolResult:
        """Run checkov on a temp copy of `config`; `checks` overrides the mapped check ids."""
        start = time.perf_counter()
        selected = list(checks) if checks is not None else self._checks_for(config.kind)
        if not selected:
            return ToolResult(self.name, seconds=time.perf_counter() - start)
        try:
            text = _strip_skip_annotations(config.text) if config.kind == "k8s" else None
            ck = _checkov()
            framework = FRAMEWORK[config.kind]
            with episode_copy(config, text) as path, _LOCK:
                runner = ck[config.kind]()  # fresh runner: reused ones return stale results
                report = runner.run(
                    root_folder=None,
                    files=[str(path)],
                    collect_skip_comments=False,
                    runner_filter=ck["filter"](framework=[framework], checks=selected),
                )
        except ConfigError as exc:
            return ToolResult(
                self.name, error=f"invalid config: {exc}", seconds=time.perf_counter() - start
            )
        except Exception as exc:  # checkov internals: report, never crash the oracle
            return ToolResult(
                self.name,
                error=f"checkov failed: {type(exc).__name__}: {exc}",
                seconds=time.perf_counter() - start,
            )
        reports = report if isinstance(report, list) else [report]
        report = next((r for r in reports if r.check_type == framework), reports[0])
        if report.parsing_errors:
            return ToolResult(
                self.name,
                error=f"checkov could not parse {config.name}",
                seconds=time.perf_counter() - start,
            )
        try:
            scanned = evaluated(config, report, selected, ck)
        except Exception as exc:  # same contract as above
            return ToolResult(
                self.name,
                error=f"checkov report unreadable: {type(exc).__name__}: {exc}"[:400],
                seconds=time.perf_counter() - start,
            )
        findings = sorted(
            {
                RawFinding(
                    self.name,
                    r.check_id,
                    checkov_resource(config.kind, r.check_id, r.resource, ck["data"]),
                    r.check_name or "",
                    (r.file_line_range or [None])[0],
                )
                for r in report.failed_checks
            },
            key=lambda f: (f.rule_id, f.resource),
        )
        return ToolResult(
            self.name,
            findings,
            seconds=time.perf_counter() - start,
            warnings=[
                f"checkov skipped {r.check_id} on {r.resource} (suppressed)"
                for r in report.skipped_checks
            ],
            scanned=scanned,
        )


def evaluated(config: ConfigFile, report: Any, selected: Sequence[str], ck: dict) -> list[str]:
    """Canonical resources checkov evaluated: the entities of its report (Kubernetes objects,
    managed Terraform resources), data sources with a check result, and data sources that no
    selected check applies to (nothing to evaluate there, so they are not skipped)."""
    ids = {r.split(":", 1)[1] if ":" in r else r for r in report.resources}
    if config.kind == "k8s":
        return sorted(checkov_resource("k8s", "", r, ck["data"]) for r in ids)
    results = [*report.passed_checks, *report.failed_checks, *report.skipped_checks]
    data = {
        checkov_resource("terraform", r.check_id, r.resource, ck["data"])
        for r in results
        if r.check_id in ck["data"]
    }
    wanted = set(selected)
    for address in terraform_addresses(config.text):
        rtype = address.split(".")[1] if address.startswith("data.") else ""
        if rtype and not ck["data_types"].get(rtype, frozenset()) & wanted:
            data.add(address)
    return sorted({r.split("[", 1)[0] for r in ids} | data)
