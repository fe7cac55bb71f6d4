"""Agreement of the oracle with the labelled cases of a third-party suite (`suites.Case`).

`score` scans every in-scope case of a mapped check with the oracle, which *agrees* when it
reports one of the mapped ids (on the labelled resources, or anywhere in the episode when the
label is about the whole snippet) exactly when the suite says the check fails. A case is out of
scope, listed with its reason and never scored, when the reader said so (snippet format, no
suite verdict, resource not found), when the episode does not parse, when
`third_party.scope_reason` finds that the verdict depends on something the ids do not model, or
when the oracle's scan is invalid (`ScanResult.valid` false; its reasons are kept). `report`
renders per-check agreement, the out-of-scope reasons with counts and the uncovered checks.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .configs import ConfigError, ConfigFile, k8s_resource, normalise_terraform, parse_k8s
from .configs import parse_terraform as _parse_tf
from .oracle import ScanResult, scan
from .scan_cache import ScanCache
from .suites import Case
from .third_party import scope_reason

GOAL_AGREEMENT = 0.95
GOAL_IN_SCOPE = 0.60
Scanner = Callable[..., ScanResult]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Row:
    """One scored case: the suite's label (`expected` violation) and the oracle's verdict."""

    group: str
    case: str
    expected: bool
    predicted: bool
    detail: str = ""


@dataclass
class SuiteResult:
    """Scored rows, out-of-scope cases (check, case, reason) and uncovered checks (cases)."""

    suite: str
    rows: list[Row] = field(default_factory=list)
    out_of_scope: list[tuple[str, str, str]] = field(default_factory=list)
    uncovered: Counter[str] = field(default_factory=Counter)
    ids: dict[str, tuple[str, ...]] = field(default_factory=dict)
    no_kind: int = 0
    """Cases of mapped checks in a format that is no episode kind (e.g. CloudFormation)."""


def metrics(rows: list[Row]) -> dict[str, Any]:
    """Confusion counts, accuracy, precision and recall of `rows` (None when undefined)."""
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


def _episode(case: Case) -> tuple[ConfigFile, list[Any], list[Any]]:
    """(config, objects the label is about, all objects); raises ConfigError."""
    if case.kind == "k8s":
        config = ConfigFile("k8s", "object.yaml", case.text)
        every: list[Any] = parse_k8s(config.text)
        keyed = [(k8s_resource(o), o) for o in every]
    else:
        config = ConfigFile("terraform", "main.tf", case.text)
        every = normalise_terraform(_parse_tf(config.text))["resources"]
        keyed = [(r["address"], r) for r in every]
    chosen = [o for name, o in keyed if case.resources is None or name in case.resources]
    return config, chosen, every


def _detail(result: ScanResult, ids: tuple[str, ...], resources: tuple[str, ...] | None) -> str:
    hits = [
        f"{f.id} on {f.resource} by {'+'.join(f.tools)}"
        for f in result.findings
        if f.id in ids and (resources is None or f.resource in resources)
    ]
    return "reported: " + ("; ".join(hits) if hits else f"none of {', '.join(ids)}")


def score(
    cases: Iterable[Case],
    cache: ScanCache | None = None,
    scanner: Scanner = scan,
    progress: Progress | None = None,
) -> SuiteResult:
    """Score every mapped case of one suite (module docstring)."""
    cases = list(cases)
    res = SuiteResult(cases[0].suite if cases else "")
    todo = []
    for case in cases:
        if case.mapping is None:
            res.uncovered[case.check] += 1
        else:
            res.ids[case.check] = case.mapping.ids
            res.no_kind += case.kind is None
            todo.append(case)
    for i, case in enumerate(todo, 1):
        if progress is not None:
            progress(i, len(todo))
        why = _judge(case, cache, scanner, res)
        if why is not None:
            res.out_of_scope.append((case.check, case.name, why))
    return res


def _judge(case: Case, cache: ScanCache | None, scanner: Scanner, res: SuiteResult) -> str | None:
    """Append the case's row to `res`, or return why it is out of scope."""
    assert case.mapping is not None
    if case.reason is not None:
        return case.reason
    if case.expected is None:
        return "the suite gives no verdict"
    try:
        config, chosen, every = _episode(case)
    except ConfigError as exc:
        return f"does not parse: {exc}"
    if case.resources is not None and not chosen:
        return "the labelled resource is not an object of the episode"
    why = scope_reason(case.mapping, chosen, case.fields, context=every)
    if why is not None:
        return why
    try:
        result = scanner(config, cache=cache)
    except ConfigError as exc:
        return f"does not parse: {exc}"
    if not result.valid:
        return "oracle scan invalid: " + "; ".join(result.invalid_reasons)[:400]
    ids = case.mapping.ids
    hit = any(
        f.id in ids and (case.resources is None or f.resource in case.resources)
        for f in result.findings
    )
    res.rows.append(
        Row(case.check, case.name, case.expected, hit, _detail(result, ids, case.resources))
    )
    return None


def category(reason: str) -> str:
    """The kind of an out-of-scope reason (its text before the first detail)."""
    if "; at " in reason:
        return reason.split("; at ", 1)[0]
    return re.split(r" \(|: ", reason, maxsplit=1)[0]


def summary(res: SuiteResult) -> dict[str, Any]:
    """The suite's tables as JSON-ready data."""
    by_check: dict[str, list[Row]] = defaultdict(list)
    for r in res.rows:
        by_check[r.group].append(r)
    out = Counter(c for c, _, _ in res.out_of_scope)
    per_check = {}
    for check in sorted(res.ids):
        rows = by_check.get(check, [])
        agree = sum(r.expected == r.predicted for r in rows)
        per_check[check] = {
            "ids": list(res.ids[check]),
            "cases": len(rows),
            "agree": agree,
            "agreement": agree / len(rows) if rows else None,
            "out_of_scope": out[check],
        }
    m = metrics(res.rows)
    mapped = m["n"] + len(res.out_of_scope)
    in_scope = m["n"] / mapped if mapped else None
    episodes = mapped - res.no_kind
    return {
        "suite": res.suite,
        "metrics": m,
        "mapped_cases": mapped,
        "in_scope": in_scope,
        "mapped_episode_kind_cases": episodes,
        "in_scope_of_episode_kind": m["n"] / episodes if episodes else None,
        "goal_met": bool(
            m["accuracy"] is not None
            and m["accuracy"] >= GOAL_AGREEMENT
            and in_scope is not None
            and in_scope >= GOAL_IN_SCOPE
        ),
        "per_check": per_check,
        "out_of_scope_reasons": dict(
            Counter(category(w) for _, _, w in res.out_of_scope).most_common()
        ),
        "out_of_scope": [list(x) for x in res.out_of_scope],
        "disagreements": [
            {
                "check": r.group,
                "case": r.case,
                "expected": r.expected,
                "predicted": r.predicted,
                "detail": r.detail,
            }
            for r in res.rows
            if r.expected != r.predicted
        ],
        "uncovered": dict(sorted(res.uncovered.items())),
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def report(res: SuiteResult, title: str) -> tuple[list[str], dict[str, Any]]:
    """(printable lines, JSON tables) of one suite's agreement."""
    s = summary(res)
    lines = [
        f"\n== {title}",
        f"  {'check':<36} {'ids':<46} {'cases':>5} {'agree':>5} {'%':>7} {'out':>4}",
    ]
    for check, row in s["per_check"].items():
        ids = ",".join(row["ids"])
        lines.append(
            f"  {check:<36} {ids:<46} {row['cases']:>5} {row['agree']:>5} "
            f"{_pct(row['agreement']):>7} {row['out_of_scope']:>4}"
        )
    m = s["metrics"]
    lines.append(
        f"  overall on in-scope cases of mapped checks: {m['tp'] + m['tn']}/{m['n']} = "
        f"{_pct(m['accuracy'])} (tp={m['tp']} tn={m['tn']} fp={m['fp']} fn={m['fn']}); in scope "
        f"{m['n']}/{s['mapped_cases']} = {_pct(s['in_scope'])}; goal (agreement >= "
        f"{GOAL_AGREEMENT:.0%}, in scope >= {GOAL_IN_SCOPE:.0%}) "
        + ("met" if s["goal_met"] else "NOT met")
    )
    if res.no_kind:
        lines.append(
            f"  {res.no_kind} case(s) of mapped checks are in a format that is no episode kind; "
            f"in scope of the others: {m['n']}/{s['mapped_episode_kind_cases']} = "
            f"{_pct(s['in_scope_of_episode_kind'])}"
        )
    if s["disagreements"]:
        lines.append("  disagreements:")
        for d in s["disagreements"]:
            label = "violation" if d["expected"] else "ok"
            pred = "violation" if d["predicted"] else "ok"
            lines.append(
                f"    [{d['check']}] {d['case']}: label={label} oracle={pred}; {d['detail']}"
            )
    if s["out_of_scope_reasons"]:
        lines.append("  out of scope by reason (not scored):")
        lines += [f"    {n:>4}  {why}" for why, n in s["out_of_scope_reasons"].items()]
        lines.append("  out-of-scope cases:")
        lines += [f"    [{c}] {case}: {why}" for c, case, why in res.out_of_scope]
    total = sum(s["uncovered"].values())
    lines.append(f"  uncovered checks ({len(s['uncovered'])}, {total} cases; no canonical id):")
    lines += _wrap([f"{c} ({n})" for c, n in s["uncovered"].items()])
    return lines, s


def _wrap(items: list[str], width: int = 100, indent: str = "    ") -> list[str]:
    """Comma-separated `items` in lines of at most `width` characters (items kept whole)."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(indent) + len(line) + len(item) + 2 > width:
            lines.append(indent + line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    return [*lines, indent + line] if line else lines
