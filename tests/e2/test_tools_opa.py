"""OPA/Rego adapter (regorus): compiled once, versioned by policy hash, input shapes."""

from __future__ import annotations

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.tools import episode_copy, get_tool
from sv_env_config_verification.tools.opa import POLICY_DIR, OpaTool


def test_engine_is_compiled_once_and_reused():
    tool = get_tool("opa")
    assert get_tool("opa") is tool
    tool.scan(ConfigFile("k8s", "m.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"))
    engine = tool._engine
    tool.scan(ConfigFile("terraform", "m.tf", 'resource "aws_kms_key" "k" {\n}\n'))
    assert tool._engine is engine


def test_version_tracks_policy_files(tmp_path):
    for p in POLICY_DIR.glob("*.rego"):
        (tmp_path / p.name).write_text(p.read_text())
    copy = OpaTool(tmp_path)
    assert copy.rules_hash() == get_tool("opa").rules_hash()
    (tmp_path / "kubernetes.rego").write_text(
        (tmp_path / "kubernetes.rego").read_text() + "\n# x\n"
    )
    assert OpaTool(tmp_path).version() != get_tool("opa").version()
    assert get_tool("opa").version().startswith("regorus 0.13.0; policies sha256:")


def test_broken_policy_is_reported_not_raised(tmp_path):
    (tmp_path / "kubernetes.rego").write_text("package sv.kubernetes\nimport rego.v1\nx if {\n")
    result = OpaTool(tmp_path).scan(
        ConfigFile("k8s", "m.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    )
    assert result.error and "does not compile" in result.error and "backtrace" not in result.error


def test_unresolved_expressions_are_not_violations():
    text = 'variable "x" {}\nresource "aws_ebs_volume" "v" {\n  encrypted = var.x\n}\n'
    result = get_tool("opa").scan(ConfigFile("terraform", "m.tf", text))
    assert result.error is None and result.findings == []


def test_findings_carry_lines():
    text = (
        'resource "aws_kms_key" "a" {\n  enable_key_rotation = true\n}\n'
        'resource "aws_kms_key" "b" {\n}\n'
    )
    result = get_tool("opa").scan(ConfigFile("terraform", "m.tf", text))
    assert [(f.rule_id, f.resource, f.line) for f in result.findings] == [
        ("tf/kms-rotation-disabled", "aws_kms_key.b", 4)
    ]


def test_episode_copy_is_private_and_removed():
    config = ConfigFile("k8s", "m.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    with episode_copy(config) as path:
        assert path.name == "m.yaml" and path.read_text() == config.text
        assert [p.name for p in path.parent.iterdir()] == ["m.yaml"]
        assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert not path.exists() and not path.parent.exists()
