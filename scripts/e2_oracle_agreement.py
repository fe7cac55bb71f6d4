#!/usr/bin/env python
"""Agreement of the E2 oracle with externally labeled real cases.

(a) The OPA Gatekeeper library's own test suites: pass a checkout (its public layout,
    ``library/<group>/<policy>/suite.yaml`` with constraints and example objects). Every policy
    whose meaning the catalogue covers (``gatekeeper.POLICIES``: the ``general`` resource-limit
    and image-tag policies and the ``pod-security-policy`` ones) is compared case by case: "the
    oracle reports one of the mapped ids on the case's objects" versus the suite's expected
    violation. ``exemptImages`` are honoured for container-level policies (the episode is the
    object without its exempted containers); cases whose label could hinge on something
    episodes do not model (pod-level exemptions, other constraint parameters, AdmissionReview
    UPDATE requests) are out of scope: counted and listed with the reason, never scored (for
    reference only, the agreement on all mapped cases, scoring the raw object, is printed too).
    Printed: agreement per policy, overall agreement on in-scope cases, out-of-scope cases and
    uncovered policies.
(b) Checkov's own Terraform examples (``<realdata>/E2_config_verification/checkov/
    terraform_labels.csv``; skipped with a notice when absent): rows whose check id is mapped in
    TOOL_RULES["checkov"] compare the oracle's canonical finding with the label; every row also
    checks the checkov adapter against checkov's expected PASSED/FAILED, and every file is
    scanned by all tools to count per-id agreement between the tools.

Usage: python scripts/e2_oracle_agreement.py [GATEKEEPER_CHECKOUT] [--realdata DIR]
       [--no-terraform] [--json OUT]
(default checkout: <realdata>/E2_config_verification/gatekeeper-library)
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
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
from sv_env_config_verification.gatekeeper import (
    POLICIES,
    Assessment,
    Case,
    GatekeeperError,
    PolicyMap,
    assess,
    load_cases,
    suite_paths,
)
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.tools import get_tool

DEFAULT_REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
E2 = "E2_config_verification"
TF_LABELS = Path(E2) / "checkov" / "terraform_labels.csv"


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


def _disagreements(rows: list[Row]) -> None:
    bad = [r for r in rows if r.expected != r.predicted]
    if bad:
        print("  disagreements:")
        for r in bad:
            print(
                f"    [{r.group}] {r.case}: label={'violation' if r.expected else 'ok'} "
                f"predicted={'violation' if r.predicted else 'ok'} {r.detail}"
            )


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
    _disagreements(rows)
    return m


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


# ------------------------------------------------------------------------------ (a) Gatekeeper
@dataclass
class GatekeeperResult:
    rows: list[Row] = field(default_factory=list)  # in-scope cases of covered policies
    out_of_scope: list[tuple[str, str, str]] = field(default_factory=list)  # policy, case, why
    raw_rows: list[Row] = field(default_factory=list)  # every mapped case, raw object, no scope
    uncovered: dict[str, int] = field(default_factory=dict)  # policy -> cases
    consistency: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))


def predict(
    case: Case, mapping: PolicyMap, cache: ScanCache, episode: Assessment | None = None
) -> tuple[Row, Any]:
    """(row, scan result or None): does the oracle report a mapped id on the case's objects?
    The episode is the object file, or `episode.objects` when exemptions removed containers."""
    assert case.obj is not None and case.expected is not None
    label = f"{case.test}/{case.name}"
    try:
        if episode is not None and episode.objects is not None:
            text = yaml.safe_dump_all(episode.objects, sort_keys=False)
            label += f" ({episode.exempted} exempt container(s) removed)"
        else:
            text = case.obj.read_text(encoding="utf-8")
        resources = {k8s_resource(o) for o in parse_k8s(text)}
        scanned = scan(ConfigFile("k8s", "object.yaml", text), cache=cache)
    except (ConfigError, OSError) as exc:
        return Row(case.policy, label, case.expected, False, f"config error: {exc}"), None
    hits = [f for f in scanned.findings if f.id in mapping.ids and f.resource in resources]
    tools = sorted({t for f in hits for t in f.tools})
    errors = "; ".join(f"{t}: {e}" for t, e in scanned.errors.items())
    detail = f"tools={tools}" + (f" errors: {errors}" if errors else "")
    return Row(case.policy, label, case.expected, bool(hits), detail), scanned


def gatekeeper_rows(checkout: Path, cache: ScanCache) -> GatekeeperResult:
    """Score every in-scope case of the covered policies of a checkout."""
    result = GatekeeperResult()
    for case in load_cases(checkout):
        mapping = POLICIES.get(case.policy)
        if mapping is None:
            result.uncovered[case.policy] = result.uncovered.get(case.policy, 0) + 1
            continue
        if case.expected is not None and case.obj is not None and case.obj.is_file():
            result.raw_rows.append(predict(case, mapping, cache)[0])
        episode = assess(case, mapping)
        if episode.reason is not None:
            result.out_of_scope.append((case.policy, f"{case.test}/{case.name}", episode.reason))
            continue
        row, scanned = predict(case, mapping, cache, episode)
        if scanned is not None:
            tally(result.consistency, scanned)
        result.rows.append(row)
    return result


def print_gatekeeper(checkout: Path, res: GatekeeperResult) -> dict[str, Any]:
    print(f"\n== (a) Gatekeeper library cases ({checkout})")
    print(f"  {'policy':<48} {'ids':<44} {'cases':>5} {'agree':>5} {'%':>6} {'out':>4}")
    by_policy: dict[str, list[Row]] = defaultdict(list)
    for r in res.rows:
        by_policy[r.group].append(r)
    out = Counter(p for p, _, _ in res.out_of_scope)
    per_policy = {}
    for policy in sorted(set(by_policy) | set(out)):
        rows = by_policy.get(policy, [])
        agree = sum(r.expected == r.predicted for r in rows)
        pct = f"{100 * agree / len(rows):.1f}" if rows else "n/a"
        ids = ",".join(POLICIES[policy].ids)
        print(f"  {policy:<48} {ids:<44} {len(rows):>5} {agree:>5} {pct:>6} {out[policy]:>4}")
        per_policy[policy] = {"cases": len(rows), "agree": agree, "out_of_scope": out[policy]}
    m = metrics(res.rows)
    agree = m["tp"] + m["tn"]
    pct = f"{100 * m['accuracy']:.1f}%" if m["accuracy"] is not None else "n/a"
    print(
        f"  overall on covered in-scope cases: {agree}/{m['n']} = {pct} "
        f"(tp={m['tp']} tn={m['tn']} fp={m['fp']} fn={m['fn']}); "
        f"{len(res.out_of_scope)} case(s) out of scope"
    )
    _disagreements(res.rows)
    raw = metrics(res.raw_rows)
    if raw["n"]:
        print(
            f"  for reference only, every mapped case scored on its raw object (no scope, no "
            f"exemptions): {raw['tp'] + raw['tn']}/{raw['n']} = {100 * raw['accuracy']:.1f}%"
        )
    if res.out_of_scope:
        print("  out of scope (not scored):")
        for policy, case, why in res.out_of_scope:
            print(f"    [{policy}] {case}: {why}")
    print(f"  uncovered policies ({len(res.uncovered)}; no canonical id):")
    for policy, n in sorted(res.uncovered.items()):
        print(f"    {policy} ({n} cases)")
    return {
        "metrics": m,
        "raw_metrics": raw,
        "per_policy": per_policy,
        "out_of_scope": [list(x) for x in res.out_of_scope],
        "uncovered": res.uncovered,
    }


# ------------------------------------------------------------------------------ (b) Terraform
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
    base = (root / TF_LABELS).parent
    labels = list(csv.DictReader((root / TF_LABELS).open(newline="")))
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


def run(checkout: Path, realdata: Path, terraform: bool = True) -> dict[str, Any]:
    suite_paths(checkout)  # a bad checkout fails before any tool loads
    cache = ScanCache()
    start = time.perf_counter()
    tools = ("opa", "checkov", "semgrep")
    versions = {
        t: get_tool(t).version() if get_tool(t).available() else "unavailable" for t in tools
    }
    print("tools:", json.dumps(versions))
    gk = gatekeeper_rows(checkout, cache)
    out: dict[str, Any] = {"gatekeeper": print_gatekeeper(checkout, gk)}
    print_consistency("Gatekeeper objects of in-scope cases", gk.consistency)
    labels = realdata / TF_LABELS
    if not terraform:
        print("\n(b) Terraform part skipped (--no-terraform)")
    elif not labels.is_file():
        print(f"\n(b) Terraform part skipped: no checkov labels file at {labels}")
    else:
        ck = checkov_rows(realdata, cache)
        print(
            f"\n(b) checkov Terraform labels: {ck['files']} files; "
            f"{len(ck['unlocated'])} label rows whose resource was not found in a parsable file"
        )
        out["checkov_oracle"] = print_table(
            "(b) oracle vs checkov labels, rows whose check id is mapped", ck["oracle"]
        )
        out["checkov_adapter"] = print_table(
            "(b') checkov adapter (in-process, temp copy) vs checkov's expected results",
            ck["adapter"],
        )
        print_consistency("checkov's Terraform example files", ck["consistency"])
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
    ap.add_argument("checkout", nargs="?", type=Path, help="Gatekeeper library checkout")
    ap.add_argument("--realdata", type=Path, default=DEFAULT_REALDATA)
    ap.add_argument("--no-terraform", action="store_true", help="skip part (b)")
    ap.add_argument("--json", type=Path, help="write the metrics as JSON here")
    args = ap.parse_args(argv)
    checkout = args.checkout or args.realdata / E2 / "gatekeeper-library"
    try:
        out = run(checkout, args.realdata, terraform=not args.no_terraform)
    except GatekeeperError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
