"""Ingress CIDR ranges that together open a port to the whole Internet.

`unite_networks` rewrites a Terraform Rego input (`configs.normalise_terraform` shape) in
place so that the Rego pack, which looks for ``0.0.0.0/0`` / ``::/0``, sees every way of
spelling "the whole Internet":

* each ingress rule's CIDRs (``cidr_blocks``, ``ipv6_cidr_blocks``, ``cidr_ipv4``,
  ``cidr_ipv6``) are parsed; when the rule's IPv4 (IPv6) ranges together cover
  ``0.0.0.0/0`` (``::/0``), e.g. ``0.0.0.0/1`` + ``128.0.0.0/1`` or ``0::/0``, the canonical
  world range is added to its ``cidr_blocks`` (``ipv6_cidr_blocks``);
* rules that open the same admin port (22, 3389) of the same security group — the ingress
  blocks of one ``aws_security_group`` plus the ``aws_security_group_rule`` /
  ``aws_vpc_security_group_ingress_rule`` resources whose ``security_group_id`` refers to it
  — are united: when their ranges together cover the Internet, an extra rule opening exactly
  that port to the world is added for each rule that takes part (a synthetic ingress block of
  the group, or a synthetic copy of the rule resource under its own address), so the finding
  lands on the resources that open the port.

A CIDR that does not parse is returned as a problem (AWS would reject it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ADMIN_PORTS = (22, 3389)
WORLD = {4: "0.0.0.0/0", 6: "::/0"}
LIST_KEY = {4: "cidr_blocks", 6: "ipv6_cidr_blocks"}
CIDR_KEYS = ("cidr_blocks", "ipv6_cidr_blocks", "cidr_ipv4", "cidr_ipv6")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass
class _Rule:
    """One ingress rule: where it lives (an SG's ingress block or a rule resource)."""

    body: dict[str, Any]
    group: str
    owner: dict[str, Any]  # the resource holding it
    inline: bool


def _networks(rule: dict[str, Any], where: str, problems: list[str]) -> list[Network]:
    out: list[Network] = []
    for key in CIDR_KEYS:
        value = rule.get(key)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str) or "${" in item:
                continue
            try:
                out.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                problems.append(f"{where}.{key}: {item!r} is not a CIDR range")
    return out


def _covers_world(networks: Iterable[Network], version: int) -> bool:
    same = [n for n in networks if n.version == version]
    return any(n.prefixlen == 0 for n in ipaddress.collapse_addresses(same))  # type: ignore[arg-type]


def _open_to_world(rule: dict[str, Any], version: int) -> None:
    key = LIST_KEY[version]
    current = rule.get(key)
    items = current if isinstance(current, list) else ([] if current is None else [current])
    if WORLD[version] not in items:
        rule[key] = [*items, WORLD[version]]


def _all_protocols(rule: dict[str, Any]) -> bool:
    return any(
        str(rule.get(k)).strip().lower() in ("-1", "all") for k in ("protocol", "ip_protocol")
    )


def _covers_port(rule: dict[str, Any], port: int) -> bool:
    if _all_protocols(rule):
        return True
    low, high = rule.get("from_port"), rule.get("to_port")
    numbers = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (low, high))
    return numbers and low <= port <= high


def _rules(resources: list[dict[str, Any]]) -> list[_Rule]:
    out = []
    for r in resources:
        if r.get("mode") != "managed":
            continue
        config = r["config"]
        if r["type"] == "aws_security_group":
            group = f"${{aws_security_group.{r['name']}.id}}"
            blocks = config.get("ingress")
            for block in blocks if isinstance(blocks, list) else []:
                if isinstance(block, dict):
                    out.append(_Rule(block, group, r, True))
        elif r["type"] == "aws_vpc_security_group_ingress_rule" or (
            r["type"] == "aws_security_group_rule" and config.get("type") == "ingress"
        ):
            group = str(config.get("security_group_id") or r["address"])
            out.append(_Rule(config, group, r, False))
    return out


def _synthetic(port: int, version: int) -> dict[str, Any]:
    return {
        "protocol": "tcp",
        "from_port": port,
        "to_port": port,
        LIST_KEY[version]: [WORLD[version]],
    }


def unite_networks(data: dict[str, Any]) -> list[str]:
    """Add the world range where ingress ranges cover it (module docstring); the problems."""
    problems: list[str] = []
    resources = data.get("resources", [])
    rules = _rules(resources)
    nets = {id(rule.body): _networks(rule.body, rule.owner["address"], problems) for rule in rules}
    for rule in rules:
        for version in WORLD:
            if _covers_world(nets[id(rule.body)], version):
                _open_to_world(rule.body, version)
    extra: list[dict[str, Any]] = []
    groups: dict[str, list[_Rule]] = {}
    for rule in rules:
        groups.setdefault(rule.group, []).append(rule)
    for members in groups.values():
        for port in ADMIN_PORTS:
            covering = [m for m in members if _covers_port(m.body, port)]
            for version in WORLD:
                if any(_covers_world(nets[id(m.body)], version) for m in covering):
                    continue
                if not _covers_world((n for m in covering for n in nets[id(m.body)]), version):
                    continue
                for m in covering:
                    body = _synthetic(port, version)
                    if m.inline:
                        m.owner["config"]["ingress"].append(body)
                    else:
                        twin = {**m.owner, "config": {**m.body, **body, "type": "ingress"}}
                        extra.append(twin)
    resources.extend(extra)
    return problems
