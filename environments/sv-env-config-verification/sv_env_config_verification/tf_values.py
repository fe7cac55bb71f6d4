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
* **IAM actions** — an action list whose patterns together match every action (``"*:*"``,
  ``"*?"``, ``["a*", …, "z*"]``; see `iam_globs.cover_every_action`) gains a plain ``"*"``, and
  so does the first Allow statement of a document whose Allow statements together do; the
  documents of attached AWS managed policies (`tf_effective`) are read too; an Allow statement
  on ``Resource "*"`` whose actions include one that lets the principal write itself any policy
  (`iam_globs.SELF_GRANT_ACTIONS`: ``iam:*``, ``iam:Attach*``, ``iam:Put*Policy``…) grants
  every action in effect and gains ``"*"`` too, and so does a statement whose actions match every
  action of the services its resources belong to (``s3:*`` on a bucket's ARN is ``*`` there;
  `resource_services`); an Allow statement
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
from .iam_globs import cover_every_action, grants_self_grant
from .tf_effective import EFFECTIVE_KEY
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


def unresolved(value: Any) -> bool:
    return isinstance(value, str) and "${" in value


def matches_every_action(pattern: Any) -> bool:
    """True when one IAM action glob (``*`` any run, ``?`` one character, case-insensitive)
    matches every action ``<service>:<Name>``."""
    return isinstance(pattern, str) and cover_every_action([pattern])


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


_ARN = re.compile(r"^arn:aws[\w-]*:([a-z0-9-]+):")
_REF = re.compile(r"^\$\{(aws_[a-z0-9_]+)\.[\w-]+\.arn\}")
REF_SERVICES = {
    "aws_s3_bucket": "s3", "aws_kms_key": "kms", "aws_sqs_queue": "sqs", "aws_sns_topic": "sns",
    "aws_dynamodb_table": "dynamodb", "aws_lambda_function": "lambda", "aws_ecr_repository": "ecr",
    "aws_secretsmanager_secret": "secretsmanager", "aws_cloudwatch_log_group": "logs",
}  # fmt: skip
"""Resource types whose ``.arn`` names a resource of one service."""


def resource_services(resources: Any) -> set[str]:
    """The services of a statement's resources when every one is known (a literal ARN or a
    reference to a resource type of `REF_SERVICES`); empty when any is ``*`` or unknown."""
    out: set[str] = set()
    for item in _as_list(resources):
        arn = _ARN.match(item) if isinstance(item, str) else None
        ref = _REF.match(item) if isinstance(item, str) else None
        service = arn.group(1) if arn else REF_SERVICES.get(ref.group(1)) if ref else None
        if service is None:
            return set()
        out.add(service)
    return out


def _allows(st: dict[str, Any], effect_key: str) -> bool:
    return st.get(effect_key) in (None, "Allow")


def _statement(
    st: dict[str, Any], keys: tuple[str, str, str], where: str, problems: list[str]
) -> None:
    """Normalise one IAM statement; ``keys`` = (effect, actions, not-actions) field names."""
    effect_key, action_key, not_key = keys
    effect = st.get(effect_key)
    if effect is not None and not unresolved(effect) and effect not in EFFECTS:
        problems.append(f"{where}: {effect_key} = {effect!r} is neither Allow nor Deny")
    actions = _as_list(st.get(action_key))
    resource_key = "Resource" if action_key == "Action" else "resources"
    on_everything = "*" in _as_list(st.get(resource_key))
    services = resource_services(st.get(resource_key))
    widened = (
        cover_every_action(actions)
        or bool(services and all(cover_every_action(actions, s) for s in services))
        or (
            _allows(st, effect_key)
            and (st.get(not_key) is not None or (on_everything and grants_self_grant(actions)))
        )
    )
    if widened and "*" not in actions:
        st[action_key] = [*(a for a in actions if a is not None), "*"]


def _statements(
    statements: Any, keys: tuple[str, str, str], where: str, problems: list[str]
) -> None:
    """Normalise each statement; when the Allow statements only together match every action,
    the first of them gains ``"*"`` too."""
    effect_key, action_key, _ = keys
    items = [st for st in _as_list(statements) if isinstance(st, dict)]
    for st in items:
        _statement(st, keys, where, problems)
    allows = [st for st in items if _allows(st, effect_key)]
    union = [a for st in allows for a in _as_list(st.get(action_key))]
    if allows and "*" not in union and cover_every_action(union):
        allows[0][action_key] = [*(a for a in _as_list(allows[0].get(action_key)) if a), "*"]


def _documents(value: Any) -> Iterator[dict[str, Any]]:
    """Decoded policy documents anywhere in a resource body (attached managed ones too)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in POLICY_KEYS and isinstance(item, dict):
                yield item
            elif key == EFFECTIVE_KEY and isinstance(item, list):
                yield from (doc for doc in item if isinstance(doc, dict))
            else:
                yield from _documents(item)
    elif isinstance(value, list):
        for item in value:
            yield from _documents(item)


def _iam(resource: dict[str, Any], problems: list[str]) -> None:
    address, config = resource["address"], resource["config"]
    for doc in _documents(config):
        _statements(doc.get("Statement"), ("Effect", "Action", "NotAction"), address, problems)
    if resource["type"] == "aws_iam_policy_document":
        _statements(
            config.get("statement"), ("effect", "actions", "not_actions"), address, problems
        )


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
