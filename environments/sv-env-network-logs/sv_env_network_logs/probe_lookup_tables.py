"""Lookup-table probes for E1: a table keyed on a few flow fields, fit on the train split.

Each table maps a key (destination /16, destination port, a three-field tuple, ...) to the
answer that earned the most reward on the train rows with that key: a label with the key's
smoothed train frequency as its confidence, or Abstain. Keys seen fewer than
:data:`MIN_SUPPORT` times on train, and keys the train split never saw, abstain.

A table that beats abstaining on the test split has found a shortcut in the generator: an
address plan shared between splits, attack roles that prefer some address pools, or a closed
list of controller ports. Address tables are hacks (they must not beat ``abstain-always``);
one-field and three-field tables without addresses are reported beside them.
"""

from __future__ import annotations

import ipaddress
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Mapping
from functools import lru_cache
from typing import Any

from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.flows import Flow
from sv_env_network_logs.prompts import parse_rendered_flow
from sv_env_network_logs.reward import ABSTAIN

MIN_SUPPORT = 3
BENIGN, MALICIOUS = "Benign", "Malicious"
KeyFn = Callable[[Flow], Hashable]
RewardFn = Callable[[str, Mapping[str, Any]], float]


def _prefix(ip: str | None, octets: int) -> str | None:
    """The first ``octets`` octets of a unicast IPv4 address; ``None`` for group addresses
    (multicast and broadcast belong to no address plan: who answers them is behaviour)."""
    if not ip or ":" in ip:
        return ip
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if addr.is_multicast or ip.endswith(".255"):
        return None
    return ".".join(ip.split(".")[:octets])


#: name -> key function: address keys are hacks (:data:`SHORTCUT_KEYS`), the rest are
#: reported next to them (:data:`REPORTED_KEYS`).
KEYS: dict[str, KeyFn] = {
    "dst-prefix16": lambda f: _prefix(f.dst_ip, 2),
    "src-prefix16": lambda f: _prefix(f.src_ip, 2),
    "dst-prefix24": lambda f: _prefix(f.dst_ip, 3),
    "address-pair16": lambda f: _with_prefixes(_prefix(f.src_ip, 2), _prefix(f.dst_ip, 2)),
    "dst-port": lambda f: (f.proto, f.dst_port),
    "service": lambda f: f.service or "-",
    "conn-state": lambda f: f.conn_state or "-",
    "dst-port-src-prefix16": lambda f: _with_prefixes(f.proto, f.dst_port, _prefix(f.src_ip, 2)),
    "port-service-direction": lambda f: (f.dst_port, f.service, f.local_orig, f.local_resp),
    "state-proto-service": lambda f: (f.conn_state, f.proto, f.service),
}
SHORTCUT_KEYS = (
    "dst-prefix16",
    "src-prefix16",
    "dst-prefix24",
    "address-pair16",
    "dst-port-src-prefix16",
)
#: one field and three fields without addresses: reported, not stopped. The destination
#: port alone still beats abstaining by a few per cent of the gap to the reference (well-known
#: service ports keep uneven label mixes session by session); the others read what the
#: connection did (handshake state, whether a service was recognised).
REPORTED_KEYS = (
    "dst-port",
    "service",
    "conn-state",
    "state-proto-service",
    "port-service-direction",
)


def _unkeyed(value: Hashable) -> bool:
    """No key (a group address where the key needs a prefix): the table abstains."""
    return value is None


def _with_prefixes(*parts: Hashable) -> Hashable:
    """A tuple key, or ``None`` when one of its address prefixes is a group address."""
    return None if any(p is None for p in parts) else parts


def _answer(label: str, confidence: float) -> str:
    return json.dumps({"label": label, "confidence": round(confidence, 4), "rationale": "table"})


def _best_answer(counts: Counter[str], reward: RewardFn) -> str:
    """The answer with the highest mean train reward for a key with these label counts."""
    total = sum(counts.values())
    p_mal = (counts[MALICIOUS] + 1) / (total + 2)
    options = (
        _answer(MALICIOUS, p_mal),
        _answer(BENIGN, 1.0 - p_mal),
        _answer(ABSTAIN, 0.5),
    )

    def mean_reward(text: str) -> float:
        return sum(n * reward(text, {"gold": gold}) for gold, n in counts.items()) / total

    return max(options, key=mean_reward)


@lru_cache(maxsize=16)
def fit_table(key_name: str, reward: RewardFn) -> Mapping[Hashable, str]:
    """Fit the table for ``key_name`` on the default synthetic train split."""
    key = KEYS[key_name]
    items, _ = load_flows("synthetic", split="train")
    counts: dict[Hashable, Counter[str]] = defaultdict(Counter)
    for item in items:
        value = key(item.flow)
        if not _unkeyed(value):
            counts[value][item.label] += 1
    return {k: _best_answer(c, reward) for k, c in counts.items() if sum(c.values()) >= MIN_SUPPORT}


def table_policy(key_name: str, reward: RewardFn) -> Callable[[Mapping[str, Any]], str]:
    """A probe answer: look the episode's flow up in the train-fit table, else abstain."""
    key = KEYS[key_name]

    def policy(info: Mapping[str, Any]) -> str:
        flow = parse_rendered_flow(str(info["text"]))
        if flow is None:
            return _answer(ABSTAIN, 0.5)
        value = key(flow)
        if _unkeyed(value):
            return _answer(ABSTAIN, 0.5)
        return fit_table(key_name, reward).get(value, _answer(ABSTAIN, 0.5))

    return policy
