"""Capabilities reached through another object or spelt another way are judged by what they
grant (k8s_effective, tf_effective, iam_globs), and the fix contract (patch_contract)."""

from __future__ import annotations

import copy
import random
import string
from typing import Any

import pytest

from sv_env_config_verification.configs import (
    ConfigFile,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
)
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.iam_globs import cover_every_action
from sv_env_config_verification.k8s_effective import effective_objects, quantity
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patch_contract import contract_violation
from sv_env_config_verification.tf_effective import effective_terraform, managed_policy
from sv_env_config_verification.tf_values import normalise_values

IAM = "tf/iam-wildcard-action"


def findings(kind: str, text: str) -> set[tuple[str, str]]:
    result = scan(ConfigFile(kind, "main.tf" if kind == "terraform" else "m.yaml", text))
    assert result.valid, result.invalid_reasons
    return {(f.id, f.resource) for f in result.findings}


def ids(kind: str, text: str) -> set[str]:
    return {vid for vid, _ in findings(kind, text)}


# ------------------------------------------------------------------ IAM glob unions
LETTERS = [f"{c}*" for c in string.ascii_lowercase]


@pytest.mark.parametrize(
    "patterns",
    [["*"], ["*:*"], LETTERS, ["*:?*"], ["*:??", "*:???*"], ["A*", *LETTERS[1:]], ["?*:*"]],
)
def test_glob_sets_that_match_every_action(patterns):
    assert cover_every_action(patterns)


@pytest.mark.parametrize(
    "patterns",
    [LETTERS[:-1], ["s3:*", "iam:*"], ["*:Get*", "*:List*"], ["???*:*"], ["*:??"], [], [7]],
)
def test_glob_sets_that_do_not(patterns):
    assert not cover_every_action(patterns)


def iam_policy(statements: str) -> str:
    return (
        'resource "aws_iam_policy" "p" {\n  name = "p"\n  policy = jsonencode({\n'
        f'    Version = "2012-10-17"\n    Statement = [{statements}]\n  }})\n}}\n'
    )


def test_glob_union_in_one_statement_and_across_statements_is_a_wildcard():
    letters = ", ".join(f'"{g}"' for g in LETTERS)
    one = f'{{ Effect = "Allow", Action = [{letters}], Resource = "*" }}'
    halves = (
        '{ Effect = "Allow", Action = ["a*", "b*", "c*", "d*", "e*", "f*", "g*", "h*", "i*", '
        '"j*", "k*", "l*", "m*"], Resource = "*" }, { Effect = "Allow", Action = ["n*", "o*", '
        '"p*", "q*", "r*", "s*", "t*", "u*", "v*", "w*", "x*", "y*", "z*"], Resource = "*" }'
    )
    narrow = '{ Effect = "Allow", Action = ["s3:Get*", "s3:List*"], Resource = "*" }'
    assert IAM in ids("terraform", iam_policy(one))
    assert IAM in ids("terraform", iam_policy(halves))
    assert IAM not in ids("terraform", iam_policy(narrow))


# ------------------------------------------------------------------ Terraform indirection
ROLE = 'resource "aws_iam_role" "r" {\n  name = "r"\n  assume_role_policy = "{}"\n}\n'


@pytest.mark.parametrize("policy", ["AdministratorAccess", "PowerUserAccess"])
def test_attaching_an_aws_managed_admin_policy_is_a_wildcard_grant(policy):
    arn = f"arn:aws:iam::aws:policy/{policy}"
    attach = (
        f'resource "aws_iam_role_policy_attachment" "a" {{\n  role = aws_iam_role.r.name\n'
        f'  policy_arn = "{arn}"\n}}\n'
    )
    assert (IAM, "aws_iam_role_policy_attachment.a") in findings("terraform", ROLE + attach)
    inline = ROLE.replace('  name = "r"\n', f'  name = "r"\n  managed_policy_arns = ["{arn}"]\n')
    assert (IAM, "aws_iam_role.r") in findings("terraform", inline)


def test_unknown_managed_policies_are_not_flagged_and_iam_full_access_is():
    def attach(arn: str) -> str:
        return (
            'resource "aws_iam_role_policy_attachment" "a" {\n  role = "r"\n'
            f'  policy_arn = "{arn}"\n}}\n'
        )

    assert IAM not in ids("terraform", ROLE + attach("arn:aws:iam::123:policy/Custom"))
    # iam:* on every resource lets the role attach itself AdministratorAccess
    assert IAM in ids("terraform", ROLE + attach("arn:aws:iam::aws:policy/IAMFullAccess"))
    assert managed_policy("arn:aws-us-gov:iam::aws:policy/AdministratorAccess") is not None
    assert managed_policy("arn:aws:iam::aws:policy/job-function/Nothing") is None


PREFIX = (
    'resource "aws_ec2_managed_prefix_list" "world" {\n  name = "w"\n  address_family = "IPv4"\n'
    '  max_entries = 2\n  entry {\n    cidr = "0.0.0.0/1"\n  }\n  entry {\n'
    '    cidr = "128.0.0.0/1"\n  }\n}\n'
)


def test_a_prefix_list_that_covers_the_internet_opens_the_port():
    sg = (
        'resource "aws_security_group" "sg" {\n  name = "sg"\n  ingress {\n    protocol = "tcp"\n'
        "    from_port = 22\n    to_port = 22\n"
        "    prefix_list_ids = [aws_ec2_managed_prefix_list.world.id]\n  }\n}\n"
    )
    assert ("tf/sg-open-admin-port", "aws_security_group.sg") in findings("terraform", PREFIX + sg)
    rule = (
        'resource "aws_vpc_security_group_ingress_rule" "ssh" {\n'
        '  security_group_id = aws_security_group.sg.id\n  ip_protocol = "tcp"\n'
        "  from_port = 22\n  to_port = 22\n"
        "  prefix_list_id = aws_ec2_managed_prefix_list.world.id\n}\n"
    )
    found = findings("terraform", PREFIX + rule)
    assert ("tf/sg-open-admin-port", "aws_vpc_security_group_ingress_rule.ssh") in found
    office = PREFIX.replace("0.0.0.0/1", "10.0.0.0/8").replace("128.0.0.0/1", "192.168.0.0/16")
    assert "tf/sg-open-admin-port" not in ids("terraform", office + sg)


def trail(selectors: str) -> str:
    return (
        'resource "aws_cloudtrail" "t" {\n  name = "t"\n  s3_bucket_name = "logs"\n'
        f"  enable_logging = true\n{selectors}}}\n"
    )


@pytest.mark.parametrize(
    "selectors",
    [
        "  event_selector {\n    include_management_events = false\n  }\n",
        "  event_selector {\n    include_management_events = false\n    data_resource {\n"
        '      type = "AWS::S3::Object"\n      values = []\n    }\n  }\n',
        '  advanced_event_selector {\n    name = "none"\n    field_selector {\n'
        '      field = "eventCategory"\n      equals = ["Nothing"]\n    }\n  }\n',
        '  event_selector {\n    read_write_type = "ReadOnly"\n'
        "    include_management_events = true\n  }\n",
        '  advanced_event_selector {\n    name = "reads"\n    field_selector {\n'
        '      field = "readOnly"\n      equals = ["true"]\n    }\n  }\n',
    ],
)
def test_selectors_that_record_nothing_are_logging_disabled(selectors):
    assert "tf/cloudtrail-logging-disabled" in ids("terraform", trail(selectors))


@pytest.mark.parametrize(
    "selectors",
    [
        "",
        "  event_selector {\n    include_management_events = true\n  }\n",
        '  event_selector {\n    read_write_type = "WriteOnly"\n  }\n',
        "  event_selector {\n    include_management_events = false\n    data_resource {\n"
        '      type = "AWS::S3::Object"\n      values = ["arn:aws:s3:::b/"]\n    }\n  }\n',
    ],
)
def test_selectors_that_record_events_are_logging(selectors):
    assert "tf/cloudtrail-logging-disabled" not in ids("terraform", trail(selectors))


# ------------------------------------------------------------------ Kubernetes
def pod(
    volumes: str = "", image: str = "nginx:1.25.4", limits: str = 'cpu: "1"\n        memory: 128Mi'
) -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
        f"  - name: web\n    image: {image}\n    securityContext:\n"
        "      allowPrivilegeEscalation: false\n      readOnlyRootFilesystem: true\n"
        "      runAsNonRoot: true\n    resources:\n      limits:\n"
        f"        {limits}\n{volumes}"
    )


CLAIM_VOLUME = "  volumes:\n  - name: data\n    persistentVolumeClaim:\n      claimName: data\n"
HOST_PV = (
    "---\napiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: host-pv\nspec:\n"
    "  storageClassName: manual\n  capacity:\n    storage: 1Gi\n  accessModes: [ReadWriteOnce]\n"
    "  hostPath:\n    path: /var/run\n"
)


@pytest.mark.parametrize("binding", ["  volumeName: host-pv\n", "  storageClassName: manual\n"])
def test_a_claim_bound_to_a_hostpath_volume_mounts_the_host(binding):
    pvc = (
        "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
        f"  accessModes: [ReadWriteOnce]\n{binding}"
        "  resources:\n    requests:\n      storage: 1Gi\n"
    )
    text = pod(CLAIM_VOLUME) + HOST_PV + pvc
    assert ("k8s/hostpath-volume", "Pod/web") in findings("k8s", text)
    other = pvc.replace("host-pv", "other-pv").replace("manual", "fast")
    assert "k8s/hostpath-volume" not in ids("k8s", pod(CLAIM_VOLUME) + HOST_PV + other)


@pytest.mark.parametrize(
    ("image", "floating"),
    [("nginx:stable", True), ("redis:7", True), ("app:v2", True), ("nginx", True),
     ("nginx:latest", True), ("nginx:1.25.4", False), ("redis:7.2-alpine", False),
     ("app:20240115", False), ("app:3f9a2c1", False), ("nginx@sha256:" + "a" * 64, False),
     ("registry:5000/app:2.1.0", False)],
)  # fmt: skip
def test_floating_tags_are_not_pinned(image, floating):
    assert ("k8s/image-latest-tag" in ids("k8s", pod(image=image))) is floating


@pytest.mark.parametrize(
    ("limits", "vacuous"),
    [('cpu: "100000"\n        memory: 128Mi', True), ('cpu: "1"\n        memory: 1000Pi', True),
     ('cpu: 500m\n        memory: 512Gi', False), ('cpu: "64"\n        memory: 1Ti', False)],
)  # fmt: skip
def test_limits_beyond_any_node_are_no_limits(limits, vacuous):
    assert ("k8s/missing-resource-limits" in ids("k8s", pod(limits=limits))) is vacuous


def test_quantities():
    assert quantity("500m") == 0.5
    assert quantity("1Gi") == 2**30
    assert quantity("1e3") == 1000
    assert quantity(4) == 4
    assert quantity("lots") is None


def role(rules: str, kind: str = "ClusterRole", extra: str = "") -> str:
    """A role; `rules` is a YAML block list, or "[]" for none."""
    body = " []\n" if rules.strip() == "[]" else f"\n{rules}"
    return (
        f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: ops\n"
        f"{extra}rules:{body}"
    )


BINDING = (
    "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
    "  name: ops\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"
    "  name: ops\nsubjects:\n- kind: User\n  name: alice\n  apiGroup: rbac.authorization.k8s.io\n"
)


def test_enumerating_every_verb_or_resource_is_a_wildcard():
    verbs = '["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]'
    every_verb = f'- apiGroups: [""]\n  resources: ["pods"]\n  verbs: {verbs}\n'
    core = (
        '["bindings", "componentstatuses", "configmaps", "endpoints", "events", "limitranges", '
        '"namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes", "pods", '
        '"podtemplates", "replicationcontrollers", "resourcequotas", "secrets"]'
    )
    most_resources = f'- apiGroups: [""]\n  resources: {core}\n  verbs: ["get"]\n'
    narrow = '- apiGroups: [""]\n  resources: ["pods", "services"]\n  verbs: ["get", "list"]\n'
    assert "k8s/rbac-wildcard" in ids("k8s", role(every_verb))
    assert "k8s/rbac-wildcard" in ids("k8s", role(most_resources))
    assert "k8s/rbac-wildcard" not in ids("k8s", role(narrow))


@pytest.mark.parametrize(
    "selector",
    ["  - matchLabels:\n      kubernetes.io/bootstrapping: rbac-defaults\n", "  - {}\n",
     "  - matchExpressions:\n    - {key: kubernetes.io/bootstrapping, operator: Exists}\n"],
)  # fmt: skip
def test_binding_a_role_that_aggregates_cluster_admin_is_a_cluster_admin_binding(selector):
    aggregated = role("[]\n", extra=f"aggregationRule:\n  clusterRoleSelectors:\n{selector}")
    found = findings("k8s", aggregated + BINDING)
    assert ("k8s/cluster-admin-binding", "ClusterRoleBinding/ops") in found


def test_binding_a_copy_of_cluster_admin_is_a_cluster_admin_binding():
    copy = role('- apiGroups: ["*"]\n  resources: ["*"]\n  verbs: ["*"]\n')
    assert ("k8s/cluster-admin-binding", "ClusterRoleBinding/ops") in findings(
        "k8s", copy + BINDING
    )
    narrow = role('- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["get"]\n')
    assert "k8s/cluster-admin-binding" not in ids("k8s", narrow + BINDING)


# ------------------------------------------------------------------ the fix contract
def violation(kind: str, before: str, after: str, finding_ids: list[str]) -> str | None:
    name = "main.tf" if kind == "terraform" else "m.yaml"
    return contract_violation(
        ConfigFile(kind, name, before), ConfigFile(kind, name, after), finding_ids
    )


BUCKET = 'resource "aws_s3_bucket" "b" {\n  bucket = "b"\n}\n'
PAB = (
    'resource "aws_s3_bucket_public_access_block" "b" {\n  bucket = aws_s3_bucket.b.id\n'
    "  block_public_acls = true\n  block_public_policy = true\n  ignore_public_acls = true\n"
    "  restrict_public_buckets = true\n}\n"
)


def test_a_fix_may_add_only_the_kinds_its_rules_list():
    assert violation("terraform", BUCKET, BUCKET + PAB, ["tf/s3-public-access"]) is None
    reason = violation("terraform", BUCKET, BUCKET + PAB, ["tf/iam-wildcard-action"])
    assert reason is not None and "may add only" in reason
    attach = (
        'resource "aws_iam_role_policy_attachment" "x" {\n  role = "r"\n  policy_arn = "a"\n}\n'
    )
    assert "adds aws_iam_role_policy_attachment.x" in str(
        violation("terraform", ROLE, ROLE + attach, [IAM])
    )
    module = 'module "m" {\n  source = "./m"\n}\n'
    assert "module" in str(violation("terraform", BUCKET, BUCKET + module, ["tf/s3-public-access"]))
    assert "nothing" in str(violation("k8s", pod(), pod() + HOST_PV, []))
    assert (
        violation(
            "k8s", BINDING[4:], BINDING[4:] + "---\n" + role("[]\n"), ["k8s/cluster-admin-binding"]
        )
        is None
    )


def test_scope_attributes_are_immutable():
    moved = PAB.replace("aws_s3_bucket.b.id", '"other-bucket"')
    assert "bucket" in str(
        violation("terraform", BUCKET + PAB, BUCKET + moved, ["tf/s3-public-access"])
    )
    key = 'resource "aws_kms_key" "k" {\n  description = "k"\n}\n'
    respec = key.replace(
        '  description = "k"\n', '  description = "k"\n  customer_master_key_spec = "RSA_2048"\n'
    )
    assert "customer_master_key_spec" in str(
        violation("terraform", key, respec, ["tf/kms-rotation-disabled"])
    )
    rotated = key.replace(
        '  description = "k"\n', '  description = "k"\n  enable_key_rotation = true\n'
    )
    assert violation("terraform", key, rotated, ["tf/kms-rotation-disabled"]) is None
    binding = BINDING[4:]
    rekind = binding.replace("  kind: ClusterRole\n", "  kind: Role\n")
    assert "roleRef.kind" in str(violation("k8s", binding, rekind, ["k8s/cluster-admin-binding"]))
    plain = role("- apiGroups: ['']\n  resources: [pods]\n  verbs: [get]\n")
    aggregated = plain.replace(
        "rules:", "aggregationRule:\n  clusterRoleSelectors:\n  - {}\nrules:"
    )
    assert "aggregationRule" in str(violation("k8s", plain, aggregated, ["k8s/rbac-wildcard"]))


# ------------------------------------------------------------------ Pod Security Standards
def workload(pod_fields: str = "", container_fields: str = "", notes: str = "") -> str:
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n"
        f"    metadata:\n      annotations: {{{notes}}}\n    spec:\n{pod_fields}"
        "      containers:\n      - name: api\n        image: api:1.2.3\n"
        "        resources:\n          limits: {cpu: '1', memory: 1Gi}\n"
        "        securityContext:\n          allowPrivilegeEscalation: false\n"
        "          readOnlyRootFilesystem: true\n          runAsNonRoot: true\n"
        f"{container_fields}"
    )


@pytest.mark.parametrize(
    ("text", "vid"),
    [
        (
            workload(
                container_fields="        ports:\n        - {containerPort: 80, hostPort: 8080}\n"
            ),
            "k8s/host-port",
        ),
        (
            workload(
                pod_fields="      securityContext:\n        seccompProfile: {type: Unconfined}\n"
            ),
            "k8s/seccomp-unconfined",
        ),
        (
            workload(container_fields="          seccompProfile: {type: Unconfined}\n"),
            "k8s/seccomp-unconfined",
        ),
        (
            workload(notes="seccomp.security.alpha.kubernetes.io/pod: unconfined"),
            "k8s/seccomp-unconfined",
        ),
        (
            workload(container_fields="          appArmorProfile: {type: Unconfined}\n"),
            "k8s/apparmor-unconfined",
        ),
        (
            workload(notes="container.apparmor.security.beta.kubernetes.io/api: unconfined"),
            "k8s/apparmor-unconfined",
        ),
        (workload(container_fields="          procMount: Unmasked\n"), "k8s/unmasked-proc-mount"),
        (
            workload(
                pod_fields="      securityContext:\n        sysctls:\n"
                "        - {name: kernel.msgmax, value: '65536'}\n"
            ),
            "k8s/unsafe-sysctls",
        ),
    ],
)
def test_pod_security_standards_baseline_controls(text, vid):
    assert (vid, "Deployment/api") in findings("k8s", text)


def test_pod_security_standards_allowed_values_are_clean():
    text = workload(
        pod_fields="      securityContext:\n        seccompProfile: {type: RuntimeDefault}\n"
        "        sysctls:\n        - {name: net.ipv4.tcp_syncookies, value: '1'}\n",
        container_fields="          procMount: Default\n          appArmorProfile: {type: RuntimeDefault}\n"  # noqa: E501
        "        ports:\n        - {containerPort: 80, hostPort: 0}\n",
        notes="container.apparmor.security.beta.kubernetes.io/api: runtime/default",
    )
    assert ids("k8s", text) == set()


def scoped_policy(actions: str, resource: str) -> str:
    return iam_policy(f'{{ Effect = "Allow", Action = {actions}, Resource = {resource} }}')


@pytest.mark.parametrize(
    ("actions", "resource", "wildcard"),
    [
        ('["s3:*"]', '"arn:aws:s3:::logs/*"', True),  # every action that applies there
        ('["s3:Get*", "s3:Put*"]', '"arn:aws:s3:::logs/*"', False),
        ('["s3:*"]', '"*"', False),  # a service wildcard on everything: not every action
        ('["iam:*"]', '"*"', True),  # can write itself any policy
        ('["iam:AttachRolePolicy"]', '"*"', True),
        ('["iam:AttachRolePolicy"]', '"arn:aws:iam::123:role/app"', False),
        ('["iam:GetRole", "iam:ListRoles"]', '"*"', False),
        ('["s3:*", "kms:*"]', '["arn:aws:s3:::b", "arn:aws:kms:eu-west-1:123:key/k"]', True),
        ('["s3:*"]', '["arn:aws:s3:::b", "arn:aws:kms:eu-west-1:123:key/k"]', False),
    ],
)
def test_wildcards_in_effect(actions, resource, wildcard):
    assert (IAM in ids("terraform", scoped_policy(actions, resource))) is wildcard


# ------------------------------------------------------------------ type confusion
_ODD = [None, 1, "x", [], {}, [1, "a"], {"a": None}, True, 3.5, [{}], ["*"], {"name": [1]}]
_K8S_EXTRA = [
    {"kind": "PersistentVolume", "metadata": {"name": "pv"},
     "spec": {"hostPath": {"path": "/"}, "claimRef": {"name": "c"}}},
    {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {"volumeName": "pv"}},
    {"kind": "ClusterRole", "metadata": {"name": "agg", "labels": {"a": "b"}},
     "aggregationRule": {"clusterRoleSelectors": [
         {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}]},
     "rules": [{"verbs": ["*"]}]},
    {"kind": "ClusterRoleBinding", "metadata": {"name": "b"},
     "roleRef": {"kind": "ClusterRole", "name": "agg"}},
]  # fmt: skip


def _confuse(value: Any, rng: random.Random) -> None:
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = list(enumerate(value))
    else:
        return
    for key, item in pairs:
        if rng.random() < 0.15:
            value[key] = copy.deepcopy(rng.choice(_ODD))
        else:
            _confuse(item, rng)


def test_resolution_never_raises_on_values_of_the_wrong_type():
    """Manifests and HCL can hold any type anywhere; resolving must not crash the adapter."""
    rng = random.Random(7)
    for base in load_bases().values():
        for _ in range(8):
            if base.kind == "k8s":
                objects = parse_k8s(base.text) + copy.deepcopy(_K8S_EXTRA)
                _confuse(objects, rng)
                effective_objects(objects)
            else:
                data = normalise_terraform(parse_terraform(base.text))
                for resource in data["resources"]:
                    _confuse(resource["config"], rng)
                normalise_values(effective_terraform(data))
