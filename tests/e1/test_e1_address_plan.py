"""The v3 address plan: no address or address prefix is shared between splits, and within a
split a prefix does not give the label away."""

from __future__ import annotations

import ipaddress

import pytest

from sv_env_network_logs.address_plan import SPLITS, map_address, public_first_octets
from sv_env_network_logs.dataset import load_flows


def test_public_pools_of_the_splits_are_disjoint():
    pools = [set(public_first_octets(split)) for split in SPLITS]
    assert all(pools)
    for i, a in enumerate(pools):
        for b in pools[i + 1 :]:
            assert not a & b


@pytest.mark.parametrize("ip", ["8.8.8.8", "93.184.216.34", "10.0.5.7", "192.168.1.20",
                                "172.16.4.9"])  # fmt: skip
def test_an_address_lands_in_a_different_place_in_each_split(ip: str):
    mapped = [map_address(ip, split) for split in SPLITS]
    assert len(set(mapped)) == 3
    for split, value in zip(SPLITS, mapped, strict=True):
        addr = ipaddress.ip_address(value)
        assert addr.is_private == ipaddress.ip_address(ip).is_private
        assert map_address(ip, split) == value  # a pure function of (split, address)


@pytest.mark.parametrize("ip", ["224.0.0.251", "255.255.255.255", "0.0.0.0", "127.0.0.1",
                                "not-an-ip"])  # fmt: skip
def test_non_unicast_addresses_stay(ip: str):
    assert {map_address(ip, split) for split in SPLITS} == {ip}


def test_unknown_split_is_rejected():
    with pytest.raises(ValueError, match="unknown split"):
        map_address("8.8.8.8", "validation")


def _prefixes(split: str) -> set[str]:
    items, _ = load_flows("synthetic", split=split)
    out: set[str] = set()
    for item in items:
        for ip in (item.flow.src_ip, item.flow.dst_ip):
            addr = ipaddress.ip_address(ip)
            if not (addr.is_multicast or ip == "255.255.255.255" or addr.is_unspecified):
                out.add(".".join(ip.split(".")[:3]))
    return out


def test_default_splits_share_no_unicast_slash24():
    train, dev, test = (_prefixes(split) for split in SPLITS)
    assert not train & test and not train & dev and not dev & test
