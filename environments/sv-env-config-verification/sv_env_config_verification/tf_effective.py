"""Terraform resources as AWS would resolve them, before values are normalised and the Rego
pack evaluates them.

`effective_terraform` returns a copy of a `configs.normalise_terraform` input in which grants
made through another resource or reference are made explicit on the resource that makes them:

* **Managed policies by ARN** — a policy attachment (``aws_iam_*_policy_attachment``,
  ``aws_iam_policy_attachment``, ``aws_ssoadmin_managed_policy_attachment``,
  ``aws_iam_role_policy_attachments_exclusive``) or a role's ``managed_policy_arns`` naming an
  AWS managed policy the project ships (`data/aws_managed_policies.json`) gains that policy's
  document under ``effective_policies``, which the pack reads like an inline policy.
* **Managed prefix lists** — an ingress rule (an ``aws_security_group`` ``ingress`` block, an
  ``aws_security_group_rule``, an ``aws_vpc_security_group_ingress_rule``) that names a prefix
  list of this file (``aws_ec2_managed_prefix_list`` entries, ``aws_ec2_managed_prefix_list_
  entry`` resources) gains the list's CIDRs in ``cidr_blocks`` / ``ipv6_cidr_blocks``; the
  usual range union (`tf_network`) then applies.
* **CloudTrail that records nothing** — a trail whose ``event_selector`` blocks all exclude
  management events and name no data resource, or are all ``ReadOnly`` (no write is ever
  recorded), or whose ``advanced_event_selector`` blocks each select no event category or
  only read-only events, is marked ``x_sv_records_nothing`` (the pack reads it as logging
  disabled).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

MANAGED_POLICIES_PATH = Path(__file__).with_name("data") / "aws_managed_policies.json"
ARN_FIELDS: dict[str, tuple[str, ...]] = {
    "aws_iam_role_policy_attachment": ("policy_arn",),
    "aws_iam_user_policy_attachment": ("policy_arn",),
    "aws_iam_group_policy_attachment": ("policy_arn",),
    "aws_iam_policy_attachment": ("policy_arn",),
    "aws_ssoadmin_managed_policy_attachment": ("managed_policy_arn",),
    "aws_iam_role_policy_attachments_exclusive": ("policy_arns",),
    "aws_iam_role": ("managed_policy_arns",),
}
EFFECTIVE_KEY = "effective_policies"
RECORDS_NOTHING_KEY = "x_sv_records_nothing"
EVENT_CATEGORIES = frozenset({"Management", "Data", "NetworkActivity"})
_MANAGED_ARN = re.compile(r"^arn:aws[\w-]*:iam::aws:policy/(?:[\w+=,.@-]+/)*([\w+=,.@-]+)$")
_PREFIX_REF = re.compile(r"^\$\{(aws_ec2_managed_prefix_list\.[\w-]+)\.id\}$")
_FALSE = (False, "false", "0", 0)


@cache
def managed_policies() -> dict[str, dict[str, Any]]:
    """AWS managed policy name -> its document (shipped data file)."""
    raw = json.loads(MANAGED_POLICIES_PATH.read_text(encoding="utf-8"))
    return dict(raw["policies"])


def managed_policy(arn: Any) -> dict[str, Any] | None:
    """The document of an AWS managed policy ARN the project ships, else None."""
    if not isinstance(arn, str):
        return None
    m = _MANAGED_ARN.match(arn.strip())
    doc = managed_policies().get(m.group(1)) if m else None
    return copy.deepcopy(doc) if doc is not None else None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _attachments(resource: dict[str, Any]) -> None:
    config = resource["config"]
    docs = [
        doc
        for key in ARN_FIELDS.get(resource["type"], ())
        for arn in _as_list(config.get(key))
        if (doc := managed_policy(arn)) is not None
    ]
    if docs:
        config[EFFECTIVE_KEY] = docs


def _prefix_lists(resources: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Prefix list address -> its CIDRs (inline entries and entry resources)."""
    out: dict[str, list[str]] = {}
    for r in resources:
        if r.get("mode") != "managed":
            continue
        if r["type"] == "aws_ec2_managed_prefix_list":
            cidrs = [
                e.get("cidr") for e in _as_list(r["config"].get("entry")) if isinstance(e, dict)
            ]
            out.setdefault(r["address"], []).extend(c for c in cidrs if isinstance(c, str))
    for r in resources:
        if r.get("mode") == "managed" and r["type"] == "aws_ec2_managed_prefix_list_entry":
            ref = _PREFIX_REF.match(str(r["config"].get("prefix_list_id", "")))
            cidr = r["config"].get("cidr")
            if ref and isinstance(cidr, str):
                out.setdefault(ref.group(1), []).append(cidr)
    return out


def _add_prefix_cidrs(rule: dict[str, Any], lists: dict[str, list[str]]) -> None:
    for key in ("prefix_list_ids", "prefix_list_id"):
        for ref in _as_list(rule.get(key)):
            m = _PREFIX_REF.match(ref) if isinstance(ref, str) else None
            for cidr in lists.get(m.group(1), []) if m else []:
                target = "ipv6_cidr_blocks" if ":" in cidr else "cidr_blocks"
                rule[target] = [*_as_list(rule.get(target)), cidr]


def _ingress_rules(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in resources:
        if r.get("mode") != "managed":
            continue
        if r["type"] == "aws_security_group":
            out += [b for b in _as_list(r["config"].get("ingress")) if isinstance(b, dict)]
        elif r["type"] in ("aws_security_group_rule", "aws_vpc_security_group_ingress_rule"):
            out.append(r["config"])
    return out


def _selects_nothing(selector: dict[str, Any]) -> bool:
    """An advanced event selector that admits no event category, or only read-only events."""
    for field in _as_list(selector.get("field_selector")):
        if not isinstance(field, dict):
            continue
        values = {str(v).lower() for v in _as_list(field.get("equals"))}
        if field.get("field") == "readOnly" and values == {"true"}:
            return True
        if field.get("field") != "eventCategory":
            continue
        equals = {str(v) for v in _as_list(field.get("equals"))}
        excluded = {str(v) for v in _as_list(field.get("not_equals"))}
        if "equals" in field and not equals & EVENT_CATEGORIES:
            return True
        if excluded >= EVENT_CATEGORIES:
            return True
    return False


def _records_nothing(config: dict[str, Any]) -> bool:
    basic = [s for s in _as_list(config.get("event_selector")) if isinstance(s, dict)]
    advanced = [s for s in _as_list(config.get("advanced_event_selector")) if isinstance(s, dict)]
    if advanced:
        return all(_selects_nothing(s) for s in advanced)
    if not basic:
        return False
    if all(str(s.get("read_write_type", "All")) == "ReadOnly" for s in basic):
        return True  # no write (mutating) event is recorded
    return all(
        s.get("include_management_events") in _FALSE
        and not any(
            _as_list(d.get("values"))
            for d in _as_list(s.get("data_resource"))
            if isinstance(d, dict)
        )
        for s in basic
    )


def effective_terraform(data: dict[str, Any]) -> dict[str, Any]:
    """A resolved copy of a Terraform Rego input (module docstring)."""
    out = copy.deepcopy(data)
    resources = out.get("resources", [])
    for r in resources:
        if r.get("mode") != "managed":
            continue
        _attachments(r)
        if r["type"] == "aws_cloudtrail" and _records_nothing(r["config"]):
            r["config"][RECORDS_NOTHING_KEY] = True
    lists = _prefix_lists(resources)
    if lists:
        for rule in _ingress_rules(resources):
            _add_prefix_cidrs(rule, lists)
    return out
