"""Strict patch application and the semantic-preservation rules (one test per rule)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.mutations import mutate
from sv_env_config_verification.patching import (
    apply_patch,
    apply_unified_diff,
    image_repository,
    make_unified_diff,
)

BASES = load_bases()
SIDECAR = BASES["k8s/deployment-sidecar-proxy"]  # one Deployment, two containers
WEB = BASES["k8s/deployment-web"]  # Deployment + Service
RBAC = BASES["k8s/rbac-namespace-reader"]  # ServiceAccount + Role + RoleBinding
REDIS = BASES["k8s/statefulset-redis"]  # has an initContainer
RDS = BASES["terraform/rds-postgres"]
S3 = BASES["terraform/s3-access-logs"]


def diff_to(config: ConfigFile, new_text: str) -> str:
    return make_unified_diff(config.name, config.text, new_text)


def replaced(config: ConfigFile, old: str, new: str, count: int = 1) -> str:
    assert old in config.text, old
    return config.text.replace(old, new, count)


def outcome_for(config: ConfigFile, new_text: str):
    return apply_patch(config, diff_to(config, new_text))


# ------------------------------------------------------------------------ applying diffs
def test_empty_patch() -> None:
    for patch in ("", "   \n"):
        out = apply_patch(SIDECAR, patch)
        assert (out.applied, out.preserved, out.reason, out.patched) == (
            False,
            False,
            "empty",
            None,
        )


def test_genuine_fix_applies_and_preserves() -> None:
    mutated = mutate(SIDECAR, ["k8s/privileged-container"], random.Random(0))
    out = apply_patch(mutated.config, mutated.fix_patch)
    assert out.ok and out.reason is None
    assert out.patched is not None and out.patched.text == SIDECAR.text
    assert out.patched.name == SIDECAR.name and out.patched.kind == "k8s"


def test_git_style_headers_and_fences_are_accepted() -> None:
    new = replaced(SIDECAR, "replicas: 3", "replicas: 4")
    patch = diff_to(SIDECAR, new)
    git = f"diff --git a/{SIDECAR.name} b/{SIDECAR.name}\nindex 83db48f..bf269f4 100644\n" + patch
    for variant in (
        git,
        "```diff\n" + patch + "```",
        patch.replace("a/", "", 1).replace("b/", "", 1),
    ):
        out = apply_patch(SIDECAR, variant)
        assert out.ok, out.reason
        assert out.patched is not None and out.patched.text == new


def test_wrong_line_numbers_but_exact_context_apply() -> None:
    new = replaced(SIDECAR, "replicas: 3", "replicas: 4")
    patch = diff_to(SIDECAR, new)
    header = next(line for line in patch.splitlines() if line.startswith("@@"))
    shifted = patch.replace(header, "@@ -5,7 +5,7 @@")
    assert apply_patch(SIDECAR, shifted).ok


@pytest.mark.skipif(shutil.which("diff") is None, reason="GNU diff not installed")
def test_gnu_diff_output_applies(tmp_path: Path) -> None:
    new = replaced(RDS, "publicly_accessible                 = false", "# moved")
    new = new.replace("# moved", "publicly_accessible                 = false\n  # reviewed")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / RDS.name).write_text(RDS.text)
    (tmp_path / "b" / RDS.name).write_text(new)
    proc = subprocess.run(
        ["diff", "-u", f"a/{RDS.name}", f"b/{RDS.name}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert apply_unified_diff(RDS.text, proc.stdout, RDS.name) == new


@pytest.mark.parametrize(
    ("mangle", "fragment"),
    [
        (lambda p, n: p.replace(f"--- a/{n}", "--- a/other.yaml"), "other.yaml"),
        (lambda p, n: p.replace(f"+++ b/{n}", "+++ b/../../etc/passwd"), "passwd"),
        (lambda p, n: p.replace(f"--- a/{n}", "--- /dev/null"), "creates or deletes"),
        (lambda p, n: p + p, "more than one file section"),
        (
            lambda p, n: p + "--- a/other.yaml\n+++ b/other.yaml\n@@ -1 +1 @@\n-a\n+b\n",
            "more than one",
        ),
        (lambda p, n: f"diff --git a/{n} b/other.yaml\n" + p, "another file"),
        (lambda p, n: f"diff --git a/{n} b/{n}\nnew file mode 100644\n" + p, "new file"),
        (lambda p, n: f"rename from {n}\nrename to x.yaml\n" + p, "rename"),
        (lambda p, n: "Here is my fix:\n" + p, "before the diff header"),
        (lambda p, n: p.split("@@")[0], "no hunks"),
        (lambda p, n: "just some text", "not a unified diff"),
        (lambda p, n: p.replace("-  replicas: 3", "-  replicas: 9"), "context does not match"),
        (lambda p, n: p.replace("   selector:", "   selectors:"), "context does not match"),
        (lambda p, n: p.replace("+  replicas: 4", "+  replicas: 4\n+  extra: line"), "longer"),
        (lambda p, n: p.rsplit("\n", 3)[0] + "\n", "shorter"),
        (lambda p, n: p.replace("+  replicas: 4", "*  replicas: 4"), "invalid hunk line"),
        (lambda p, n: p + "trailing garbage\n", "outside a hunk"),
    ],
)
def test_malformed_or_foreign_diffs_are_rejected(mangle, fragment: str) -> None:
    patch = diff_to(SIDECAR, replaced(SIDECAR, "replicas: 3", "replicas: 4"))
    out = apply_patch(SIDECAR, mangle(patch, SIDECAR.name))
    assert not out.applied and not out.preserved and out.patched is None
    assert out.reason is not None and fragment in out.reason, out.reason


def test_binary_and_huge_patches_are_rejected() -> None:
    assert "NUL" in (apply_patch(SIDECAR, "--- a/x\x00").reason or "")
    assert "longer than" in (apply_patch(SIDECAR, "x" * 300_000).reason or "")


def test_no_newline_marker_round_trip() -> None:
    text = "a\nb\nc"
    patch = make_unified_diff("f.tf", text, "a\nB\nc\n")
    assert "\\ No newline at end of file" in patch
    assert apply_unified_diff(text, patch, "f.tf") == "a\nB\nc\n"


_lines = st.lists(st.sampled_from(["a", "b", "c", "", "  x: 1", "}"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_lines, _lines, st.booleans(), st.booleans(), st.integers(0, 3))
def test_make_and_apply_round_trip(
    old: list[str], new: list[str], nl1: bool, nl2: bool, ctx: int
) -> None:
    before = "\n".join(old) + ("\n" if nl1 and old else "")
    after = "\n".join(new) + ("\n" if nl2 and new else "")
    patch = make_unified_diff("f.yaml", before, after, context=ctx)
    if before == after:
        assert patch == ""
    else:
        assert apply_unified_diff(before, patch, "f.yaml") == after


# ------------------------------------------------------------------------ preservation rules
def _not_preserved(config: ConfigFile, new_text: str, fragment: str) -> None:
    out = outcome_for(config, new_text)
    assert out.applied, out.reason
    assert not out.preserved and out.patched is None
    assert out.reason is not None and fragment in out.reason, out.reason


def test_rule_size_bound() -> None:
    padding = "\n".join(f"# note {i} " + "x" * 60 for i in range(200))
    _not_preserved(RDS, RDS.text + padding + "\n", "too large")


def test_rule_must_parse_yaml_and_hcl() -> None:
    _not_preserved(SIDECAR, replaced(SIDECAR, "replicas: 3", "replicas: [3"), "does not parse")
    _not_preserved(
        RDS,
        replaced(RDS, 'engine                              = "postgres"', 'engine = "postgres'),
        "does not parse",
    )


def test_rule_no_new_suppressions() -> None:
    skip = replaced(
        SIDECAR,
        "  labels:\n    app: payments\nspec:",
        "  labels:\n    app: payments\n  annotations:\n"
        "    checkov.io/skip1: CKV_K8S_16=trusted\nspec:",
    )
    _not_preserved(SIDECAR, skip, "suppression")
    tf_skip = replaced(
        RDS,
        'resource "aws_db_instance" "orders" {',
        'resource "aws_db_instance" "orders" {\n  #checkov:skip=CKV_AWS_17:ok',
    )
    _not_preserved(RDS, tf_skip, "suppression")


def test_rule_delete_the_resource() -> None:
    service_start = WEB.text.index("---\napiVersion: v1\nkind: Service")
    _not_preserved(WEB, WEB.text[:service_start], "Service/web-frontend")
    rds = RDS.text
    start = rds.index('resource "aws_db_instance" "orders"')
    end = rds.index('variable "private_subnet_ids"')
    _not_preserved(RDS, rds[:start] + rds[end:], "aws_db_instance.orders was removed")


def test_rule_rename_or_move_the_resource() -> None:
    _not_preserved(
        WEB,
        replaced(
            WEB,
            "name: web-frontend\n  namespace: storefront",
            "name: web-frontend-v2\n  namespace: storefront",
        ),
        "removed or renamed",
    )
    _not_preserved(WEB, replaced(WEB, "namespace: storefront", "namespace: sandbox"), "removed")
    _not_preserved(
        RDS,
        replaced(RDS, '"aws_db_instance" "orders"', '"aws_db_instance" "orders2"'),
        "removed or renamed",
    )
    _not_preserved(WEB, replaced(WEB, "kind: Deployment", "kind: ConfigMap"), "removed")


def test_explicit_default_namespace_is_the_same_resource() -> None:
    rbac = BASES["k8s/rbac-cluster-metrics"]
    new = replaced(
        rbac,
        "  name: metrics-scraper\nrules:",
        "  name: metrics-scraper\n  namespace: default\nrules:",
    )
    assert outcome_for(rbac, new).ok


def test_rule_delete_the_container() -> None:
    text = SIDECAR.text
    start = text.index("      - name: auth-proxy")
    _not_preserved(SIDECAR, text[:start], "'auth-proxy' was removed")
    _not_preserved(SIDECAR, replaced(SIDECAR, "- name: auth-proxy", "- name: proxy"), "auth-proxy")
    redis = REDIS.text
    start, end = redis.index("      initContainers:"), redis.index("      containers:")
    _not_preserved(REDIS, redis[:start] + redis[end:], "initContainer 'config-render'")


def test_rule_container_may_not_move_between_lists() -> None:
    redis = REDIS.text
    moved = redis.replace("      initContainers:\n", "      containers:\n", 1)
    moved = moved.replace("      containers:\n      - name: redis", "      - name: redis", 1)
    _not_preserved(REDIS, moved, "initContainer 'config-render'")


def test_rule_empty_the_spec() -> None:
    docs = yaml.safe_load(SIDECAR.text)
    docs["spec"]["template"]["spec"] = {}
    _not_preserved(SIDECAR, yaml.safe_dump(docs, sort_keys=False), "pod spec")
    docs["spec"] = {}
    _not_preserved(SIDECAR, yaml.safe_dump(docs, sort_keys=False), "spec was removed")
    del docs["spec"]
    _not_preserved(SIDECAR, yaml.safe_dump(docs, sort_keys=False), "spec was removed")
    service = replaced(WEB, "spec:\n  type: ClusterIP", "spec: {}\nx:\n  type: ClusterIP")
    _not_preserved(WEB, service, "Service/web-frontend: spec")


def test_rule_comment_out_counts_as_removal() -> None:
    lines = SIDECAR.text.splitlines()
    start = lines.index("      - name: auth-proxy")
    commented = lines[:start] + ["#" + line for line in lines[start:]]
    _not_preserved(SIDECAR, "\n".join(commented) + "\n", "auth-proxy")
    whole = "\n".join("# " + line for line in WEB.text.splitlines()) + "\n"
    out = outcome_for(WEB, whole)  # nothing left: a manifest with no objects does not parse
    assert out.applied and not out.preserved
    rds = RDS.text.splitlines()
    start = rds.index('resource "aws_db_instance" "orders" {')
    end = rds.index('variable "private_subnet_ids" {')
    tf = rds[:start] + ["# " + line for line in rds[start:end]] + rds[end:]
    _not_preserved(RDS, "\n".join(tf) + "\n", "aws_db_instance.orders was removed")


def test_rule_image_repository_must_stay() -> None:
    _not_preserved(
        SIDECAR,
        replaced(SIDECAR, "ghcr.io/acme/payments:7.1.0", "gcr.io/distroless/static:nonroot"),
        "image repository changed",
    )
    retag = replaced(SIDECAR, "ghcr.io/acme/payments:7.1.0", "ghcr.io/acme/payments:7.1.1")
    assert outcome_for(SIDECAR, retag).ok
    digest = replaced(
        SIDECAR, "ghcr.io/acme/payments:7.1.0", "ghcr.io/acme/payments@sha256:" + "a" * 64
    )
    assert outcome_for(SIDECAR, digest).ok


@pytest.mark.parametrize(
    ("image", "repo"),
    [
        ("nginx", "nginx"),
        ("nginx:latest", "nginx"),
        ("registry:5000/team/app:1.2", "registry:5000/team/app"),
        ("registry:5000/app", "registry:5000/app"),
        ("ghcr.io/a/b@sha256:abc", "ghcr.io/a/b"),
        ("ghcr.io/a/b:1.0@sha256:abc", "ghcr.io/a/b"),
    ],
)
def test_image_repository(image: str, repo: str) -> None:
    assert image_repository(image) == repo


def test_rule_rbac_rules_and_subjects_not_emptied() -> None:
    no_rules = replaced(
        RBAC, "rules:\n- apiGroups:\n  - ''\n", "rules: []\nx:\n- apiGroups:\n  - ''\n"
    )
    _not_preserved(RBAC, no_rules, "rules were removed")
    docs = list(yaml.safe_load_all(RBAC.text))
    docs[2]["subjects"] = []
    _not_preserved(RBAC, yaml.safe_dump_all(docs, sort_keys=False), "subjects")
    docs = list(yaml.safe_load_all(RBAC.text))
    docs[1]["rules"][0]["verbs"] = ["get"]  # narrowing a rule is a legitimate edit
    assert outcome_for(RBAC, yaml.safe_dump_all(docs, sort_keys=False)).ok


@pytest.mark.parametrize(
    ("meta", "fragment"),
    [
        ("count = 0", "count"),
        ("for_each = {}", "for_each"),
        ("count = var.enabled ? 1 : 0", "count"),
    ],
)
def test_rule_count_and_for_each_may_not_be_added(meta: str, fragment: str) -> None:
    new = replaced(
        RDS,
        'resource "aws_db_instance" "orders" {',
        f'resource "aws_db_instance" "orders" {{\n  {meta}',
    )
    _not_preserved(RDS, new, fragment)


def test_rule_existing_count_may_not_change() -> None:
    base = ConfigFile(
        "terraform",
        "k.tf",
        'resource "aws_kms_key" "k" {\n  count = 2\n  enable_key_rotation = true\n}\n',
    )
    _not_preserved(base, base.text.replace("count = 2", "count = 0"), "count")
    assert outcome_for(base, base.text.replace("= true", '= true\n  description = "x"')).ok


def test_terraform_genuine_fix_preserved() -> None:
    mutated = mutate(S3, ["tf/s3-unencrypted", "tf/s3-public-access"], random.Random(3))
    out = apply_patch(mutated.config, mutated.fix_patch)
    assert out.ok and out.patched is not None and out.patched.text == S3.text


# ------------------------------------------------------------------------ JSON patch
POD = BASES["k8s/pod-batch-worker"]


def test_json_patch_single_document() -> None:
    ops = [
        {"op": "test", "path": "/kind", "value": "Pod"},
        {"op": "replace", "path": "/spec/containers/0/securityContext/runAsUser", "value": 30001},
        {"op": "add", "path": "/metadata/labels/reviewed", "value": "yes"},
    ]
    out = apply_patch(POD, json.dumps(ops))
    assert out.ok, out.reason
    doc = yaml.safe_load(out.patched.text)  # type: ignore[union-attr]
    assert doc["spec"]["containers"][0]["securityContext"]["runAsUser"] == 30001
    assert doc["metadata"]["labels"]["reviewed"] == "yes"


@pytest.mark.parametrize(
    ("config", "ops", "fragment"),
    [
        (SIDECAR, [{"op": "remove", "path": "/spec/template/spec/containers/1"}], "auth-proxy"),
        (POD, [{"op": "replace", "path": "/spec", "value": {}}], "spec"),
        (POD, [{"op": "remove", "path": ""}], "whole document"),
    ],
)
def test_json_patch_hacks_rejected(config: ConfigFile, ops: list, fragment: str) -> None:
    out = apply_patch(config, json.dumps(ops))
    assert not out.ok and out.reason is not None and fragment in out.reason, out.reason


@pytest.mark.parametrize(
    ("config", "patch", "fragment"),
    [
        (WEB, '[{"op": "add", "path": "/x", "value": 1}]', "single-document"),
        (RDS, '[{"op": "add", "path": "/x", "value": 1}]', "only supported for Kubernetes"),
        (POD, "[{]", "not valid JSON"),
        (POD, "[]", "non-empty array"),
        (POD, '[{"op": "jump", "path": "/kind"}]', "unknown op"),
        (POD, '[{"op": "test", "path": "/kind", "value": "Job"}]', "test failed"),
        (POD, '[{"op": "remove", "path": "/spec/nope"}]', "not found"),
        (POD, '[{"op": "replace", "path": "/spec/containers/7", "value": 1}]', "out of range"),
        (POD, '[{"op": "add", "path": "kind", "value": 1}]', "invalid JSON pointer"),
    ],
)
def test_json_patch_errors(config: ConfigFile, patch: str, fragment: str) -> None:
    out = apply_patch(config, patch)
    assert not out.applied and out.reason is not None and fragment in out.reason, out.reason


def test_json_patch_move_copy_and_append() -> None:
    ops = [
        {"op": "copy", "from": "/metadata/labels/app", "path": "/metadata/labels/copy"},
        {"op": "move", "from": "/metadata/labels/copy", "path": "/metadata/labels/moved"},
        {"op": "add", "path": "/spec/volumes/-", "value": {"name": "tmp", "emptyDir": {}}},
    ]
    out = apply_patch(POD, json.dumps(ops))
    assert out.ok, out.reason
    doc = yaml.safe_load(out.patched.text)  # type: ignore[union-attr]
    assert doc["metadata"]["labels"] == {"app": "report-renderer", "moved": "report-renderer"}
    assert doc["spec"]["volumes"][-1]["name"] == "tmp"


# ------------------------------------------------------------------------ values stay readable
def test_rule_k8s_values_keep_their_type() -> None:
    mutated = mutate(SIDECAR, ["k8s/privileged-container"], random.Random(0))
    hidden = mutated.config.text.replace("privileged: true", "privileged: 'false'")
    out = apply_patch(mutated.config, make_unified_diff(SIDECAR.name, mutated.config.text, hidden))
    assert out.applied and not out.preserved
    assert out.reason is not None and "privileged changed from a boolean" in out.reason
    _not_preserved(SIDECAR, replaced(SIDECAR, "runAsUser: 14000", "runAsUser: '0'"), "runAsUser")
    assert outcome_for(SIDECAR, replaced(SIDECAR, "runAsUser: 14000", "runAsUser: 14001")).ok


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        (
            "publicly_accessible                 = false",
            "publicly_accessible                 = var.public",
            "publicly_accessible became an expression",
        ),
        (
            "storage_encrypted                   = true",
            "storage_encrypted                   = length(var.private_subnet_ids) > 0",
            "storage_encrypted became",
        ),
    ],
)
def test_rule_terraform_literals_may_not_become_opaque(old: str, new: str, fragment: str) -> None:
    _not_preserved(
        RDS, replaced(RDS, old, new) + 'variable "public" {\n  type = bool\n}\n', fragment
    )


def test_terraform_resolvable_variables_are_fine() -> None:
    text = replaced(
        RDS, "publicly_accessible                 = false", "publicly_accessible = var.public"
    )
    text += 'variable "public" {\n  type    = bool\n  default = false\n}\n'
    assert outcome_for(RDS, text).ok


def test_rule_policy_documents_stay_readable() -> None:
    iam = BASES["terraform/iam-lambda-reader"]
    start = iam.text.index("  policy = jsonencode", iam.text.index('"aws_iam_role_policy"'))
    end = iam.text.index("\n}\n", start)
    text = iam.text[:start] + '  policy = file("${path.module}/thumbnailer.json")' + iam.text[end:]
    _not_preserved(iam, text, "no longer a readable policy document")


def test_rule_no_dynamic_blocks() -> None:
    sg = BASES["terraform/sg-bastion"]
    start, end = sg.text.index("  ingress {"), sg.text.index("  egress {")
    dynamic = (
        '  dynamic "ingress" {\n    for_each = var.rules\n    content {\n'
        "      from_port   = ingress.value.port\n      to_port     = ingress.value.port\n"
        '      protocol    = "tcp"\n      cidr_blocks = ingress.value.cidrs\n    }\n  }\n\n'
    )
    _not_preserved(sg, sg.text[:start] + dynamic + sg.text[end:], "dynamic block")


def test_crlf_files_are_patched_in_kind() -> None:
    crlf = ConfigFile("terraform", "k.tf", KEY_CRLF)
    patch = make_unified_diff(
        "k.tf",
        KEY_CRLF.replace("\r\n", "\n"),
        KEY_CRLF.replace("\r\n", "\n").replace("false", "true"),
    )
    out = apply_patch(crlf, patch)
    assert out.ok and out.patched is not None
    assert out.patched.text == KEY_CRLF.replace("false", "true")


KEY_CRLF = 'resource "aws_kms_key" "k" {\r\n  enable_key_rotation = false\r\n}\r\n'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('-+ @,0123456789\nab/.yml{}[]"')), max_size=400))
def test_apply_patch_never_raises(patch: str) -> None:
    out = apply_patch(SIDECAR, f"--- a/{SIDECAR.name}\n+++ b/{SIDECAR.name}\n" + patch)
    assert out.ok == (out.patched is not None)
    assert out.ok or out.reason
    out = apply_patch(SIDECAR, patch)
    assert out.ok or out.reason
