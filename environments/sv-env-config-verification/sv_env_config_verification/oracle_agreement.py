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

(c) Third-party suites with labelled pass/fail resources (``--suite NAME PATH``): trivy-checks
    good/bad examples (``examples.jsonl``), Kyverno CLI tests (``kyverno-test.yaml``),
    Kubescape regolibrary rule tests (``rules/<rule>/test/<case>/``) and checkov's Kubernetes
    check examples (a checkov checkout). Their checks that mean a catalogue id are mapped in
    ``third_party``; every case of a mapped check is scored or listed out of scope with the
    reason (``agreement``); per-check agreement and the uncovered checks are printed.

This module is the command; the agreement metrics and the suite scoring are `agreement`.

Usage: python -m sv_env_config_verification.oracle_agreement [GATEKEEPER_CHECKOUT]
       [--realdata DIR] [--no-terraform] [--json OUT]
       python -m sv_env_config_verification.oracle_agreement --suite {gatekeeper,terraform,
       trivy,kyverno,regolibrary,checkov-k8s} [PATH] [--json OUT]
(default checkout: <realdata>/E2_config_verification/gatekeeper-library; ``--suite terraform``
takes a labels CSV, a checkov checkout or the realdata folder; ``--suite trivy`` defaults to
<realdata>/E2_config_verification/trivy_checks_examples)
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

from sv_env_config_verification.agreement import Row, metrics, report, score
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
from sv_env_config_verification.suites import (
    SuiteError,
    checkov_k8s_cases,
    checkov_tf_labels,
    kyverno_cases,
    regolibrary_cases,
    trivy_cases,
)
from sv_env_config_verification.tools import get_tool

# <repository>/environments/sv-env-config-verification/sv_env_config_verification/ -> ../shared
DEFAULT_REALDATA = Path(__file__).resolve().parents[3].parent / "shared" / "realdata"
E2 = "E2_config_verification"
TF_LABELS = Path(E2) / "checkov" / "terraform_labels.csv"


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


LABEL_COLUMNS = ("check_id", "example_dir", "resource", "expected")


def read_labels(path: Path) -> tuple[list[dict[str, str]], Path]:
    """(label rows, folder their example_dir is relative to) from a labels CSV, a checkov
    checkout (``suites.checkov_tf_labels``) or a realdata folder holding `TF_LABELS`."""
    if path.is_dir() and (path / "tests" / "terraform" / "checks").is_dir():
        return checkov_tf_labels(path), path
    file = path / TF_LABELS if path.is_dir() else path
    try:
        with file.open(newline="", encoding="utf-8") as fh:
            labels = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SuiteError(f"{file}: cannot read the labels CSV: {exc}") from None
    missing = [c for c in LABEL_COLUMNS if labels and c not in labels[0]]
    if missing or not labels:
        raise SuiteError(f"{file}: not a checkov labels CSV (needs columns {list(LABEL_COLUMNS)})")
    return labels, file.parent


def checkov_rows(
    root: Path,
    cache: ScanCache,
    cross_tool: bool = True,
    labels: list[dict[str, str]] | None = None,
    base: Path | None = None,
) -> dict[str, Any]:
    """Oracle rows (mapped checks), adapter rows (all checks) and cross-tool tallies, for the
    label rows given (default: `TF_LABELS` under `root`)."""
    if labels is None or base is None:
        labels, base = read_labels(root)
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
        "label_checks": sorted({rec["check_id"] for rec in labels}),
        "mapped_label_rows": sum(rec["check_id"] in mapped for rec in labels),
        "rows": len(labels),
    }


def print_checkov(ck: dict[str, Any], source: Path) -> dict[str, Any]:
    """Print part (b) for one set of label rows; returns its JSON tables."""
    print(
        f"\n(b) checkov Terraform labels ({source}): {ck['rows']} rows of "
        f"{len(ck['label_checks'])} checks in {ck['files']} files; "
        f"{len(ck['unlocated'])} label rows whose resource was not found in a parsable file"
    )
    if not ck["mapped_label_rows"]:
        print(
            f"  none of the {len(ck['label_checks'])} check ids of these labels is mapped in "
            f"TOOL_RULES['checkov'] ({len(TOOL_RULES['checkov'])} ids), so the oracle has no "
            "row to compare; pass a checkov checkout (--suite terraform CHECKOUT) for the mapped "
            "checks' own example folders"
        )
    out = {
        "checkov_oracle": print_table(
            "(b) oracle vs checkov labels, rows whose check id is mapped", ck["oracle"]
        ),
        "checkov_adapter": print_table(
            "(b') checkov adapter (in-process, temp copy) vs checkov's expected results",
            ck["adapter"],
        ),
    }
    print_consistency("checkov's Terraform example files", ck["consistency"])
    if ck["errors"]:
        print("\ntool errors:")
        for e in ck["errors"]:
            print("  " + e)
    out["errors"] = ck["errors"]
    out["unlocated"] = len(ck["unlocated"])
    out["mapped_label_rows"] = ck["mapped_label_rows"]
    return out


def print_versions() -> None:
    tools = ("opa", "checkov", "semgrep", "kube-linter")
    versions = {
        t: get_tool(t).version() if get_tool(t).available() else "unavailable" for t in tools
    }
    print("tools:", json.dumps(versions))


def run(checkout: Path, realdata: Path, terraform: bool = True) -> dict[str, Any]:
    """Part (a) on a Gatekeeper checkout, then part (b) on the realdata labels."""
    suite_paths(checkout)  # a bad checkout fails before any tool loads
    cache = ScanCache()
    start = time.perf_counter()
    print_versions()
    gk = gatekeeper_rows(checkout, cache)
    out: dict[str, Any] = {"gatekeeper": print_gatekeeper(checkout, gk)}
    print_consistency("Gatekeeper objects of in-scope cases", gk.consistency)
    labels = realdata / TF_LABELS
    if not terraform:
        print("\n(b) Terraform part skipped")
    elif not labels.is_file():
        print(f"\n(b) Terraform part skipped: no checkov labels file at {labels}")
    else:
        out.update(print_checkov(checkov_rows(realdata, cache), labels))
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(f"\ndone in {out['seconds']} s")
    return out


def run_terraform(path: Path) -> dict[str, Any]:
    """Part (b) alone on a labels CSV, a checkov checkout or a realdata folder."""
    labels, base = read_labels(path)
    print_versions()
    return print_checkov(checkov_rows(path, ScanCache(), labels=labels, base=base), path)


READERS = {
    "trivy": trivy_cases,
    "kyverno": kyverno_cases,
    "regolibrary": regolibrary_cases,
    "checkov-k8s": checkov_k8s_cases,
}
SUITES = ("gatekeeper", "terraform", *READERS)


def _progress(suite: str, every_s: float = 10.0) -> Any:
    last = [time.monotonic()]

    def tick(i: int, n: int) -> None:
        now = time.monotonic()
        if i == n or now - last[0] >= every_s:
            last[0] = now
            print(f"  [{suite}] case {i}/{n}", file=sys.stderr, flush=True)

    return tick


def run_suite(suite: str, path: Path) -> dict[str, Any]:
    """Part (c): one third-party suite, read (errors before any tool loads), then scored."""
    cases = READERS[suite](path)
    start = time.perf_counter()
    print_versions()
    print(f"{suite}: {len(cases)} cases read from {path}")
    res = score(cases, ScanCache(), progress=_progress(suite))
    lines, tables = report(res, f"(c) {suite} ({path})")
    print("\n".join(lines))
    tables["seconds"] = round(time.perf_counter() - start, 1)
    print(f"\ndone in {tables['seconds']} s")
    return tables


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="Gatekeeper library checkout; with --suite, that suite's folder or file",
    )
    ap.add_argument("--suite", choices=SUITES, help="score this suite alone")
    ap.add_argument("--realdata", type=Path, default=DEFAULT_REALDATA)
    ap.add_argument("--no-terraform", action="store_true", help="skip part (b)")
    ap.add_argument("--json", type=Path, help="write the tables as JSON here")
    args = ap.parse_args(argv)
    suite, path = args.suite, args.path
    if suite in ("kyverno", "regolibrary", "checkov-k8s") and path is None:
        ap.error(f"--suite {suite} needs PATH")
    try:
        if suite in READERS:
            out = run_suite(suite, path or args.realdata / E2 / "trivy_checks_examples")
        elif suite == "terraform":
            out = run_terraform(path or args.realdata)
        else:
            checkout = path or args.realdata / E2 / "gatekeeper-library"
            terraform = suite is None and not args.no_terraform
            out = run(checkout, args.realdata, terraform=terraform)
    except (GatekeeperError, SuiteError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        try:
            args.json.write_text(json.dumps(out, indent=2, default=str))
        except OSError as exc:
            print(f"error: {args.json}: cannot write: {exc.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
