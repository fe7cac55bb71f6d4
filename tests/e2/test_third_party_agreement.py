"""Third-party suite agreement: the check tables, the scope rules, the readers of the four
layouts (fixtures written here, in each suite's public layout, under fixtures/suites) and the
scoring, with the real oracle on the fixtures and on the shared trivy-checks sample."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from sv_env_config_verification import agreement as ag
from sv_env_config_verification.canonical import CATALOGUE, TOOL_RULES
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.gatekeeper import SAFE_SYSCTLS as GATEKEEPER_SYSCTLS
from sv_env_config_verification.oracle import Finding, ScanResult
from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.suites import (
    TRIVY_FIELDS,
    Case,
    SuiteError,
    checkov_k8s_cases,
    checkov_tf_labels,
    kyverno_cases,
    regolibrary_cases,
    trivy_cases,
)
from sv_env_config_verification.third_party import (
    CHECKOV,
    KYVERNO,
    KYVERNO_FORMS,
    REGOLIBRARY,
    SAFE_SYSCTLS,
    TRIVY,
    CheckMap,
    scope_reason,
    trivy_id,
)
from sv_env_config_verification.tools import get_tool

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "suites"
TRIVY_REAL = (
    ROOT.parent / "shared" / "realdata" / "E2_config_verification" / "trivy_checks_examples"
)


@pytest.fixture(scope="module")
def script():
    from sv_env_config_verification import oracle_agreement

    return oracle_agreement


@pytest.fixture(scope="module")
def tools() -> None:
    for tool in ("opa", "checkov"):
        if not get_tool(tool).available():
            pytest.skip(f"{tool}: {get_tool(tool).unavailable_reason()}")


@pytest.fixture(scope="module")
def cache() -> ScanCache:
    return ScanCache()


def pod(container: dict, **spec: object) -> list[dict]:
    return [{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [container], **spec}}]


# ------------------------------------------------------------------------------ tables, scope
def test_tables_name_catalogue_ids() -> None:
    maps = [*TRIVY.values(), *(k.check for k in KYVERNO.values()), *REGOLIBRARY.values()]
    assert all(m.ids and set(m.ids) <= set(CATALOGUE) for m in [*maps, *CHECKOV.values()])
    assert all(trivy_id(k) == k for k in TRIVY)
    assert {k for k in CHECKOV} == {
        r for r, v in TOOL_RULES["checkov"].items() if CATALOGUE[v].kind == "k8s"
    }
    # hostPort (any value, 0 included) and seccomp (a profile required) judge differently
    assert not {"CKV_K8S_26", "CKV_K8S_31", "CKV_K8S_32"} & set(CHECKOV)
    described = CATALOGUE["k8s/unsafe-sysctls"].description
    assert all(name in described for name in SAFE_SYSCTLS) and GATEKEEPER_SYSCTLS == SAFE_SYSCTLS
    assert trivy_id("AVD-KSV-0012") == trivy_id("KSV012") == trivy_id("ksv-12") == "KSV-0012"
    assert trivy_id("AVD-AWS-0086") == "AWS-0086" and trivy_id("odd id") == "odd id"


def test_container_scope_rules() -> None:
    caps = TRIVY["KSV-0022"]  # any added capability
    assert "any added capability" in scope_reason(
        caps, pod({"securityContext": {"capabilities": {"add": ["CHOWN"]}}})
    )
    both = pod({"name": "c", "securityContext": {"capabilities": {"add": ["CHOWN", "SYS_ADMIN"]}}})
    assert scope_reason(caps, both) is None  # SYS_ADMIN: both call it a violation
    root = TRIVY["KSV-0012"]  # runAsNonRoot only
    assert "runAsUser > 0" in scope_reason(root, pod({"securityContext": {"runAsUser": 1000}}))
    assert scope_reason(root, pod({})) is None
    assert scope_reason(root, pod({"securityContext": {"runAsNonRoot": True}})) is None
    exact = CheckMap(("k8s/privileged-container",))
    init = pod({}, initContainers=[{"name": "i", "securityContext": {"privileged": True}}])
    assert scope_reason(exact, init) is None
    why = scope_reason(exact, init, frozenset({"containers"}))
    assert why.startswith("the check does not read initContainers; at Pod/p initContainers[i]")
    cpu = CHECKOV["CKV_K8S_11"]
    cpu_only = pod({"resources": {"limits": {"cpu": "1"}}})
    assert "memory limit" in scope_reason(cpu, cpu_only)
    assert scope_reason(cpu, pod({})) is None  # no CPU limit: both flag it
    psp = [{"kind": "PodSecurityPolicy", "metadata": {"name": "x"}}]
    rule = REGOLIBRARY["rule-allow-privilege-escalation"]
    assert "PodSecurityPolicy" in scope_reason(rule, pod({}), context=pod({}) + psp)


APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"


def annotated(container: dict, notes: dict, **spec: object) -> list[dict]:
    objects = pod(container, **spec)
    objects[0]["metadata"]["annotations"] = notes
    return objects


def test_pod_security_baseline_scope_rules() -> None:
    def ports(host: object) -> list[dict]:
        return pod({"name": "c", "ports": [{"containerPort": 80, "hostPort": host}]})

    assert scope_reason(TRIVY["KSV-0024"], ports(8080)) is None
    assert "0 included" in scope_reason(TRIVY["KSV-0024"], ports(0))
    host_ports = KYVERNO["disallow-host-ports"].check  # unset or 0 passes
    assert scope_reason(host_ports, ports(0)) is None
    assert "null" in scope_reason(host_ports, ports(None))
    unconfined = {"securityContext": {"seccompProfile": {"type": "Unconfined"}}}
    seccomp, strict = KYVERNO["restrict-seccomp"].check, KYVERNO["restrict-seccomp-strict"].check
    assert scope_reason(seccomp, pod({"name": "c", **unconfined})) is None
    assert scope_reason(seccomp, pod({"name": "c"}, **unconfined)) is None  # pod level
    assert "reads no annotations" in scope_reason(
        seccomp, annotated({"name": "c"}, {SECCOMP_POD: "unconfined"})
    )
    assert scope_reason(strict, pod({"name": "c", **unconfined})) is None
    assert "unset profile" in scope_reason(strict, pod({"name": "c"}))
    runtime = {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}
    assert scope_reason(strict, pod({"name": "c", **runtime})) is None  # both clean
    assert "the catalogue flags it" in scope_reason(
        strict, pod({"name": "c", **runtime}, **unconfined)
    )
    assert "unset profile fails" in scope_reason(TRIVY["KSV-0030"], pod({"name": "c"}))
    assert scope_reason(TRIVY["KSV-0030"], pod({"name": "c", **unconfined})) is None
    apparmor = KYVERNO["restrict-apparmor-profiles"].check
    off = {APPARMOR + "c": "unconfined"}
    assert scope_reason(apparmor, annotated({"name": "c"}, off)) is None
    assert (
        scope_reason(apparmor, annotated({"name": "c"}, {APPARMOR + "gone": "unconfined"})) is None
    )
    init = annotated({"name": "c"}, {APPARMOR + "i": "unconfined"}, initContainers=[{"name": "i"}])
    assert scope_reason(apparmor, init, frozenset({"containers"})) is None  # reads annotations
    assert "localhost/*" in scope_reason(apparmor, annotated({"name": "c"}, {APPARMOR + "c": "x"}))
    profile = {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}}
    assert "no appArmorProfile" in scope_reason(apparmor, pod({"name": "c", **profile}))
    assert scope_reason(TRIVY["KSV-0002"], annotated({"name": "c"}, off)) is None
    proc = {"securityContext": {"procMount": "Unmasked"}}
    assert (
        scope_reason(KYVERNO["require-default-proc-mount"].check, pod({"name": "c", **proc}))
        is None
    )
    default = pod({"name": "c", "securityContext": {"procMount": "Default"}})
    assert "Default included" in scope_reason(TRIVY["KSV-0027"], default)

    def sysctl(name: str) -> list[dict]:
        return pod({"name": "c"}, securityContext={"sysctls": [{"name": name, "value": "1"}]})

    sysctls = KYVERNO["restrict-sysctls"].check
    assert scope_reason(sysctls, sysctl("net.core.somaxconn")) is None
    assert "five original" in scope_reason(sysctls, sysctl("net.ipv4.tcp_keepalive_time"))
    assert scope_reason(TRIVY["KSV-0026"], sysctl("net.ipv4.tcp_rmem")) is None  # same 1.32 set
    gated = REGOLIBRARY["set-procmount-default"]
    unmasked = pod({"name": "c", **proc})
    assert "ProcMountType" in scope_reason(gated, unmasked)
    gate = {
        "apiVersion": "hostdata.kubescape.cloud/v1beta0",
        "kind": "ControlPlaneInfo",
        "data": {"APIServerInfo": {"cmdLine": "kube-apiserver --feature-gates=ProcMountType=true"}},
    }
    assert scope_reason(gated, unmasked, context=[*unmasked, gate]) is None
    assert "unset procMount" in scope_reason(gated, pod({"name": "c"}), context=[gate])


def test_scope_follows_the_catalogue_resolution() -> None:
    """k8s_effective: claims bound to hostPath volumes, RBAC enumerations, aggregated
    cluster-admin and vacuous limits decide nothing for checks that read the file as written."""
    pv = {
        "kind": "PersistentVolume",
        "metadata": {"name": "pv"},
        "spec": {"hostPath": {"path": "/"}, "claimRef": {"name": "data", "namespace": "default"}},
    }
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data"}, "spec": {}}
    vol = {"name": "v", "persistentVolumeClaim": {"claimName": "data"}}
    workload = pod({"name": "c"}, volumes=[vol])
    why = scope_reason(TRIVY["KSV-0023"], workload, context=[pv, claim, *workload])
    assert why.startswith("the catalogue follows a claim to a hostPath PersistentVolume")
    assert scope_reason(TRIVY["KSV-0023"], workload) is None  # no volume in the file: both clean
    verbs = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
    role = {"kind": "ClusterRole", "metadata": {"name": "r"}, "rules": []}
    role["rules"] = [{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]
    assert "enumeration" in scope_reason(KYVERNO["restrict-wildcard-verbs"].check, [role])
    role["rules"].append({"apiGroups": [""], "resources": ["*"], "verbs": ["get"]})
    assert scope_reason(KYVERNO["restrict-wildcard-resources"].check, [role]) is None
    admin = {
        "kind": "ClusterRole",
        "metadata": {"name": "agg"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {}}]},
    }
    binding = {
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "b"},
        "roleRef": {"kind": "ClusterRole", "name": "agg"},
    }
    check = KYVERNO["restrict-binding-clusteradmin"].check
    assert "aggregates or copies" in scope_reason(check, [binding], context=[admin, binding])
    vast = pod({"name": "c", "resources": {"limits": {"cpu": "500", "memory": "1Gi"}}})
    assert "beyond any node's size" in scope_reason(TRIVY["KSV-0011"], vast)


def test_terraform_scope_rules() -> None:
    def res(rtype: str, name: str, refs: list[str] | None = None, **cfg: object) -> dict:
        return {"type": rtype, "address": f"{rtype}.{name}", "config": cfg, "refs": refs or []}

    acls = TRIVY["AWS-0086"]
    block = res("aws_s3_bucket_public_access_block", "b", block_public_acls=True)
    assert "block_public_acls" in scope_reason(acls, [block])
    settings = dict.fromkeys(
        (
            "block_public_acls",
            "block_public_policy",
            "ignore_public_acls",
            "restrict_public_buckets",
        ),
        True,
    )
    assert scope_reason(acls, [res("aws_s3_bucket_public_access_block", "b", **settings)]) is None
    kms = TRIVY["AWS-0065"]
    assert "SIGN_VERIFY" in scope_reason(kms, [res("aws_kms_key", "k", key_usage="SIGN_VERIFY")])
    assert scope_reason(kms, [res("aws_kms_key", "k")]) is None
    doc = res("aws_iam_policy_document", "d", statement=[{"actions": ["s3:*"], "resources": ["*"]}])
    assert "any wildcard" in scope_reason(TRIVY["AWS-0057"], [doc])
    trail = TRIVY["AWS-0161"]
    bucket = res("aws_s3_bucket", "logs", acl="public-read")
    assert scope_reason(trail, [bucket]).startswith("the check judges the ACL of CloudTrail")
    logged = [bucket, res("aws_cloudtrail", "t", refs=["aws_s3_bucket.logs"])]
    assert scope_reason(trail, logged) is None


# ------------------------------------------------------------------------------ readers
def test_trivy_reader() -> None:
    cases = trivy_cases(FIXTURES / "trivy")
    assert [c.check for c in cases] == [
        "KSV-0017", "KSV-0017", "AWS-0086", "AWS-0086", "AWS-0086", "AWS-0026", "AWS-0089",
        "KSV-0024", "KSV-0024", "KSV-0002", "KSV-0026", "KSV-0027", "KSV-0030",
    ]  # fmt: skip
    assert cases[0].fields == TRIVY_FIELDS  # lib.kubernetes: containers and initContainers
    bad, good = cases[0], cases[1]
    assert (bad.expected, good.expected, bad.kind, bad.mapping) == (
        True,
        False,
        "k8s",
        TRIVY["KSV-0017"],
    )
    assert "cloudformation snippet" in cases[4].reason and cases[4].kind is None
    assert cases[6].mapping is None  # S3 logging: no canonical id
    assert trivy_cases(FIXTURES / "trivy" / "examples.jsonl") == cases


@pytest.mark.parametrize(
    ("line", "message"),
    [("{not json", "not a JSON object"), ('{"check_id": "KSV017"}', "needs string check_id")],
)
def test_trivy_reader_rejects_malformed_lines(tmp_path: Path, line: str, message: str) -> None:
    file = tmp_path / "examples.jsonl"
    file.write_text(
        '{"check_id": "KSV017", "format": "kubernetes", "label": "good", "code": ""}\n' + line
    )
    with pytest.raises(SuiteError, match=re.escape(f"{file}:2: {message}")):
        trivy_cases(tmp_path)
    with pytest.raises(SuiteError, match=re.escape("no examples.jsonl")):
        trivy_cases(tmp_path / "missing")


def test_kyverno_reader_reads_both_test_forms() -> None:
    cases = {
        c.name.split(": ", 1)[1] + f" {c.check}": c for c in kyverno_cases(FIXTURES / "kyverno")
    }
    priv = "disallow-privileged-containers"
    assert cases[f"Pod/badpod01 {priv}"].expected is True  # older form, singular resource
    assert cases[f"Pod/badpod02 {priv}"].resources == ("Pod/badpod02",)  # namespace/name entry
    assert cases[f"Deployment/baddeployment01 {priv}"].expected is True  # autogen- rule name
    assert cases[f"Pod/goodpod01 {priv}"].expected is False
    assert "not found" in cases[f"Pod/ghostpod {priv}"].reason
    assert cases[f"Pod/goodpod01 {priv}"].fields == frozenset(
        {"containers", "initContainers", "ephemeralContainers"}
    )
    tag = "disallow-latest-tag"  # newer form: union of require-image-tag and validate-image-tag
    assert (
        cases[f"Pod/pinned {tag}"].expected is False and cases[f"Pod/pinned {tag}"].reason is None
    )
    assert cases[f"Pod/latest {tag}"].expected is True
    assert cases[f"Pod/untagged {tag}"].expected is True
    assert "not all of them passed" in cases[f"Pod/half-judged {tag}"].reason
    assert cases[f"Pod/pinned {tag}"].fields == frozenset({"containers"})  # policy reads containers
    assert cases["Pod/pinned require-labels"].mapping is None  # uncovered
    assert "'skip'" in cases["Deployment/skipped-deployment disallow-capabilities"].reason
    proc = cases["Pod/proc-unmasked require-default-proc-mount"]  # policy file disallow-proc-mount
    assert proc.expected is True and proc.mapping == KYVERNO["require-default-proc-mount"].check
    assert cases["Pod/host-port-zero disallow-host-ports"].expected is False


def test_kyverno_reader_knows_the_older_host_ports_form(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: disallow-host-ports}\n"
        "spec:\n  rules:\n  - name: host-ports\n    validate:\n      pattern:\n        spec:\n"
        "          containers:\n          - =(ports):\n            - X(hostPort): 0\n"
    )
    (tmp_path / "resource.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: zero}\nspec:\n  containers:\n"
        "  - {name: c, image: a:1.0, ports: [{containerPort: 80, hostPort: 0}]}\n"
    )
    (tmp_path / "kyverno-test.yaml").write_text(
        "name: t\npolicies: [policy.yaml]\nresources: [resource.yaml]\nresults:\n"
        "- {policy: disallow-host-ports, rule: host-ports, resource: zero, kind: Pod,\n"
        "   result: fail}\n"
    )
    (case,) = kyverno_cases(tmp_path)
    assert case.mapping == KYVERNO_FORMS["disallow-host-ports"][1].check
    assert "older form" in scope_reason(case.mapping, yaml_objects(case.text), case.fields)


def yaml_objects(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def test_kyverno_reader_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=re.escape("no kyverno-test.yaml")):
        kyverno_cases(tmp_path)
    bad = tmp_path / "p" / "kyverno-test.yaml"
    bad.parent.mkdir()
    bad.write_text("results: [\n")
    with pytest.raises(SuiteError, match=re.escape(f"{bad}: cannot read")):
        kyverno_cases(tmp_path)
    bad.write_text("name: x\npolicies: []\n")
    with pytest.raises(SuiteError, match=re.escape(f"{bad}: not a Kyverno test")):
        kyverno_cases(tmp_path)


def test_regolibrary_reader() -> None:
    cases = {c.name: c for c in regolibrary_cases(FIXTURES / "regolibrary")}
    priv = cases["rule-privileged-container/pod: Pod/priv-pod"]
    assert priv.expected is True and priv.fields == frozenset({"containers"})  # from raw.rego
    assert cases["rule-privileged-container/pod: Pod/plain-pod"].expected is False
    assert (
        "not matched by the rule"
        in cases["rule-privileged-container/pod: ConfigMap/settings"].reason
    )
    assert (
        cases["rule-privileged-container/sysadmin: Pod/sysadmin-pod"].expected is True
    )  # JSON input
    caps = cases["insecure-capabilities/custom-list: Pod/net-admin"].mapping
    assert (
        scope_reason(caps, pod({"securityContext": {"capabilities": {"add": ["SYS_TIME"]}}}))
        is None
    )
    assert cases["k8s-common-labels/pod: Pod/unlabelled"].mapping is None
    assert cases["container-hostPort/pod: Pod/zero-port"].expected is True  # 0 counts for it
    assert cases["container-hostPort/pod: Pod/host-port"].fields == frozenset({"containers"})
    assert regolibrary_cases(FIXTURES / "regolibrary" / "rules").__len__() == len(cases)


def test_regolibrary_reader_errors(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="regolibrary layout"):
        regolibrary_cases(tmp_path)
    case = tmp_path / "rules" / "r" / "test" / "c"
    (case / "input").mkdir(parents=True)
    (case / "expected.json").write_text("[{")
    with pytest.raises(SuiteError, match=re.escape(f"{case / 'expected.json'}: not JSON")):
        regolibrary_cases(tmp_path)


def test_checkov_readers() -> None:
    cases = {c.name: c for c in checkov_k8s_cases(FIXTURES / "checkov")}
    assert cases["example_PrivilegedContainers/pod-FAILED.yaml"].check == "CKV_K8S_16"
    assert cases["example_PrivilegedContainers/pod-PASSED.yaml"].expected is False
    assert "UNKNOWN" in cases["example_PrivilegedContainers/cronjob-UNKOWN.yaml"].reason
    tagged = cases["example_ImageTagFixed/pods.yaml: Pod/floating"]
    assert (tagged.check, tagged.expected, tagged.resources) == (
        "CKV_K8S_14",
        True,
        ("Pod/floating",),
    )
    assert cases["example_DefaultNamespace/pod-FAILED.yaml"].mapping is None  # CKV_K8S_21
    labels = checkov_tf_labels(FIXTURES / "checkov")
    assert {(r["check_id"], r["resource"], r["expected"]) for r in labels} == {
        ("CKV_AWS_251", "aws_cloudtrail.pass", "PASSED"),
        ("CKV_AWS_251", "aws_cloudtrail.fail", "FAILED"),
    }
    with pytest.raises(SuiteError, match=re.escape("example_<Check>")):
        checkov_k8s_cases(FIXTURES / "kyverno")


# ------------------------------------------------------------------------------ scoring
def _fake(findings: tuple[Finding, ...] = (), invalid: tuple[str, ...] = ()):
    def scanner(config: ConfigFile, cache: object = None) -> ScanResult:
        return ScanResult(config.kind, config.content_hash, findings, invalid_reasons=invalid)

    return scanner


def test_score_without_tools() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
    m = CheckMap(("k8s/privileged-container",))
    cases = [
        Case("s", "a", "hit", True, "k8s", text, ("Pod/p",), m),
        Case("s", "a", "elsewhere", True, "k8s", text, None, m),
        Case("s", "b", "no id", None),
        Case("s", "a", "broken", True, "k8s", "kind: [", None, m),
    ]
    found = (Finding("k8s/privileged-container", "high", "Pod/p", ("opa",)),)
    res = ag.score(cases, scanner=_fake(found))
    assert [(r.case, r.predicted) for r in res.rows] == [("hit", True), ("elsewhere", True)]
    assert res.uncovered == {"b": 1} and res.out_of_scope[0][2].startswith("does not parse")
    invalid = ag.score(cases[:1], scanner=_fake(invalid=("checkov did not evaluate Pod/p",)))
    assert invalid.out_of_scope == [
        ("a", "hit", "oracle scan invalid: checkov did not evaluate Pod/p")
    ]
    lines, tables = ag.report(res, "t")
    assert tables["metrics"]["accuracy"] == 1.0 and tables["in_scope"] == 2 / 3
    assert tables["out_of_scope_reasons"] == {"does not parse": 1}
    assert any("b (1)" in line for line in lines)


@pytest.mark.parametrize(
    ("reader", "path", "rows", "out", "uncovered"),
    [
        (trivy_cases, "trivy", 8, 4, {"AWS-0089": 1}),
        (kyverno_cases, "kyverno", 22, 7, {"require-labels": 1}),
        (regolibrary_cases, "regolibrary", 8, 8, {"k8s-common-labels": 1}),
        (checkov_k8s_cases, "checkov", 5, 2, {"CKV_K8S_21": 1, "CKV_K8S_26": 1}),
    ],
)
def test_fixture_suites_agree_with_the_oracle(
    tools: None, cache: ScanCache, reader, path: str, rows: int, out: int, uncovered: dict
) -> None:
    res = ag.score(reader(FIXTURES / path), cache)
    assert [r for r in res.rows if r.expected != r.predicted] == []
    assert (len(res.rows), len(res.out_of_scope), dict(res.uncovered)) == (rows, out, uncovered)
    assert not [w for _, _, w in res.out_of_scope if "scan invalid" in w]


def test_checkov_terraform_rows_of_mapped_checks_are_compared(script, tools: None) -> None:
    for source in (FIXTURES / "checkov", FIXTURES / "checkov" / "labels.csv"):
        labels, base = script.read_labels(source)
        ck = script.checkov_rows(source, ScanCache(), cross_tool=False, labels=labels, base=base)
        assert ck["mapped_label_rows"] == 2 and ck["unlocated"] == []
        assert [(r.expected, r.predicted) for r in ck["oracle"]] == [(False, False), (True, True)]


# ------------------------------------------------------------------------------ command line
def test_command_line(script, tools: None, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out_json = tmp_path / "k.json"
    assert (
        script.main(["--suite", "kyverno", str(FIXTURES / "kyverno"), "--json", str(out_json)]) == 0
    )
    out = capsys.readouterr().out
    assert "disallow-privileged-containers" in out and "overall on in-scope cases" in out
    assert "require-labels (1)" in out and "out of scope by reason" in out
    tables = json.loads(out_json.read_text())
    assert tables["per_check"]["disallow-latest-tag"]["cases"] == 3
    bad = tmp_path / "t" / "kyverno-test.yaml"
    bad.parent.mkdir()
    bad.write_text("results: 3\n")
    for argv, needle in (
        (
            ["--suite", "regolibrary", str(tmp_path / "none")],
            f"{tmp_path / 'none'}: not a directory",
        ),
        (["--suite", "kyverno", str(tmp_path)], f"{bad}: not a Kyverno test"),
        (["--suite", "terraform", str(bad)], f"{bad}: not a checkov labels CSV"),
    ):
        assert script.main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err.strip() == f"error: {needle}" or needle in captured.err
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    for argv in (["--suite", "kyverno"], ["--suite", "nope", "x"], ["--frobnicate"]):
        with pytest.raises(SystemExit) as exc:
            script.main(argv)
        assert exc.value.code == 2
    capsys.readouterr()


# ------------------------------------------------------------------------------ shared sample
@pytest.mark.realdata
def test_shared_trivy_sample(tools: None, cache: ScanCache) -> None:
    """The shared trivy-checks export: reader counts, and the mapped Kubernetes snippets agree
    (the whole export is scored by the slow test below and by the command)."""
    if not TRIVY_REAL.is_dir():
        pytest.skip(f"trivy-checks examples not present at {TRIVY_REAL}")
    cases = trivy_cases(TRIVY_REAL)
    assert len(cases) == 1182 and len({c.check for c in cases}) == 375
    k8s = [c for c in cases if c.mapping is not None and c.kind == "k8s"]
    res = ag.score(k8s, cache)
    assert len(res.rows) >= 24 and [r for r in res.rows if r.expected != r.predicted] == []
    pss = {"KSV-0002", "KSV-0024", "KSV-0026", "KSV-0027", "KSV-0030"}  # baseline controls
    assert pss <= {r.group for r in res.rows}


@pytest.mark.realdata
@pytest.mark.slow
def test_shared_trivy_sample_meets_the_agreement_goal(tools: None, cache: ScanCache) -> None:
    if not TRIVY_REAL.is_dir():
        pytest.skip(f"trivy-checks examples not present at {TRIVY_REAL}")
    tables = ag.summary(ag.score(trivy_cases(TRIVY_REAL), cache))
    assert tables["metrics"]["n"] >= 40 and tables["metrics"]["accuracy"] >= ag.GOAL_AGREEMENT
    assert tables["in_scope_of_episode_kind"] >= ag.GOAL_IN_SCOPE
