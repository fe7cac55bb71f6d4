"""Terraform values as Terraform and AWS read them, before the Rego pack evaluates them.

`normalise_values` takes the Rego input of `configs.normalise_terraform` and returns a copy in
which values that *mean* the same thing are *spelt* the same way, plus the problems it found
(values Terraform or AWS would reject, which no policy can judge):

* **Booleans** — the boolean arguments the policies read (`BOOL_ARGS`): ``"true"``/``"1"``
  become ``true`` and ``"false"``/``"0"`` become ``false`` (Terraform's string-to-bool
  conversion); any other literal (``1``, ``"yes"``, ``"True"``) is a problem.
* **Numbers** — security group ports: numeric strings become numbers; other literals are
  problems.
* **S3 canned ACLs** — compared case-insensitively.
* **Network ranges** — see `tf_network` (CIDR blocks that together cover the Internet).
* **IAM actions** — an action pattern that matches every action (``"*:*"``, ``"*?"``,
  ``"?*"``, ``"**"``; see `matches_every_action`) gains a plain ``"*"``; an Allow statement
  with ``NotAction`` (``not_actions``) grants every action but the listed ones, so it gains
  ``Action "*"`` too. Service wildcards such as ``"s3:*"`` match one service only and stay
  as they are (no policy targets them). ``Effect`` must be ``Allow`` or ``Deny`` (AWS reads it
  case-sensitively); anything else is a problem.

Unresolved expressions (strings holding ``${``) and unset values are left alone.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from .configs import POLICY_KEYS
from .tf_network import unite_networks

BOOL_ARGS: dict[str, tuple[str, ...]] = {
    "aws_s3_bucket_public_access_block": (
        "block_public_acls",
        "block_public_policy",
        "ignore_public_acls",
        "restrict_public_buckets",
    ),
    "aws_db_instance": ("storage_encrypted", "publicly_accessible"),
    "aws_rds_cluster": ("storage_encrypted",),
    "aws_rds_cluster_instance": ("publicly_accessible",),
    "aws_ebs_volume": ("encrypted",),
    "aws_kms_key": ("enable_key_rotation",),
    "aws_cloudtrail": ("enable_logging",),
}
PORT_ARGS = ("from_port", "to_port")
RULE_TYPES = ("aws_security_group_rule", "aws_vpc_security_group_ingress_rule")
CANNED_ACLS = frozenset(
    {
        "private",
        "public-read",
        "public-read-write",
        "aws-exec-read",
        "authenticated-read",
        "bucket-owner-read",
        "bucket-owner-full-control",
        "log-delivery-write",
        "website",
    }
)
EFFECTS = ("Allow", "Deny")
_TRUE, _FALSE = ("true", "1"), ("false", "0")
_NUMBER = re.compile(r"^\s*[-+]?\d+(\.\d+)?\s*$")
# Shortest real action name parts: a 2-character service prefix ("s3"), a 2+ character name.
_MIN_SERVICE, _MIN_NAME = 2, 2


def unresolved(value: Any) -> bool:
    return isinstance(value, str) and "${" in value


def matches_every_action(pattern: Any) -> bool:
    """True when an IAM action glob (``*`` any run, ``?`` one character, case-insensitive)
    matches every action ``<service>:<Name>``."""
    if not isinstance(pattern, str) or set(pattern) - set("*?:") or "*" not in pattern:
        return False
    parts = pattern.split(":")
    if len(parts) == 1:
        return pattern.count("?") <= _MIN_SERVICE + 1 + _MIN_NAME
    if len(parts) == 2:
        service, name = parts
        return (
            "*" in service
            and service.count("?") <= _MIN_SERVICE
            and "*" in name
            and name.count("?") <= _MIN_NAME
        )
    return False


def _bool(value: Any, where: str, problems: list[str]) -> Any:
    if value is None or isinstance(value, bool) or unresolved(value):
        return value
    if isinstance(value, str) and value in _TRUE + _FALSE:
        return value in _TRUE
    problems.append(f"{where} = {value!r} is not a bool")
    return value


def _number(value: Any, where: str, problems: list[str]) -> Any:
    if value is None or unresolved(value):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _NUMBER.match(value):
        number = float(value)
        return int(number) if number.is_integer() else number
    problems.append(f"{where} = {value!r} is not a number")
    return value


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _statement(
    st: dict[str, Any], keys: tuple[str, str, str], where: str, problems: list[str]
) -> None:
    """Normalise one IAM statement; ``keys`` = (effect, actions, not-actions) field names."""
    effect_key, action_key, not_key = keys
    effect = st.get(effect_key)
    if effect is not None and not unresolved(effect) and effect not in EFFECTS:
        problems.append(f"{where}: {effect_key} = {effect!r} is neither Allow nor Deny")
    actions = st.get(action_key)
    allows = effect in (None, "Allow")
    widened = any(matches_every_action(a) for a in _as_list(actions)) or (
        allows and st.get(not_key) is not None
    )
    if widened:
        st[action_key] = [*(a for a in _as_list(actions) if a is not None), "*"]


def _documents(value: Any) -> Iterator[dict[str, Any]]:
    """Decoded policy documents anywhere in a resource body."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in POLICY_KEYS and isinstance(item, dict):
                yield item
            else:
                yield from _documents(item)
    elif isinstance(value, list):
        for item in value:
            yield from _documents(item)


def _iam(resource: dict[str, Any], problems: list[str]) -> None:
    address, config = resource["address"], resource["config"]
    for doc in _documents(config):
        for st in _as_list(doc.get("Statement")):
            if isinstance(st, dict):
                _statement(st, ("Effect", "Action", "NotAction"), address, problems)
    if resource["type"] == "aws_iam_policy_document":
        for st in _as_list(config.get("statement")):
            if isinstance(st, dict):
                _statement(st, ("effect", "actions", "not_actions"), address, problems)


def _ports(rule: dict[str, Any], where: str, problems: list[str]) -> None:
    for key in PORT_ARGS:
        if key in rule:
            rule[key] = _number(rule[key], f"{where}.{key}", problems)


def _scalars(resource: dict[str, Any], problems: list[str]) -> None:
    rtype, address, config = resource["type"], resource["address"], resource["config"]
    for key in BOOL_ARGS.get(rtype, ()):
        if key in config:
            config[key] = _bool(config[key], f"{address}.{key}", problems)
    acl = config.get("acl")
    is_bucket = rtype in ("aws_s3_bucket", "aws_s3_bucket_acl")
    if is_bucket and isinstance(acl, str) and acl.lower() in CANNED_ACLS:
        config["acl"] = acl.lower()
    if rtype == "aws_security_group":
        for i, rule in enumerate(_as_list(config.get("ingress"))):
            if isinstance(rule, dict):
                _ports(rule, f"{address}.ingress[{i}]", problems)
    elif rtype in RULE_TYPES:
        _ports(config, address, problems)


def normalise_values(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(normalised copy of a Terraform Rego input, problems found); see the module docstring."""
    out = copy.deepcopy(data)
    problems: list[str] = []
    for resource in out.get("resources", []):
        if resource.get("mode") == "managed":
            _scalars(resource, problems)
        _iam(resource, problems)
    problems += unite_networks(out)
    return out, problems
