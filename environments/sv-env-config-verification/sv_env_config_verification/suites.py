"""Labelled cases of third-party check suites, read from their public layouts.

* trivy-checks examples: a JSON-lines export (``examples.jsonl``: check_id, format, label
  good/bad, code), one case per snippet; Terraform and Kubernetes snippets are episodes,
  CloudFormation and Dockerfile ones are out of scope.
* Kyverno CLI tests: every ``kyverno-test.yaml`` under a folder (the older form without
  apiVersion and the ``cli.kyverno.io/v1alpha1`` Test), its ``resources`` files and its
  ``results`` (policy, rule, resources/resource, kind, result pass/fail/skip/warn); one case per
  (policy, resource), the episode is that object alone.
* Kubescape regolibrary: ``rules/<rule>/test/<case>/input/*`` with ``expected.json`` (the alerts,
  naming the objects that fail); one case per input object, the episode is the case's input.
* checkov's Kubernetes check examples: ``tests/kubernetes/checks/example_<Check>/`` files whose
  names say PASSED/FAILED (or ``passing_resources`` / ``failing_resources`` in
  ``test_<Check>.py``); one case per file (or per named resource).

Each case carries its mapping (`third_party`; None = uncovered) and, when it cannot be an
episode, the reason. A path that is not such a suite, or a suite file that does not parse,
raises `SuiteError` naming the file.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .configs import manifest_text
from .third_party import (
    ALL_FIELDS,
    CHECKOV,
    KUBESCAPE_INSECURE_CAPS,
    KYVERNO,
    KYVERNO_FORMS,
    REGOLIBRARY,
    TRIVY,
    CheckMap,
    insecure_capabilities,
    trivy_id,
)

Obj = dict[str, Any]


class SuiteError(ValueError):
    """A path that is not a readable suite of the asked layout, or a malformed suite file."""


@dataclass(frozen=True)
class Case:
    """One labelled case: `expected` is True when the suite says the check fails on it."""

    suite: str
    check: str
    name: str
    expected: bool | None
    kind: str | None = None
    text: str = ""
    resources: tuple[str, ...] | None = None
    """Canonical resources the label is about; None: any resource of the episode."""
    mapping: CheckMap | None = None
    fields: frozenset[str] = ALL_FIELDS
    """Container lists the check reads."""
    reason: str | None = None
    """Why the case cannot be an episode (out of scope), known before scanning."""


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _load_yaml_docs(path: Path) -> list[Any]:
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


def _objects(docs: Iterable[Any]) -> list[Obj]:
    """Mappings with a kind, ``kind: *List`` items flattened."""
    out: list[Obj] = []
    for doc in docs:
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            out.extend(i for i in doc.get("items") or [] if isinstance(i, dict))
        elif isinstance(doc, dict) and doc.get("kind"):
            out.append(doc)
    return out


def _meta(obj: Obj) -> tuple[str, str, str | None]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    ns = meta.get("namespace")
    return str(obj.get("kind")), str(meta.get("name")), None if ns is None else str(ns)


def _dump(objects: list[Obj]) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False)


def read_fields(text: str) -> frozenset[str]:
    """Container lists a policy/rule source reads (``containers`` always)."""
    extra = {f for f in ("initContainers", "ephemeralContainers") if f in text}
    return frozenset({"containers", *extra})


# ------------------------------------------------------------------------------ trivy
TRIVY_FIELDS = frozenset({"containers", "initContainers"})
"""The container lists trivy-checks' lib.kubernetes reads (``pod_containers``)."""


def trivy_cases(path: Path) -> list[Case]:
    """Cases of a trivy-checks examples export (a folder with examples.jsonl, or the file)."""
    path = Path(path)
    file = path / "examples.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise SuiteError(f"{path}: no examples.jsonl (trivy-checks examples export)")
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{file}: cannot read: {exc}") from None
    cases = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise SuiteError(f"{file}:{lineno}: not a JSON object: {exc}") from None
        if not isinstance(rec, dict) or not all(
            isinstance(rec.get(k), str) for k in ("check_id", "format", "label", "code")
        ):
            raise SuiteError(f"{file}:{lineno}: needs string check_id, format, label and code")
        if rec["label"] not in ("good", "bad"):
            raise SuiteError(f"{file}:{lineno}: label {rec['label']!r} is not good or bad")
        cid = trivy_id(rec["check_id"])
        fmt = rec["format"].lower()
        kind = {"terraform": "terraform", "kubernetes": "k8s"}.get(fmt)
        reason = None if kind else f"{fmt} snippet: not an episode kind (Kubernetes, Terraform)"
        index = rec.get("example_index", lineno)
        name = f"{cid} {rec['label']}[{index}] {fmt}" + (
            " (deprecated)" * bool(rec.get("deprecated"))
        )
        cases.append(
            Case(
                "trivy",
                cid,
                name,
                rec["label"] == "bad",
                kind,
                rec["code"],
                None,
                TRIVY.get(cid),
                TRIVY_FIELDS,
                reason=reason,
            )
        )
    return cases


# ------------------------------------------------------------------------------ Kyverno
_VERDICT = {"fail": True, "warn": True, "pass": False}


def _strip_autogen(rule: str) -> str:
    for prefix in ("autogen-cronjob-", "autogen-"):
        if rule.startswith(prefix):
            return rule[len(prefix) :]
    return rule


def _kyverno_test(file: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SuiteError(f"{file}: cannot read: {' '.join(str(exc).split())}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise SuiteError(f"{file}: not a Kyverno test (no results list)")
    for key in ("policies", "resources"):
        if not isinstance(doc.get(key) or [], list):
            raise SuiteError(f"{file}: {key} is not a list")
    return doc


def _entries(result: Obj) -> list[tuple[str | None, str]]:
    """(namespace, name) of a result's resources (``resources`` list or older ``resource``)."""
    names = result.get("resources")
    if names is None:
        names = [result["resource"]] if isinstance(result.get("resource"), str) else []
    out = []
    for n in names if isinstance(names, list) else []:
        if not isinstance(n, str):
            continue
        ns, _, name = n.rpartition("/")
        out.append((ns or result.get("namespace"), name))
    return out


def kyverno_cases(root: Path) -> list[Case]:
    """Cases of every kyverno-test.yaml under `root`."""
    root = Path(root)
    if not root.is_dir():
        raise SuiteError(f"{root}: not a directory")
    tests = sorted(root.rglob("kyverno-test.yaml"))
    if not tests:
        raise SuiteError(f"{root}: no kyverno-test.yaml under it (Kyverno CLI test layout)")
    cases: list[Case] = []
    for file in tests:
        cases += _kyverno_file(root, file)
    return cases


def _kyverno_file(root: Path, file: Path) -> list[Case]:
    doc = _kyverno_test(file)
    base, label = file.parent, _rel(file.parent, root)
    objects: list[Obj] = []
    unreadable: list[str] = []
    for ref in doc.get("resources") or []:
        path = base / str(ref)
        try:
            objects += _objects(_load_yaml_docs(path))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            unreadable.append(str(ref))
    fields: dict[str, frozenset[str]] = {}
    sources: dict[str, str] = {}
    for ref in doc.get("policies") or []:
        try:
            for pol in _objects(_load_yaml_docs(base / str(ref))):
                sources[str(_meta(pol)[1])] = source = yaml.safe_dump(pol)
                fields[str(_meta(pol)[1])] = read_fields(source)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
    groups: dict[tuple[str, str, str | None, str], list[tuple[str, str]]] = defaultdict(list)
    for result in doc["results"]:
        if not isinstance(result, dict) or not isinstance(result.get("policy"), str):
            raise SuiteError(f"{file}: a result without a policy name")
        policy = result["policy"].rpartition("/")[2]
        rule = _strip_autogen(str(result.get("rule") or ""))
        verdict = str(result.get("result", result.get("status", ""))).lower()
        for ns, name in _entries(result):
            groups[(policy, str(result.get("kind") or ""), ns, name)].append((rule, verdict))
    cases = []
    for (policy, kind, ns, name), verdicts in groups.items():
        km = KYVERNO.get(policy)
        marker, other = KYVERNO_FORMS.get(policy, ("", None))
        if other is not None and marker in sources.get(policy, ""):
            km = other
        where = f"{label}: {kind or '?'}/{name}"
        if km is None:
            cases.append(Case("kyverno", policy, where, None))
            continue
        for rule in sorted({r for r, _ in verdicts if r in km.ignore}):
            cases.append(Case("kyverno", f"{policy}/{rule}", where, None))
        relevant = [(r, v) for r, v in verdicts if r not in km.ignore]
        if not relevant:
            continue
        expected, reason = _kyverno_verdict(km.rules, relevant)
        obj, why = _find(objects, kind, ns, name)
        reason = reason or why
        if why and unreadable:
            reason = f"{why}; unreadable resource files {unreadable}"
        text = _dump([obj]) if obj is not None else ""
        resource = f"{obj.get('kind')}/{_meta(obj)[1]}" if obj is not None else None
        cases.append(
            Case(
                "kyverno",
                policy,
                where,
                expected,
                "k8s",
                text,
                (resource,) if resource else None,
                km.check,
                fields.get(policy, ALL_FIELDS),
                reason,
            )
        )
    return cases


def _kyverno_verdict(
    rules: tuple[str, ...] | None, verdicts: list[tuple[str, str]]
) -> tuple[bool | None, str | None]:
    """(violation expected, reason out of scope) from one resource's rule results."""
    if any(_VERDICT.get(v) is True for _, v in verdicts):
        return True, None
    odd = sorted({v for _, v in verdicts if v not in _VERDICT})
    if odd:
        return None, f"kyverno result {odd[0]!r} (the rule did not judge the resource)"
    passed = {r for r, _ in verdicts}
    if rules is None or "" in passed or set(rules) <= passed:
        return False, None
    missing = sorted(set(rules) - passed)
    return None, (
        f"the id is the union of rules {list(rules)}, not all of them passed "
        f"(passed: {sorted(passed)}, no verdict: {missing})"
    )


def _find(
    objects: list[Obj], kind: str, ns: str | None, name: str
) -> tuple[Obj | None, str | None]:
    hits = [
        o
        for o in objects
        if _meta(o)[1] == name
        and (not kind or _meta(o)[0] == kind)
        and (ns is None or _meta(o)[2] in (None, ns))
    ]
    if not hits:
        return None, "resource not found in the test's resource files"
    if len({(_meta(o)[0], _meta(o)[2]) for o in hits}) > 1:
        return None, "several resources of that name (kind or namespace not given)"
    return hits[0], None


# ------------------------------------------------------------------------------ regolibrary
def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SuiteError(f"{path}: not JSON: {exc}") from None


def _inputs(data: Any) -> dict[str, Any]:
    settings = data.get("settings") if isinstance(data, dict) else None
    source = settings if isinstance(settings, dict) else data
    found = source.get("postureControlInputs") if isinstance(source, dict) else None
    return found if isinstance(found, dict) else {}


def regolibrary_cases(root: Path) -> list[Case]:
    """Cases of a regolibrary checkout (or its rules folder)."""
    root = Path(root)
    if not root.is_dir():
        raise SuiteError(f"{root}: not a directory")
    rules_dir = root / "rules" if (root / "rules").is_dir() else root
    case_dirs = sorted(
        d for d in rules_dir.glob("*/test/*") if d.is_dir() and (d / "input").is_dir()
    )
    if not case_dirs:
        raise SuiteError(f"{root}: no rules/<rule>/test/<case>/input (regolibrary layout)")
    config = root / "default-config-inputs.json"
    defaults = _inputs(_json(config)) if config.is_file() else {}
    cases: list[Case] = []
    for case_dir in case_dirs:
        cases += _regolibrary_case(rules_dir, case_dir, defaults)
    return cases


def _rule_meta(rule_dir: Path) -> tuple[str, set[str] | None, frozenset[str]]:
    """(rule name, matched kinds or None, container lists its rego reads)."""
    name, kinds = rule_dir.name, None
    meta = rule_dir / "rule.metadata.json"
    if meta.is_file():
        try:
            # rule.metadata.json files are JSON with the occasional trailing comma
            data = yaml.safe_load(meta.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            data = None
        if isinstance(data, dict):
            matches = data.get("match") if isinstance(data.get("match"), list) else []
            kinds = {
                str(k) for m in matches if isinstance(m, dict) for k in m.get("resources") or []
            }
            if name not in REGOLIBRARY and isinstance(data.get("name"), str):
                name = data["name"]
    rego = rule_dir / "raw.rego"
    fields = read_fields(rego.read_text(encoding="utf-8")) if rego.is_file() else ALL_FIELDS
    return name, kinds or None, fields


def _regolibrary_case(rules_dir: Path, case_dir: Path, defaults: dict[str, Any]) -> list[Case]:
    rule_dir = case_dir.parent.parent
    rule, kinds, fields = _rule_meta(rule_dir)
    mapping = REGOLIBRARY.get(rule)
    label = f"{rule}/{case_dir.name}"
    if rule == "insecure-capabilities":
        data = case_dir / "data.json"
        caps = (_inputs(_json(data)) if data.is_file() else {}).get("insecureCapabilities")
        caps = caps or defaults.get("insecureCapabilities") or KUBESCAPE_INSECURE_CAPS
        mapping = insecure_capabilities([str(c) for c in caps])
    expected_file = case_dir / "expected.json"
    alerts = _json(expected_file) if expected_file.is_file() else []
    if not isinstance(alerts, list):
        raise SuiteError(f"{expected_file}: not a list of alerts")
    failed = set()
    for alert in alerts:
        objs = (
            ((alert or {}).get("alertObject") or {}).get("k8sApiObjects")
            if isinstance(alert, dict)
            else None
        )
        for o in objs or []:
            if isinstance(o, dict):
                failed.add(_meta(o)[:2])
    objects: list[Obj] = []
    reason = None
    for path in sorted((case_dir / "input").iterdir()):
        if path.suffix.lower() not in (".yaml", ".yml", ".json"):
            continue
        try:
            objects += _objects(_load_yaml_docs(path))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            reason = f"input does not parse: {path.name}: {' '.join(str(exc).split())[:120]}"
    if not expected_file.is_file():
        reason = reason or "no expected.json"
    text = _dump(objects)
    cases = []
    for obj in objects:
        kind, name, _ = _meta(obj)
        why = reason
        if why is None and kinds is not None and kind not in kinds:
            why = f"kind {kind} is not matched by the rule"
        cases.append(
            Case(
                "regolibrary",
                rule,
                f"{label}: {kind}/{name}",
                (kind, name) in failed,
                "k8s",
                text,
                (f"{kind}/{name}",),
                mapping,
                fields,
                why,
            )
        )
    return cases


# ------------------------------------------------------------------------------ checkov
_CHECK_IMPORT = re.compile(
    r"from\s+checkov\.kubernetes\.checks(?:\.resource\.k8s)?\.(\w+)\s+import"
)
_CHECK_ID = re.compile(r"""\bid\s*=\s*["'](CKV2?_K8S_\d+)["']""")


def _checkov_id(root: Path, module: str) -> str | None:
    """The id of checkov's Kubernetes check `module`: from the checkout's source, else from
    the installed checkov."""
    for rel in ("checkov/kubernetes/checks/resource/k8s", "checkov/kubernetes/checks"):
        src = root / rel / f"{module}.py"
        if src.is_file():
            m = _CHECK_ID.search(src.read_text(encoding="utf-8"))
            if m:
                return m.group(1)
    try:
        mod = importlib.import_module(f"checkov.kubernetes.checks.resource.k8s.{module}")
        return str(mod.check.id)
    except Exception:  # not a checkov check module in this checkov
        return None


def _resource_sets(test: Path) -> tuple[set[str], set[str]] | None:
    """(passing, failing) resource ids named in a checkov test file, or None."""
    try:
        tree = ast.parse(test.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise SuiteError(f"{test}: does not parse: {exc}") from None
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in (
                "passing_resources",
                "failing_resources",
            ):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                found[target.id] = {str(v) for v in value}
    if not found:
        return None
    return found.get("passing_resources", set()), found.get("failing_resources", set())


def _k8s_id(resource: str) -> str:
    """checkov's ``Kind.namespace.name`` -> ``Kind/name``."""
    parts = resource.split(".", 2)
    return f"{parts[0]}/{parts[-1]}" if len(parts) == 3 else resource


def checkov_k8s_cases(root: Path) -> list[Case]:
    """Cases of a checkov checkout's Kubernetes check examples (or that checks folder)."""
    root = Path(root)
    if not root.is_dir():
        raise SuiteError(f"{root}: not a directory")
    checks = root / "tests" / "kubernetes" / "checks"
    checks = checks if checks.is_dir() else root
    examples = sorted(d for d in checks.glob("example_*") if d.is_dir())
    if not examples:
        raise SuiteError(f"{root}: no tests/kubernetes/checks/example_<Check> folders (checkov)")
    cases: list[Case] = []
    for example in examples:
        check = example.name.removeprefix("example_")
        test = checks / f"test_{check}.py"
        module = check
        sets = None
        if test.is_file():
            m = _CHECK_IMPORT.search(test.read_text(encoding="utf-8"))
            module = m.group(1) if m else check
            sets = _resource_sets(test)
        cid = _checkov_id(root, module) or f"example_{check}"
        cases += _checkov_files(example, cid, sets)
    return cases


def _checkov_files(example: Path, cid: str, sets: tuple[set[str], set[str]] | None) -> list[Case]:
    mapping = CHECKOV.get(cid)
    cases = []
    for path in sorted(example.iterdir()):
        if path.suffix.lower() not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        label = f"{example.name}/{path.name}"
        try:
            text = manifest_text(path.name, path.read_text(encoding="utf-8"))
        except Exception as exc:  # unreadable or invalid JSON: not an episode
            cases.append(Case("checkov-k8s", cid, label, None, reason=f"does not read: {exc}"))
            continue
        if sets is not None:
            try:
                objects = _objects(yaml.safe_load_all(text))
            except yaml.YAMLError:
                objects = []
            passing, failing = ({_k8s_id(r) for r in s} for s in sets)
            for obj in objects:
                res = f"{_meta(obj)[0]}/{_meta(obj)[1]}"
                if res in passing | failing:
                    cases.append(
                        Case(
                            "checkov-k8s",
                            cid,
                            f"{label}: {res}",
                            res in failing,
                            "k8s",
                            text,
                            (res,),
                            mapping,
                        )
                    )
            continue
        token = re.search(r"PASSED|FAILED|UNKNOWN|UNKOWN", path.name)
        verdict = token.group(0) if token else None
        reason = None
        if verdict is None:
            reason = "the file name gives no PASSED/FAILED verdict"
        elif verdict in ("UNKNOWN", "UNKOWN"):
            reason = "checkov's expected result is UNKNOWN"
        cases.append(
            Case(
                "checkov-k8s",
                cid,
                label,
                {"FAILED": True, "PASSED": False}.get(verdict or ""),
                "k8s",
                text,
                None,
                mapping,
                reason=reason,
            )
        )
    return cases


# ------------------------------------------------------------------------------ checkov Terraform
_TF_IMPORT = re.compile(
    r"from\s+checkov\.terraform\.checks\.(resource|data)\.(\w+)\.(\w+)\s+import"
)
_TF_ID = re.compile(r"""\bid\s*=\s*["'](CKV2?_[A-Z0-9]+_\d+)["']""")
_EXAMPLE_DIR = re.compile(r"""["']/?(example_[\w.-]+)["']""")


def _checkov_tf_id(root: Path, kind: str, provider: str, module: str) -> str | None:
    src = root / "checkov" / "terraform" / "checks" / kind / provider / f"{module}.py"
    if src.is_file():
        m = _TF_ID.search(src.read_text(encoding="utf-8"))
        if m:
            return m.group(1)
    try:
        mod = importlib.import_module(f"checkov.terraform.checks.{kind}.{provider}.{module}")
        return str(mod.check.id)
    except Exception:  # not a checkov check module in this checkov
        return None


def checkov_tf_labels(root: Path) -> list[dict[str, str]]:
    """Label rows (check_id, check_name, provider, example_dir, resource, expected) of a
    checkov checkout's Terraform tests: each ``test_<Check>.py`` whose ``passing_resources`` /
    ``failing_resources`` name resources of its ``example_<Check>`` folder (the layout the
    shared terraform_labels.csv sample was cut from). Inline-HCL unit tests carry no such
    sets and give no rows."""
    root = Path(root)
    tests = root / "tests" / "terraform" / "checks"
    if not tests.is_dir():
        raise SuiteError(f"{root}: no tests/terraform/checks (checkov checkout)")
    rows = []
    for test in sorted(tests.glob("*/*/test_*.py")):
        text = test.read_text(encoding="utf-8")
        m = _TF_IMPORT.search(text)
        found = _EXAMPLE_DIR.search(text)
        if m is None or found is None or not (test.parent / found.group(1)).is_dir():
            continue
        sets = _resource_sets(test)
        cid = _checkov_tf_id(root, *m.groups())
        if sets is None or cid is None:
            continue
        example = _rel(test.parent / found.group(1), root)
        for expected, names in (("PASSED", sets[0]), ("FAILED", sets[1])):
            rows += [
                {
                    "check_id": cid,
                    "check_name": "",
                    "provider": m.group(2),
                    "example_dir": example,
                    "resource": r,
                    "expected": expected,
                }
                for r in sorted(names)
            ]
    return rows
