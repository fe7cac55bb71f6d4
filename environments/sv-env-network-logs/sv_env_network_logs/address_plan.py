"""Per-split address plans for the synthetic generator: no address is shared between splits.

The playbooks draw endpoints from one pool per role (internal hosts by role, one pool for
every external endpoint whatever the label). After the grouped split, :func:`assign_split`
moves every address into the plan of its split:

* a public address keeps its last two octets and gets a /16 of the split's own public
  pool; the pools of train, dev and test use disjoint first octets;
* a private address (any RFC 1918 block, so the block no longer tells a role) keeps its
  last octet and gets a /24 inside the split's own slice of 10.0.0.0/8;
* multicast, broadcast, unspecified and loopback addresses stay as they are.

So a table keyed on addresses and fit on train never sees a test key, and within a split an
address prefix does not tell a label. The mapping is a pure function of (split, prefix).
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable, Mapping
from functools import lru_cache

from sv_env_network_logs.flows import LabeledFlow

SPLITS = ("train", "dev", "test")
_PRIVATE_SECOND_OCTETS = {"train": range(0, 80), "dev": range(80, 160), "test": range(160, 240)}
#: first octets with no special-purpose range in them (RFC 6890), shared out by split
_PUBLIC_FIRST_OCTETS = tuple(
    o for o in range(1, 224) if o not in (10, 100, 127, 169, 172, 192, 198, 203)
)


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


@lru_cache(maxsize=4)
def public_first_octets(split: str) -> tuple[int, ...]:
    """The first octets of ``split``'s public pool (disjoint across splits)."""
    order = sorted(_PUBLIC_FIRST_OCTETS, key=lambda o: _digest("first-octet", o))
    return tuple(sorted(order[SPLITS.index(split) :: len(SPLITS)]))


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")


@lru_cache(maxsize=65_536)
def map_address(ip: str, split: str) -> str:
    """``ip`` moved into ``split``'s address plan (unchanged when it is not unicast)."""
    _check_split(split)
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if addr.version != 4 or addr.is_multicast or addr.is_loopback or addr.is_unspecified:
        return ip
    octets = ip.split(".")
    if ip == "255.255.255.255":
        return ip
    if addr.is_private:
        second = _PRIVATE_SECOND_OCTETS[split]
        h = _digest(split, "private", *octets[:3])
        return f"10.{second[h % len(second)]}.{(h >> 16) % 256}.{octets[3]}"
    if addr.is_global:
        firsts = public_first_octets(split)
        for attempt in range(16):
            h = _digest(split, "public", octets[0], octets[1], attempt)
            candidate = f"{firsts[h % len(firsts)]}.{(h >> 16) % 256}.{octets[2]}.{octets[3]}"
            if ipaddress.ip_address(candidate).is_global:
                return candidate
    return ip


def assign_split(item: LabeledFlow, split: str) -> LabeledFlow:
    """``item`` with its source and destination addresses in ``split``'s plan."""
    flow = item.flow
    src, dst = map_address(flow.src_ip, split), map_address(flow.dst_ip, split)
    moved = flow.model_copy(update={"src_ip": src, "dst_ip": dst})
    return item.model_copy(update={"flow": moved})


def assign_splits(items: Iterable[LabeledFlow], split_of: Mapping[str, str]) -> list[LabeledFlow]:
    """Every item moved into the plan of its split (``split_of`` maps item id to split)."""
    return [assign_split(item, split_of[item.id]) for item in items]
