"""ConfigFile validation, parsing errors, kind detection and the Terraform normalisation."""

from __future__ import annotations

import pytest

from sv_env_config_verification.configs import (
    MAX_CONFIG_BYTES,
    ConfigError,
    ConfigFile,
    decode_policy,
    detect_kind,
    k8s_spans,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
    resource_at,
    resource_spans,
)

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n"
TF = 'resource "aws_ebs_volume" "v" {\n  size = 1\n}\n'


@pytest.mark.parametrize(
    "name",
    [
        "../../etc/passwd",
        "/etc/passwd.yaml",
        "a/b.yaml",
        "..",
        "a\\b.yaml",
        "",
        "x\x00.yaml",
        " .yaml",
        "a b.yaml",
        "x" * 200 + ".yaml",
    ],
)
def test_names_must_be_plain_file_names(name):
    with pytest.raises(ConfigError):
        ConfigFile("k8s", name, POD)


@pytest.mark.parametrize(
    ("kind", "name"),
    [("k8s", "main.tf"), ("terraform", "m.yaml"), ("k8s", "manifest"), ("helm", "x.yaml")],
)
def test_name_extension_and_kind_must_match(kind, name):
    with pytest.raises(ConfigError):
        ConfigFile(kind, name, POD)


def test_valid_config_and_hash():
    a, b = ConfigFile("k8s", "m.yaml", POD), ConfigFile("k8s", "other.yml", POD)
    assert a.content_hash == b.content_hash and len(a.content_hash) == 64
    assert ConfigFile("k8s", "m.yaml", POD + "\n").content_hash != a.content_hash
    with pytest.raises(AttributeError):
        a.text = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("   \n\t\n", "empty"),
        ("a" * (1024 * 1024), "limit"),
        ("x" * (MAX_CONFIG_BYTES + 1), "limit"),
        ("apiVersion: v1\x00\x01\x02", "NUL"),
    ],
)
def test_bad_text(text, needle):
    with pytest.raises(ConfigError, match=needle):
        ConfigFile("k8s", "m.yaml", text)


def test_binary_bytes():
    with pytest.raises(ConfigError, match="NUL"):
        ConfigFile.from_bytes("k8s", "m.yaml", b"\x7fELF\x02\x01\x00\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        ConfigFile.from_bytes("k8s", "m.yaml", b"kind: \xff\xfe")
    assert ConfigFile.from_bytes("k8s", "m.yaml", b"\xef\xbb\xbf" + POD.encode()).text == POD
    with pytest.raises(ConfigError, match="limit"):
        ConfigFile.from_bytes("terraform", "m.tf", b"#" * (MAX_CONFIG_BYTES + 1))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("apiVersion: v1\nkind: Pod\n  bad: [indent\n", "invalid YAML at line 3"),
        ("a: [1, 2\n", "invalid YAML at line"),
        ("---\n# only a comment\n---\n", "no Kubernetes objects"),
        ("- a\n- b\n", "not a Kubernetes object"),
        ("kind: Pod\nmetadata: {name: p}\n", "apiVersion"),
        ("apiVersion: v1\nkind: Pod\n", "metadata.name"),
        (POD + "---\napiVersion: v1\nmetadata: {name: x}\n", "document 2 (line 8)"),
    ],
)
def test_invalid_k8s(text, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        parse_k8s(text)


def test_yaml_bomb_is_rejected():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n" + "".join(
        "  " + line + "\n" for line in bomb.splitlines()
    )
    with pytest.raises(ConfigError, match="expands"):
        parse_k8s(text)


def test_parse_k8s_multi_doc_and_spans():
    text = POD + "---\n\n---\n" + POD.replace("Pod", "Service").replace("name: p", "name: s")
    objs = parse_k8s(text)
    assert [o["kind"] for o in objs] == ["Pod", "Service"]
    spans = k8s_spans(text)
    assert [s[2] for s in spans] == ["Pod/p", "Service/s"]
    assert resource_at(spans, 2) == "Pod/p" and resource_at(spans, 11) == "Service/s"
    assert (
        parse_k8s("apiVersion: v1\nkind: X\nmetadata: {name: t, creationTimestamp: 2024-01-01}\n")[
            0
        ]["metadata"]["creationTimestamp"]
        == "2024-01-01"
    )


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('resource "a" "b" {\n  x = \n}\n', "invalid HCL at line 2"),
        ('resource "a" "b" {\n  x = 1\n', "invalid HCL at line"),
        ("garbage garbage\n", "invalid HCL"),
        ("# comment only\n", "no blocks"),
        ("x = 1\n", "top-level"),
    ],
)
def test_invalid_terraform(text, needle):
    with pytest.raises(ConfigError, match=needle):
        parse_terraform(text)


def test_invalid_terraform_via_configfile_message():
    with pytest.raises(ConfigError) as err:
        parse_terraform('resource "x" "y" {\n  a = "b"\n  c = \n}\n')
    assert "line 3" in str(err.value) and "Traceback" not in str(err.value)


def test_detect_kind():
    assert detect_kind("a.yaml", "") == "k8s" and detect_kind("b.YML", "") == "k8s"
    assert detect_kind("main.tf", "") == "terraform"
    assert detect_kind("x.txt", TF) == "terraform"
    assert detect_kind("x.txt", POD) == "k8s"
    with pytest.raises(ConfigError):
        detect_kind("x.txt", "hello")


def test_normalise_terraform_shape():
    text = """
variable "enc" {
  default = false
}
locals {
  rot = true
}
resource "aws_s3_bucket" "b" {
  bucket = "b"
  tags   = { team = "x" }
}
resource "aws_s3_bucket_acl" "a" {
  bucket = aws_s3_bucket.b.id
  acl    = "private"
}
resource "aws_security_group" "sg" {
  ingress {
    from_port   = 1
    to_port     = 2
    cidr_blocks = ["10.0.0.0/8"]
  }
  ingress {
    from_port = 3
    to_port   = 4
  }
}
resource "aws_ebs_volume" "v" {
  encrypted = var.enc
  size      = var.size
}
resource "aws_kms_key" "k" {
  enable_key_rotation = local.rot
}
resource "aws_iam_policy" "p" {
  policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "s3:*", Resource = "*" }] })
}
data "aws_iam_policy_document" "d" {
  statement {
    actions = ["s3:GetObject"]
  }
}
"""
    res = {r["address"]: r for r in normalise_terraform(parse_terraform(text))["resources"]}
    assert set(res) == {
        "aws_s3_bucket.b",
        "aws_s3_bucket_acl.a",
        "aws_security_group.sg",
        "aws_ebs_volume.v",
        "aws_kms_key.k",
        "aws_iam_policy.p",
        "data.aws_iam_policy_document.d",
    }
    assert res["aws_s3_bucket.b"]["config"] == {"bucket": "b", "tags": {"team": "x"}}
    assert res["aws_s3_bucket_acl.a"]["refs"] == ["aws_s3_bucket.b"]
    assert res["aws_security_group.sg"]["config"]["ingress"] == [
        {"from_port": 1, "to_port": 2, "cidr_blocks": ["10.0.0.0/8"]},
        {"from_port": 3, "to_port": 4},
    ]
    assert res["aws_ebs_volume.v"]["config"] == {"encrypted": False, "size": "${var.size}"}
    assert res["aws_kms_key.k"]["config"]["enable_key_rotation"] is True
    assert res["aws_iam_policy.p"]["config"]["policy"]["Statement"][0]["Action"] == "s3:*"
    d = res["data.aws_iam_policy_document.d"]
    assert d["mode"] == "data" and d["config"]["statement"] == [{"actions": ["s3:GetObject"]}]
    assert res["aws_s3_bucket.b"]["line"] == 8


def test_decode_policy():
    assert decode_policy('{"Statement": []}') == {"Statement": []}
    assert decode_policy("${jsonencode({'a': True})}") == {"a": True}
    assert decode_policy("${data.x.y.json}") == "${data.x.y.json}"
    assert decode_policy("{not json") == "{not json"


def test_resource_spans_terraform():
    spans = resource_spans(ConfigFile("terraform", "m.tf", TF + 'data "aws_ami" "a" {\n}\n'))
    assert spans == [(1, 3, "aws_ebs_volume.v"), (4, 5, "data.aws_ami.a")]
