"""The Gatekeeper agreement command (`sv_env_config_verification.oracle_agreement`) and its
mapping, on a small synthetic library checkout written here (the upstream layout with this
project's own minimal cases)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.gatekeeper import (
    POLICIES,
    Case,
    GatekeeperError,
    assess,
    exempt,
    load_cases,
    suite_paths,
)
from sv_env_config_verification.scan_cache import ScanCache


@pytest.fixture(scope="module")
def agreement():
    from sv_env_config_verification import oracle_agreement

    return oracle_agreement


def pod(name: str, containers: str, spec_extra: str = "", kind: str = "Pod") -> str:
    return (
        f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n"
        + textwrap.indent(spec_extra, "  ")
        + "  containers:\n"
        + textwrap.indent(containers, "  ")
    )


def constraint(kind: str, params: str = "", kinds: str = "Pod") -> str:
    text = (
        f"apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: {kind}\nmetadata:\n  name: c\n"
        f'spec:\n  match:\n    kinds:\n      - apiGroups: [""]\n        kinds: ["{kinds}"]\n'
    )
    return text + ("  parameters:\n" + textwrap.indent(params, "    ") if params else "")


def write_policy(root: Path, policy: str, tests: list[tuple[str, str, list]]) -> None:
    """tests: (test name, constraint text, [(case, object text or None, assertion yaml)])."""
    base = root / "library" / policy
    lines = ["kind: Suite", "apiVersion: test.gatekeeper.sh/v1alpha1", "tests:"]
    for t, (test, ctext, cases) in enumerate(tests):
        (base / "samples" / f"t{t}").mkdir(parents=True, exist_ok=True)
        (base / "samples" / f"t{t}" / "constraint.yaml").write_text(ctext)
        lines += [f"- name: {test}", f"  constraint: samples/t{t}/constraint.yaml", "  cases:"]
        for name, obj, assertion in cases:
            if obj is not None:
                (base / "samples" / f"t{t}" / f"{name}.yaml").write_text(obj)
            lines += [f"  - name: {name}", f"    object: samples/t{t}/{name}.yaml"]
            lines += ["    assertions:", f"    - {assertion}"]
    (base / "suite.yaml").write_text("\n".join(lines) + "\n")


PRIV = "- name: c\n  image: app:1.0\n  securityContext: {privileged: true}\n"
PLAIN = "- name: c\n  image: app:1.0\n"
SECCOMP = "container.seccomp.security.alpha.kubernetes.io/c"
APPARMOR = "container.apparmor.security.beta.kubernetes.io/c"


def port(host: int) -> str:
    return f"  ports: [{{containerPort: 80, hostPort: {host}}}]\n"


def annotated(name: str, key: str, value: str, containers: str = PLAIN, spec: str = "") -> str:
    text = pod(name, containers, spec)
    return text.replace(f"name: {name}\n", f"name: {name}\n  annotations: {{{key}: {value}}}\n", 1)


def sysctl(name: str, value: str) -> str:
    return pod(name, PLAIN, f"securityContext:\n  sysctls: [{{name: {value}, value: '1'}}]\n")


def write_pss(root: Path) -> None:
    """The Pod Security Standards baseline policies: seccomp, AppArmor, procMount, sysctls."""
    unconfined = "  securityContext: {appArmorProfile: {type: Unconfined}}\n"
    write_policy(
        root,
        "pod-security-policy/seccomp",
        [
            (
                "seccomp",
                constraint("K8sPSPSeccomp", "allowedProfiles: [runtime/default, docker/default]\n"),
                [
                    ("sc-annot", annotated("sc-annot", SECCOMP, "unconfined"), "violations: yes"),
                    ("sc-ok", annotated("sc-ok", SECCOMP, "runtime/default"), "violations: no"),
                    ("sc-unset", pod("sc-unset", PLAIN), "violations: yes"),
                ],
            )
        ],
    )
    write_policy(
        root,
        "pod-security-policy/apparmor",
        [
            (
                "apparmor",
                constraint("K8sPSPAppArmor", "allowedProfiles: [runtime/default]\n"),
                [
                    ("aa-off", annotated("aa-off", APPARMOR, "unconfined"), "violations: yes"),
                    (
                        "aa-override",
                        pod(
                            "aa-override",
                            PLAIN + unconfined,
                            "securityContext: {appArmorProfile: {type: RuntimeDefault}}\n",
                        ),
                        "violations: yes",
                    ),
                    ("aa-local", annotated("aa-local", APPARMOR, "localhost/x"), "violations: yes"),
                ],
            )
        ],
    )
    write_policy(
        root,
        "pod-security-policy/proc-mount",
        [
            (
                "default",
                constraint("K8sPSPProcMount", "procMount: Default\n"),
                [
                    (
                        "pm-unmasked",
                        pod("pm-unmasked", PLAIN + "  securityContext: {procMount: Unmasked}\n"),
                        "violations: yes",
                    ),
                    (
                        "pm-default",
                        pod("pm-default", PLAIN + "  securityContext: {procMount: Default}\n"),
                        "violations: no",
                    ),
                ],
            ),
            (
                "unmasked",
                constraint("K8sPSPProcMount", "procMount: Unmasked\n"),
                [
                    (
                        "pm-allowed",
                        pod("pm-allowed", PLAIN + "  securityContext: {procMount: Unmasked}\n"),
                        "violations: no",
                    )
                ],
            ),
        ],
    )
    sysctls = constraint(
        "K8sPSPForbiddenSysctls", 'forbiddenSysctls: ["kernel.*"]\nallowedSysctls: ["*"]\n'
    )
    write_policy(
        root,
        "pod-security-policy/forbidden-sysctls",
        [
            (
                "sysctls",
                sysctls,
                [
                    ("sy-kernel", sysctl("sy-kernel", "kernel.msgmax"), "violations: yes"),
                    ("sy-net", sysctl("sy-net", "net.core.somaxconn"), "violations: no"),
                    ("sy-safe", sysctl("sy-safe", "net.ipv4.tcp_syncookies"), "violations: no"),
                ],
            ),
            (
                "broken",  # the upstream sample's unquoted `- *` is a YAML alias error
                sysctls.replace('allowedSysctls: ["*"]', "allowedSysctls:\n    - * # all"),
                [("sy-broken", sysctl("sy-broken", "kernel.msgmax"), "violations: yes")],
            ),
        ],
    )


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gatekeeper")
    ephemeral = pod(
        "eph",
        PLAIN,
        "ephemeralContainers:\n- name: d\n  image: app:1.0\n"
        "  securityContext: {privileged: true}\n",
    )
    review = (
        "kind: AdmissionReview\napiVersion: admission.k8s.io/v1\nrequest:\n"
        "  operation: UPDATE\n  object: {}\n"
    )
    write_policy(
        root,
        "pod-security-policy/privileged-containers",
        [
            (
                "privileged",
                constraint("K8sPSPPrivilegedContainer", 'exemptImages: ["trusted/*"]'),
                [
                    ("bad", pod("bad", PRIV), "violations: yes"),
                    ("good", pod("good", PLAIN), "violations: no"),
                    ("ephemeral", ephemeral, "violations: 1"),
                    ("update", review, "violations: no"),
                    (
                        "exempt",
                        pod("ex", PRIV.replace("app:1.0", "trusted/app:1")),
                        "violations: no",
                    ),
                    (
                        "mixed",
                        pod(
                            "mix",
                            PLAIN + PRIV.replace("app:1.0", "trusted/x:1").replace("c\n", "t\n", 1),
                        ),
                        "violations: no",
                    ),
                    ("message-only", pod("m", PRIV), "{violations: no, message: other}"),
                    ("missing", None, "violations: yes"),
                ],
            )
        ],
    )
    write_policy(
        root,
        "pod-security-policy/host-network-ports",
        [
            (
                "forbid",
                constraint("K8sPSPHostNetworkingPorts", "hostNetwork: false\nmin: 80\nmax: 90\n"),
                [
                    ("hn-on", pod("hn-on", PLAIN, "hostNetwork: true\n"), "violations: yes"),
                    ("hn-off", pod("hn-off", PLAIN), "violations: no"),
                    (
                        "port",
                        pod("port", PLAIN + "  ports: [{containerPort: 1, hostPort: 9999}]\n"),
                        "violations: yes",
                    ),
                    ("in-range", pod("in-range", PLAIN + port(85)), "violations: no"),
                ],
            ),
            (
                "allow",
                constraint("K8sPSPHostNetworkingPorts", "hostNetwork: true\n"),
                [("hn-on2", pod("hn-on2", PLAIN, "hostNetwork: true\n"), "violations: no")],
            ),
            (
                "no-ports",
                constraint(
                    "K8sPSPHostNetworkingPorts",
                    'hostNetwork: false\nmin: 0\nmax: 0\nexemptImages: ["trusted/*"]\n',
                ),
                [
                    ("hp-8080", pod("hp-8080", PLAIN + port(8080)), "violations: yes"),
                    ("hp-zero", pod("hp-zero", PLAIN + port(0)), "violations: no"),
                    (
                        "hp-exempt",
                        pod("hp-exempt", PLAIN.replace("app:1.0", "trusted/a:1.0") + port(8080)),
                        "violations: no",
                    ),
                ],
            ),
        ],
    )
    write_pss(root)
    write_policy(
        root,
        "general/requiredlabels",
        [("labels", constraint("K8sRequiredLabels"), [("x", pod("x", PLAIN), "violations: yes")])],
    )
    return root


def test_every_mapped_id_is_in_the_catalogue() -> None:
    assert all(set(m.ids) <= set(CATALOGUE) for m in POLICIES.values())
    groups = {p.split("/", 1)[0] for p in POLICIES}
    assert groups == {"general", "pod-security-policy"}


def test_cases_and_assertions_are_read(checkout: Path) -> None:
    cases = {c.name: c for c in load_cases(checkout)}
    assert cases["bad"].expected is True and cases["ephemeral"].expected is True
    assert cases["good"].expected is False and cases["message-only"].expected is None
    assert cases["bad"].policy == "pod-security-policy/privileged-containers"
    assert cases["x"].policy == "general/requiredlabels"


def test_scope_rules(checkout: Path) -> None:
    cases = {c.name: c for c in load_cases(checkout)}

    def why(name: str) -> str | None:
        case = cases[name]
        return assess(case, POLICIES[case.policy]).reason

    assert why("bad") is None and why("good") is None and why("ephemeral") is None
    assert "AdmissionReview" in why("update")
    assert "every container exempted" in why("exempt")
    assert why("mixed") is None  # exempt container removed, the other one scored
    mixed = assess(cases["mixed"], POLICIES[cases["mixed"].policy])
    assert mixed.exempted == 1 and len(mixed.objects[0]["spec"]["containers"]) == 1
    assert why("message-only") == "assertions only filter messages"
    assert why("missing") == "object file missing"
    assert why("hn-on") is None  # hostNetwork: true decides whatever the port range says
    assert why("port") is None  # 9999 is outside [80, 90]: both flag it (k8s/host-port)
    assert "admits the hostPort" in why("in-range") and "allows hostNetwork" in why("hn-on2")
    assert why("hp-8080") is None and why("hp-zero") is None  # [0, 0]: no host port but 0
    assert "exempted by exemptImages" in why("hp-exempt")
    assert why("sc-annot") is None and why("sc-ok") is None
    assert "effective profile" in why("sc-unset")  # 'not configured' is not allowed
    assert why("aa-off") is None and why("aa-override") is None
    assert "effective profile" in why("aa-local")
    assert why("pm-unmasked") is None and why("pm-default") is None
    assert why("pm-allowed") == "constraint allows Unmasked"
    assert why("sy-kernel") is None and why("sy-safe") is None
    assert "net.core.somaxconn" in why("sy-net")
    assert why("sy-broken").startswith("constraint does not parse")


def test_pod_level_and_parameter_scopes() -> None:
    volumes = POLICIES["pod-security-policy/volumes"].scope
    hp = [{"kind": "Pod", "spec": {"volumes": [{"name": "v", "hostPath": {"path": "/x"}}]}}]
    nfs = [{"kind": "Pod", "spec": {"volumes": [{"name": "v", "nfs": {}}]}}]
    assert volumes({"volumes": ["emptyDir"]}, hp) is None
    assert "nfs" in volumes({"volumes": ["emptyDir"]}, nfs)
    assert "allows hostPath" in volumes({"volumes": ["*"]}, hp)
    caps = POLICIES["pod-security-policy/capabilities"].scope

    def with_caps(add: list[str], drop: list[str] | None = None) -> list[dict]:
        sc = {"capabilities": {"add": add, "drop": drop or []}}
        return [{"kind": "Pod", "spec": {"containers": [{"name": "c", "securityContext": sc}]}}]

    restricted = {"allowedCapabilities": ["NET_BIND_SERVICE"], "requiredDropCapabilities": ["ALL"]}
    assert caps(restricted, with_caps(["SYS_ADMIN"])) is None  # both forbid it
    assert caps(restricted, with_caps(["NET_BIND_SERVICE"], ["ALL"])) is None
    assert "requiredDrop" in caps(restricted, with_caps(["NET_BIND_SERVICE"]))
    assert "CHOWN" in caps(restricted, with_caps(["CHOWN"], ["ALL"]))
    limits = POLICIES["general/containerlimits"].scope
    lim = [
        {
            "kind": "Pod",
            "spec": {"containers": [{"resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}]},
        }
    ]
    assert "maximum" in limits({"cpu": "500m", "memory": "2Gi"}, lim)
    assert limits({"cpu": "2", "memory": "1024Mi"}, lim) is None
    assert "-1" in limits({"cpu": "-1", "memory": "1Gi"}, lim)
    assert exempt("trusted/app:1", ["trusted/*"]) and not exempt("app", ["trusted/*", "ap"])


def test_agreement_rows_on_the_synthetic_checkout(agreement, checkout: Path) -> None:
    res = agreement.gatekeeper_rows(checkout, ScanCache())
    scored = {r.case.split(" ")[0]: r for r in res.rows}
    assert set(scored) == {
        "privileged/bad",
        "privileged/good",
        "privileged/ephemeral",
        "privileged/mixed",
        "forbid/hn-on",
        "forbid/hn-off",
        "forbid/port",
        "no-ports/hp-8080",
        "no-ports/hp-zero",
        "seccomp/sc-annot",
        "seccomp/sc-ok",
        "apparmor/aa-off",
        "apparmor/aa-override",
        "default/pm-unmasked",
        "default/pm-default",
        "sysctls/sy-kernel",
        "sysctls/sy-safe",
    }
    assert all(r.expected == r.predicted for r in res.rows), [
        (r.case, r.detail) for r in res.rows if r.expected != r.predicted
    ]
    assert res.uncovered == {"general/requiredlabels": 1}
    assert len(res.out_of_scope) == 12


def test_script_runs_without_the_terraform_labels(
    agreement, checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out_json = tmp_path / "m.json"
    rc = agreement.main(
        [str(checkout), "--realdata", str(tmp_path / "none"), "--json", str(out_json)]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "Terraform part skipped: no checkov labels file" in out
    assert "pod-security-policy/privileged-containers" in out and "100.0" in out
    assert "overall on covered in-scope cases: 17/17 = 100.0%" in out
    assert "general/requiredlabels (1 cases)" in out
    assert "[pod-security-policy/privileged-containers] privileged/update: AdmissionReview" in out
    assert '"per_policy"' in out_json.read_text()


@pytest.mark.parametrize("bad", ["missing-dir", "empty-dir", "a-file"])
def test_bad_checkout_is_a_one_line_error(
    agreement, tmp_path: Path, bad: str, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / bad
    if bad == "empty-dir":
        path.mkdir()
    elif bad == "a-file":
        path.write_text("x")
    assert agreement.main([str(path), "--no-terraform"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("error: ") and str(path) in err and "\n" not in err
    assert captured.out == ""
    with pytest.raises(GatekeeperError):
        suite_paths(path)


def test_case_is_hashable_record() -> None:
    case = Case("general/x", "t", "c", None, None, True)
    assert case.policy == "general/x" and {case}


def test_host_port_and_resolution_scopes(tmp_path: Path) -> None:
    ports = POLICIES["pod-security-policy/host-network-ports"].scope

    def with_ports(*entries: dict) -> list[dict]:
        c = {"name": "c", "image": "app:1.0", "ports": list(entries)}
        return [{"kind": "Pod", "spec": {"containers": [c]}}]

    forbid = {"hostNetwork": False, "min": 80, "max": 90}
    assert ports(forbid, with_ports({"hostPort": 9999})) is None
    assert "Rego and CEL" in ports(forbid, with_ports({"containerPort": 1}, {"hostPort": 9999}))
    assert "[None, None] admits" in ports({}, with_ports({"hostPort": 8080}))  # no range given
    assert "rejects hostPort 0" in ports({"min": 1}, with_ports({"hostPort": 0}))
    limits = POLICIES["general/containerlimits"].scope

    def with_limits(cpu: str) -> list[dict]:
        c = {"resources": {"limits": {"cpu": cpu, "memory": "1Gi"}}}
        return [{"kind": "Pod", "spec": {"containers": [c]}}]

    assert "beyond any node's size" in limits({"cpu": "500", "memory": "2Gi"}, with_limits("200"))
    assert limits({"cpu": "150", "memory": "2Gi"}, with_limits("200")) is None  # both flag
    resources = POLICIES["general/containerresources"].scope
    assert "beyond any node's size" in resources({"limits": ["cpu", "memory"]}, with_limits("1k"))
    sysctls = POLICIES["pod-security-policy/forbidden-sysctls"].scope
    deploy = [{"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{}]}}}}]
    assert "Deployment's pod template" in sysctls({"forbiddenSysctls": ["*"]}, deploy)
    # a claim bound to a hostPath PersistentVolume of the object file: the catalogue follows it
    objects = (
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\n"
        "spec: {hostPath: {path: /}, claimRef: {name: data, namespace: default}}\n---\n"
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {}\n---\n"
        + pod("claims", PLAIN, "volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]\n")
    )
    write_policy(
        tmp_path,
        "pod-security-policy/host-filesystem",
        [
            (
                "claims",
                constraint("K8sPSPHostFilesystem", kinds="*"),
                [("claimed", objects, "violations: no")],
            )
        ],
    )
    (case,) = load_cases(tmp_path)
    assert "hostPath PersistentVolume" in assess(case, POLICIES[case.policy]).reason
