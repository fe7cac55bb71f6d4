"""Checkov adapter: fresh runner per scan, no in-file suppression, canonical resource names."""

from __future__ import annotations

import pytest

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools import get_tool
from sv_env_config_verification.tools.checkov_tool import CheckovTool, checkov_resource

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team
%s
spec:
  containers:
  - name: a
    image: nginx:1.25
    securityContext:
      privileged: %s
"""


def ids(result):
    assert result.error is None, result.error
    return {(f.rule_id, f.resource) for f in result.findings}


@pytest.fixture(scope="module")
def checkov():
    tool = get_tool("checkov")
    if not tool.available():
        pytest.fail(f"installed by make setup but unavailable: {tool.unavailable_reason()}")
    return tool


def test_no_stale_results_across_scans(checkov):
    bad = ConfigFile("k8s", "m.yaml", POD % ("", "true"))
    good = ConfigFile("k8s", "m.yaml", POD % ("", "false"))
    seq = [bad, good, bad, good]
    flagged = [("CKV_K8S_16", "Pod/p") in ids(checkov.scan(c)) for c in seq]
    assert flagged == [True, False, True, False]
    tf_bad = ConfigFile(
        "terraform", "main.tf", 'resource "aws_ebs_volume" "v" {\n encrypted = false\n}\n'
    )
    tf_other = ConfigFile(
        "terraform", "main.tf", 'resource "aws_ebs_volume" "w" {\n encrypted = true\n}\n'
    )
    assert ("CKV_AWS_3", "aws_ebs_volume.v") in ids(checkov.scan(tf_bad))
    assert ids(checkov.scan(tf_other)) == set()


def test_skip_annotations_do_not_suppress(checkov):
    ann = (
        "  annotations:\n    checkov.io/skip1: CKV_K8S_16=trust me\n"
        "    bridgecrew.io/skip2: CKV_K8S_16"
    )
    result = checkov.scan(ConfigFile("k8s", "m.yaml", POD % (ann, "true")))
    assert ("CKV_K8S_16", "Pod/p") in ids(result)


def test_skip_comments_do_not_suppress(checkov):
    text = (
        'resource "aws_ebs_volume" "v" {\n  # checkov:skip=CKV_AWS_3: fine\n'
        "  encrypted = false\n}\n"
    )
    assert ("CKV_AWS_3", "aws_ebs_volume.v") in ids(
        checkov.scan(ConfigFile("terraform", "m.tf", text))
    )


def test_only_requested_checks_run(checkov):
    text = POD % ("", "true")
    assert {r for r, _ in ids(checkov.scan(ConfigFile("k8s", "m.yaml", text)))} <= set(
        checkov.checks
    )
    only = checkov.scan(ConfigFile("k8s", "m.yaml", text), checks=["CKV_K8S_16"])
    assert ids(only) == {("CKV_K8S_16", "Pod/p")}
    assert CheckovTool(["CKV_K8S_16"]).rules_hash() != checkov.rules_hash()
    assert checkov.version().startswith("checkov 3.")


def test_data_source_and_resource_names(checkov):
    text = (
        'data "aws_iam_policy_document" "d" {\n  statement {\n    actions = ["*"]\n'
        '    resources = ["*"]\n  }\n}\n'
    )
    found = ids(checkov.scan(ConfigFile("terraform", "m.tf", text)))
    assert ("CKV_AWS_49", "data.aws_iam_policy_document.d") in found
    assert checkov_resource("k8s", "CKV_K8S_16", "Deployment.default.my.app", frozenset()) == (
        "Deployment/my.app"
    )
    assert checkov_resource("terraform", "CKV_AWS_3", "aws_ebs_volume.v[0]", frozenset()) == (
        "aws_ebs_volume.v"
    )
