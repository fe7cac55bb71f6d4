"""Terraform values that mean the same thing are judged the same way (tf_values, tf_network)."""

from __future__ import annotations

import pytest

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.dataset import load_bases
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.tf_values import matches_every_action, normalise_values


def findings(text: str) -> set[tuple[str, str]]:
    result = scan(ConfigFile("terraform", "main.tf", text))
    assert result.valid, result.invalid_reasons
    return {(f.id, f.resource) for f in result.findings}


def invalid_reasons(text: str) -> tuple[str, ...]:
    return scan(ConfigFile("terraform", "main.tf", text)).invalid_reasons


def rds(encrypted: str, public: str) -> str:
    return (
        'resource "aws_db_instance" "db" {\n  engine = "postgres"\n'
        f"  storage_encrypted = {encrypted}\n  publicly_accessible = {public}\n}}\n"
    )


def sg(*blocks: str) -> str:
    body = "".join(f'  ingress {{\n    protocol = "tcp"\n{b}  }}\n' for b in blocks)
    return f'resource "aws_security_group" "sg" {{\n  name = "sg"\n{body}}}\n'


def port(low: int | str, high: int | str, key: str, cidrs: str) -> str:
    return f"    from_port = {low}\n    to_port = {high}\n    {key} = [{cidrs}]\n"


def policy(action: str, effect: str = "Allow", key: str = "Action") -> str:
    return (
        'resource "aws_iam_policy" "p" {\n  policy = jsonencode({\n'
        '    Version = "2012-10-17"\n'
        f'    Statement = [{{\n      Effect = "{effect}"\n      {key} = {action}\n'
        '      Resource = "*"\n    }]\n  })\n}\n'
    )


RDS_PUBLIC = ("tf/rds-public", "aws_db_instance.db")
RDS_PLAIN = ("tf/rds-unencrypted", "aws_db_instance.db")
SG_OPEN = ("tf/sg-open-admin-port", "aws_security_group.sg")
IAM = ("tf/iam-wildcard-action", "aws_iam_policy.p")


# ------------------------------------------------------------------ type coercion
@pytest.mark.parametrize("true", ["true", '"true"', '"1"'])
def test_bool_strings_read_as_terraform_reads_them(true):
    assert RDS_PUBLIC in findings(rds("true", true))


@pytest.mark.parametrize("false", ["false", '"false"', '"0"'])
def test_false_strings_stay_false(false):
    assert RDS_PLAIN in findings(rds(false, "false"))
    assert RDS_PUBLIC not in findings(rds("true", false))


@pytest.mark.parametrize("value", ["1", '"yes"', '"True"', "[true]"])
def test_values_terraform_rejects_make_the_scan_invalid(value):
    reasons = invalid_reasons(rds("true", value))
    assert any("publicly_accessible" in r and "is not a bool" in r for r in reasons)


def test_numeric_port_strings_are_numbers():
    assert SG_OPEN in findings(sg(port('"20"', '"25"', "cidr_blocks", '"0.0.0.0/0"')))
    reasons = invalid_reasons(sg(port('"ssh"', "22", "cidr_blocks", '"0.0.0.0/0"')))
    assert any("from_port = 'ssh' is not a number" in r for r in reasons)


def test_canned_acl_case():
    bucket = 'resource "aws_s3_bucket" "b" {\n  bucket = "b"\n  acl = "Public-Read"\n}\n'
    assert ("tf/s3-public-access", "aws_s3_bucket.b") in findings(bucket)


# ------------------------------------------------------------------ CIDR coverage
@pytest.mark.parametrize(
    ("key", "cidrs"),
    [
        ("cidr_blocks", '"0.0.0.0/1", "128.0.0.0/1"'),
        ("cidr_blocks", '"0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/1"'),
        ("cidr_blocks", '"0.0.0.0/00"'),
        ("ipv6_cidr_blocks", '"::/1", "8000::/1"'),
        ("ipv6_cidr_blocks", '"0::0/0"'),
        ("ipv6_cidr_blocks", '"0:0:0:0:0:0:0:0/0"'),
    ],
)
def test_ranges_that_cover_the_internet_are_open(key, cidrs):
    assert SG_OPEN in findings(sg(port(22, 22, key, cidrs)))


def test_ranges_that_leave_a_gap_are_not_open():
    assert SG_OPEN not in findings(sg(port(22, 22, "cidr_blocks", '"0.0.0.0/1", "128.0.0.0/2"')))
    assert SG_OPEN not in findings(sg(port(22, 22, "ipv6_cidr_blocks", '"::/1"')))


def test_ingress_blocks_of_one_group_are_united_per_port():
    split = sg(
        port(22, 22, "cidr_blocks", '"0.0.0.0/1"'),
        port(20, 3389, "cidr_blocks", '"128.0.0.0/1"'),
    )
    assert SG_OPEN in findings(split)
    data, _ = normalise_values(
        {
            "resources": [
                {
                    "mode": "managed",
                    "type": "aws_security_group",
                    "name": "sg",
                    "address": "aws_security_group.sg",
                    "config": {
                        "ingress": [
                            {
                                "protocol": "tcp",
                                "from_port": 22,
                                "to_port": 22,
                                "cidr_blocks": ["0.0.0.0/1"],
                            },
                            {
                                "protocol": "tcp",
                                "from_port": 20,
                                "to_port": 3389,
                                "cidr_blocks": ["128.0.0.0/1"],
                            },
                        ]
                    },
                }
            ]
        }
    )
    added = data["resources"][0]["config"]["ingress"][2:]
    assert {(b["from_port"], b["to_port"]) for b in added} == {(22, 22)}  # not 3389


def test_rule_resources_of_one_group_are_united():
    text = (
        'resource "aws_security_group" "sg" {\n  name = "x"\n}\n'
        'resource "aws_security_group_rule" "a" {\n  type = "ingress"\n  from_port = 22\n'
        '  to_port = 22\n  protocol = "tcp"\n  cidr_blocks = ["0.0.0.0/1"]\n'
        "  security_group_id = aws_security_group.sg.id\n}\n"
        'resource "aws_vpc_security_group_ingress_rule" "b" {\n  from_port = 22\n  to_port = 22\n'
        '  ip_protocol = "tcp"\n  cidr_ipv4 = "128.0.0.0/1"\n'
        "  security_group_id = aws_security_group.sg.id\n}\n"
    )
    assert findings(text) == {
        ("tf/sg-open-admin-port", "aws_security_group_rule.a"),
        ("tf/sg-open-admin-port", "aws_vpc_security_group_ingress_rule.b"),
    }


def test_invalid_cidr_makes_the_scan_invalid():
    reasons = invalid_reasons(sg(port(22, 22, "cidr_blocks", '"0.0.0.0/33"')))
    assert any("is not a CIDR range" in r for r in reasons)


# ------------------------------------------------------------------ IAM wildcards
@pytest.mark.parametrize(
    "pattern", ["*", "*:*", "*?", "?*", "**", "?????*", "*:?*", "??*:*", "*:**"]
)
def test_patterns_matching_every_action(pattern):
    assert matches_every_action(pattern)


@pytest.mark.parametrize(
    "pattern", ["s3:*", "iam:*", "*Get*", "s3:Get*", "??????*", "?", "*:*:*", ":*", "*:", "", 7]
)
def test_patterns_not_matching_every_action(pattern):
    assert not matches_every_action(pattern)


@pytest.mark.parametrize("action", ['"*:*"', '"*?"', '"?*"', '["s3:GetObject", "**"]'])
def test_wildcard_spellings_are_wildcards(action):
    assert IAM in findings(policy(action))


def test_allow_with_not_action_is_a_wildcard():
    assert IAM in findings(policy('"iam:PassRole"', key="NotAction"))
    assert IAM not in findings(policy('"iam:PassRole"', effect="Deny", key="NotAction"))


def test_service_wildcards_and_deny_are_not_flagged():
    assert IAM not in findings(policy('"s3:*"'))
    assert IAM not in findings(policy('"*:*"', effect="Deny"))


def test_policy_document_data_source():
    doc = (
        'data "aws_iam_policy_document" "d" {\n  statement {\n'
        '    actions = [%s]\n    resources = ["*"]\n  }\n}\n'
    )
    assert ("tf/iam-wildcard-action", "data.aws_iam_policy_document.d") in findings(doc % '"*:*"')
    assert not findings(doc % '"s3:GetObject"')


def test_effect_spelling_aws_rejects_is_invalid():
    assert any(
        "neither Allow nor Deny" in r for r in invalid_reasons(policy('"*"', effect="allow"))
    )


# ------------------------------------------------------------------ honest configs
def test_secure_terraform_bases_stay_clean_and_valid():
    for base_id, config in load_bases().items():
        if config.kind != "terraform":
            continue
        result = scan(config)
        assert result.valid, (base_id, result.invalid_reasons)
        assert not result.findings, (base_id, result.findings)


def test_tool_disagreement_is_recorded_and_the_union_stands():
    """checkov reads storage_encrypted = "1" as not encrypted, the Rego pack (like Terraform)
    as true; semgrep's rule only matches a literal `true`. The scan stays valid, every finding
    stands, and each silent tool is recorded per tool."""
    result = scan(ConfigFile("terraform", "main.tf", rds('"1"', '"1"')))
    assert result.valid
    assert {(f.id, f.tools) for f in result.findings} == {
        ("tf/rds-public", ("opa",)),
        ("tf/rds-unencrypted", ("checkov",)),
    }
    assert "tf/rds-unencrypted aws_db_instance.db" in result.per_tool["opa"].silent
    assert "tf/rds-public aws_db_instance.db" in result.per_tool["checkov"].silent
    assert "tf/rds-public aws_db_instance.db" in result.per_tool["semgrep"].silent
