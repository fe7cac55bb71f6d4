#!/usr/bin/env python
"""Agreement of the E2 oracle with externally labeled real cases (../shared/realdata).

(a) OPA Gatekeeper library test cases (gatekeeper-library/cases_index.csv): for the policies
    whose meaning overlaps a canonical id (table `GATEKEEPER` below, with the constraint
    parameters required for the overlap), "the oracle reports that id on the object" is compared
    with the label violation / no_violation. `strict` policies test the same property as our
    id; `partial` ones also fail for reasons outside our id (over-limit values, exemptions).
(b) Checkov's own Terraform examples (checkov/terraform_labels.csv): rows whose check id is
    mapped in TOOL_RULES["checkov"] compare the oracle's canonical finding with the label.
    Every row also checks the checkov *adapter* (in-process, temp copy, fresh runner) against
    checkov's expected PASSED/FAILED, and every file is scanned by all tools to count
    per-id agreement between the tools (cross-tool consistency).

Usage: python scripts/e2_oracle_agreement.py [--realdata DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sv_env_config_verification.canonical import CATALOGUE, TOOL_RULES
from sv_env_config_verification.configs import (
    ConfigError,
    ConfigFile,
    k8s_resource,
    parse_k8s,
    parse_terraform,
    terraform_spans,
)
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.tools import get_tool

DEFAULT_REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
E2 = "E2_config_verification"


def _limits_cpu_and_memory(params: dict[str, Any]) -> bool:
    return {"cpu", "memory"} <= set(params.get("limits") or [])


def _both_limits_enforced(params: dict[str, Any]) -> bool:
    return all(str(params.get(k, "-1")) != "-1" for k in ("cpu", "memory"))


def _latest_disallowed(params: dict[str, Any]) -> bool:
    return "latest" in (params.get("tags") or [])


# policy dir -> (canonical id, comparability, constraint-parameter condition, note)
GATEKEEPER = {
    "library/general/containerresources": (
        "k8s/missing-resource-limits",
        "strict",
        _limits_cpu_and_memory,
        "K8sRequiredResources with limits [cpu, memory] (it also requires the listed requests)",
    ),
    "library/general/containerlimits": (
        "k8s/missing-resource-limits",
        "partial",
        _both_limits_enforced,
        "K8sContainerLimits also fails limits above the constraint's maximum",
    ),
    "library/general/disallowedtags": (
        "k8s/image-latest-tag",
        "partial",
        _latest_disallowed,
        "K8sDisallowedTags with 'latest' (its exemptImages parameter has no counterpart)",
    ),
}


@dataclass
class Row:
    group: str
    case: str
    expected: bool  # violation / FAILED
    predicted: bool
    detail: str = ""


def metrics(rows: list[Row]) -> dict[str, Any]:
    tp = sum(r.expected and r.predicted for r in rows)
    tn = sum(not r.expected and not r.predicted for r in rows)
    fp = sum(not r.expected and r.predicted for r in rows)
    fn = sum(r.expected and not r.predicted for r in rows)
    n = len(rows)
    return {
        "n": n,
        "tp": tp,
        "tn": tn,
        "fp": fp,
        "fn": fn,
        "accuracy": (tp + tn) / n if n else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
    }


def _fmt(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def print_table(title: str, rows: list[Row]) -> dict[str, Any]:
    print(f"\n== {title}")
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        groups[r.group].append(r)
    for g in sorted(groups):
        m = metrics(groups[g])
        print(f"  {g:<60} n={m['n']:<4} agree={m['tp'] + m['tn']:<4} acc={_fmt(m['accuracy'])}")
    m = metrics(rows)
    print(
        f"  overall: n={m['n']} accuracy={_fmt(m['accuracy'])} precision={_fmt(m['precision'])} "
        f"recall={_fmt(m['recall'])} (tp={m['tp']} tn={m['tn']} fp={m['fp']} fn={m['fn']})"
    )
    bad = [r for r in rows if r.expected != r.predicted]
    if bad:
        print("  disagreements:")
        for r in bad:
            print(
                f"    [{r.group}] {r.case}: label={'violation' if r.expected else 'ok'} "
                f"predicted={'violation' if r.predicted else 'ok'} {r.detail}"
            )
    return m


def gatekeeper_rows(root: Path, cache: ScanCache) -> tuple[list[Row], list[Row]]:
    """(all mapped rows, strict rows) for the Gatekeeper cases."""
    base = root / E2 / "gatekeeper-library"
    rows: list[Row] = []
    strict: list[Row] = []
    with (base / "cases_index.csv").open(newline="") as fh:
        for rec in csv.DictReader(fh):
            spec = GATEKEEPER.get(rec["policy"])
            if spec is None or not rec["object"]:
                continue
            vid, level, condition, _ = spec
            constraint = yaml.safe_load((base / rec["constraint"]).read_text())
            if not condition((constraint.get("spec") or {}).get("parameters") or {}):
                continue
            text = (base / rec["object"]).read_text()
            name = Path(rec["object"]).name
            config = ConfigFile("k8s", name if name.endswith((".yaml", ".yml")) else "o.yaml", text)
            resources = {k8s_resource(o) for o in parse_k8s(text)}
            result = scan(config, cache=cache)
            hits = [f for f in result.findings if f.id == vid and f.resource in resources]
            row = Row(
                f"{rec['policy'].rsplit('/', 1)[-1]} -> {vid} ({level})",
                f"{rec['test']}/{rec['case']}",
                rec["label"] == "violation",
                bool(hits),
                f"tools={sorted({t for f in hits for t in f.tools})}",
            )
            rows.append(row)
            if level == "strict":
                strict.append(row)
    return rows, strict


def tally(consistency: dict[str, Counter[str]], result: Any) -> None:
    """Count, per canonical id, which tool combination reported each oracle finding."""
    for f in result.findings:
        consistency[f.id]["+".join(f.tools)] += 1


def print_consistency(title: str, consistency: dict[str, Counter[str]]) -> None:
    print(f"\n== cross-tool consistency: {title} (oracle findings per id, by reporting tools)")
    for vid in sorted(consistency):
        mapped = "+".join(t for t in ("checkov", "opa", "semgrep") if vid in TOOL_RULES[t].values())
        print(
            f"  {vid:<32} {CATALOGUE[vid].severity:<5} mapped by {mapped:<20} "
            f"reported by: {dict(sorted(consistency[vid].items()))}"
        )


def gatekeeper_consistency(root: Path, cache: ScanCache) -> dict[str, Counter[str]]:
    """Scan every Gatekeeper test object (all policies) with all tools."""
    base = root / E2 / "gatekeeper-library"
    consistency: dict[str, Counter[str]] = defaultdict(Counter)
    objects = sorted(
        {
            rec["object"]
            for rec in csv.DictReader((base / "cases_index.csv").open())
            if rec["object"]
        }
    )
    for obj in objects:
        try:
            config = ConfigFile("k8s", "object.yaml", (base / obj).read_text())
            tally(consistency, scan(config, cache=cache))
        except ConfigError as exc:
            print(f"  skipped {obj}: {exc}")
    return consistency


def _tf_file_for(example: Path, resource: str) -> tuple[Path, str] | None:
    for path in sorted(example.glob("*.tf")):
        try:
            spans = terraform_spans(parse_terraform(path.read_text()))
        except ConfigError:
            continue
        names = {addr for _, _, addr in spans}
        for candidate in (resource, f"data.{resource}"):
            if candidate in names:
                return path, candidate
    return None


def checkov_rows(root: Path, cache: ScanCache, cross_tool: bool = True) -> dict[str, Any]:
    """Oracle rows (mapped checks), adapter rows (all checks) and cross-tool tallies."""
    base = root / E2 / "checkov"
    labels = list(csv.DictReader((base / "terraform_labels.csv").open(newline="")))
    mapped = TOOL_RULES["checkov"]
    by_file: dict[Path, list[tuple[dict[str, str], str]]] = defaultdict(list)
    unlocated = []
    for rec in labels:
        found = _tf_file_for(base / rec["example_dir"], rec["resource"])
        if found is None:
            unlocated.append(rec)
            continue
        by_file[found[0]].append((rec, found[1]))
    checkov = get_tool("checkov")
    oracle_rows: list[Row] = []
    adapter_rows: list[Row] = []
    consistency: dict[str, Counter[str]] = defaultdict(Counter)
    errors: list[str] = []
    for path, recs in sorted(by_file.items()):
        config = ConfigFile("terraform", path.name, path.read_text())
        checks = sorted({rec["check_id"] for rec, _ in recs})
        raw = checkov.scan(config, checks=checks)
        if raw.error:
            errors.append(f"{path.relative_to(base)}: {raw.error}")
        failed = {(f.rule_id, f.resource) for f in raw.findings}
        result = None
        if cross_tool or any(rec["check_id"] in mapped for rec, _ in recs):
            result = scan(config, cache=cache)
            errors.extend(f"{path.relative_to(base)}: {t}: {e}" for t, e in result.errors.items())
            tally(consistency, result)
        for rec, resource in recs:
            expected = rec["expected"] == "FAILED"
            case = f"{rec['example_dir'].rsplit('/', 1)[-1]} {rec['check_id']} {resource}"
            adapter_rows.append(
                Row(rec["check_id"], case, expected, (rec["check_id"], resource) in failed)
            )
            if rec["check_id"] in mapped and result is not None:
                vid = mapped[rec["check_id"]]
                hit = [f for f in result.findings if f.id == vid and f.resource == resource]
                oracle_rows.append(
                    Row(
                        f"{rec['check_id']} -> {vid}",
                        case,
                        expected,
                        bool(hit),
                        f"tools={sorted({t for f in hit for t in f.tools})}",
                    )
                )
    return {
        "oracle": oracle_rows,
        "adapter": adapter_rows,
        "consistency": consistency,
        "unlocated": unlocated,
        "errors": errors,
        "files": len(by_file),
    }


def run(root: Path) -> dict[str, Any]:
    if not (root / E2).is_dir():
        raise FileNotFoundError(f"no {E2} under {root}")
    cache = ScanCache()
    start = time.perf_counter()
    print(f"realdata: {root}")
    tools = ("opa", "checkov", "semgrep")
    versions = {
        t: get_tool(t).version() if get_tool(t).available() else "unavailable" for t in tools
    }
    print("tools:", json.dumps(versions))
    gk_all, gk_strict = gatekeeper_rows(root, cache)
    out: dict[str, Any] = {
        "gatekeeper_all": print_table("(a) Gatekeeper cases, all mapped", gk_all)
    }
    out["gatekeeper_strict"] = metrics(gk_strict)
    print(f"  strict policies only: {json.dumps(out['gatekeeper_strict'])}")
    ck = checkov_rows(root, cache)
    print(
        f"\n(b) checkov Terraform labels: {ck['files']} files; "
        f"{len(ck['unlocated'])} label rows whose resource was not found in a parsable file"
    )
    out["checkov_oracle"] = print_table(
        "(b) oracle vs checkov labels, rows whose check id is mapped", ck["oracle"]
    )
    out["checkov_adapter"] = print_table(
        "(b') checkov adapter (in-process, temp copy) vs checkov's expected results", ck["adapter"]
    )
    print_consistency("checkov's Terraform example files", ck["consistency"])
    print_consistency(
        "Gatekeeper test objects (all 130 cases' objects)", gatekeeper_consistency(root, cache)
    )
    if ck["errors"]:
        print("\ntool errors:")
        for e in ck["errors"]:
            print("  " + e)
    out["errors"] = ck["errors"]
    out["unlocated"] = len(ck["unlocated"])
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(f"\ndone in {out['seconds']} s")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--realdata", type=Path, default=DEFAULT_REALDATA)
    ap.add_argument("--json", type=Path, help="write the metrics as JSON here")
    args = ap.parse_args(argv)
    try:
        out = run(args.realdata)
    except FileNotFoundError as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
