"""Synthetic generator: determinism, exact balance, coverage, Zeek consistency, noise."""

from __future__ import annotations

import ipaddress
import itertools
from collections import Counter, defaultdict
from functools import cache

import pytest

from sv_env_network_logs.generator import (
    ATTACK_SCENARIOS,
    BENIGN_SCENARIOS,
    HARD_CASE_SCENARIOS,
    NOISE_OPTIONAL_FIELDS,
    NoiseConfig,
    generate_flows,
)


@cache
def clean(n: int = 3000, seed: int = 11):
    return tuple(generate_flows(n, seed=seed))


def dumps(items):
    return [item.model_dump() for item in items]


def test_same_seed_same_output_different_seed_different_output():
    assert dumps(generate_flows(400, seed=5)) == dumps(generate_flows(400, seed=5))
    assert dumps(generate_flows(400, seed=5)) != dumps(generate_flows(400, seed=6))
    noisy = NoiseConfig(missing_field_rate=0.2, swap_direction_rate=0.2)
    assert dumps(generate_flows(300, seed=5, noise=noisy)) == dumps(
        generate_flows(300, seed=5, noise=noisy)
    )


def test_known_fingerprint_is_stable_across_runs():
    first = generate_flows(3, seed=0)[0].flow
    assert first.model_dump() == generate_flows(3, seed=0)[0].flow.model_dump()
    assert first.uid is not None and first.uid.startswith("C") and len(first.uid) == 18


@pytest.mark.parametrize(
    ("n", "fraction", "malicious"),
    [
        (0, 0.5, 0),
        (1, 0.5, 1),
        (7, 0.5, 4),  # 3.5 rounds half up
        (1000, 0.3, 300),
        (999, 0.25, 250),
        (50, 0.0, 0),
        (50, 1.0, 50),
        (2000, 0.5, 1000),
    ],
)
def test_label_balance_is_exact(n, fraction, malicious):
    items = generate_flows(n, seed=3, malicious_fraction=fraction)
    assert len(items) == n
    assert sum(item.label == "Malicious" for item in items) == malicious


def test_every_class_present_in_2000_flows_and_hard_cases_are_a_few_percent():
    items = generate_flows(2000, seed=1)
    scenarios = {item.scenario for item in items}
    assert set(BENIGN_SCENARIOS) | set(ATTACK_SCENARIOS) <= scenarios
    hard = sum(item.scenario in HARD_CASE_SCENARIOS for item in items) / len(items)
    assert 0.02 <= hard <= 0.1
    for item in items:
        assert item.label == ("Malicious" if item.scenario.startswith("attack/") else "Benign")


def test_ids_unique_and_groups_are_single_scenario_sessions():
    items = clean()
    assert len({item.id for item in items}) == len(items)
    by_group = defaultdict(set)
    for item in items:
        by_group[item.group].add(item.scenario)
    assert all(len(s) == 1 for s in by_group.values())
    assert len(by_group) > 200  # many sessions -> meaningful grouped splits


def test_items_are_sorted_by_timestamp_without_noise():
    ts = [item.flow.ts for item in clean()]
    assert ts == sorted(ts)


def test_5000_flows_in_one_call():
    """Scale check only (its speed belongs to `make bench`: tests assert no wall-clock times)."""
    flows = generate_flows(5000, seed=2, noise=NoiseConfig())
    assert len(flows) == 5000 and len({f.id for f in flows}) == 5000


def test_argument_validation():
    with pytest.raises(ValueError):
        generate_flows(-1)
    with pytest.raises(ValueError):
        generate_flows(10, malicious_fraction=1.5)
    with pytest.raises(ValueError):
        NoiseConfig(missing_field_rate=2.0)
    with pytest.raises(ValueError):
        NoiseConfig(timestamp_jitter_s=-1)


# ---------------------------------------------------------------------------- Zeek invariants
HEADER = {"tcp": 40, "udp": 28, "icmp": 28}
TCP_STATES = {"S0", "S1", "S2", "S3", "SF", "REJ", "RSTO", "RSTR", "SH", "RSTOS0", "OTH"}


def test_zeek_field_consistency():
    for item in clean():
        f = item.flow
        assert f.proto in HEADER
        assert f.orig_ip_bytes == f.orig_bytes + HEADER[f.proto] * f.orig_pkts
        assert f.resp_ip_bytes == f.resp_bytes + HEADER[f.proto] * f.resp_pkts
        assert f.orig_pkts >= 1
        assert f.local_orig == ipaddress.ip_address(f.src_ip).is_private
        assert f.local_resp == ipaddress.ip_address(f.dst_ip).is_private
        assert f.duration is None or f.duration > 0
        if f.orig_bytes:
            assert f.orig_pkts * 1500 >= f.orig_ip_bytes
        if f.proto == "tcp":
            assert f.conn_state in TCP_STATES
            if f.conn_state == "OTH":  # mid-stream: no SYN seen, one letter per side
                assert f.history in {"Aa", "Ad", "Da", "Dd"} and f.resp_pkts >= 1
                assert ("D" in f.history) == (f.orig_bytes > 0)
                assert ("d" in f.history) == (f.resp_bytes > 0)
                continue
            assert f.history.startswith("S")
            if f.conn_state in ("S0", "REJ", "SH", "RSTOS0"):
                assert f.orig_bytes == f.resp_bytes == 0
            if f.conn_state == "S0":
                assert f.history == "S" and f.resp_pkts == 0
                assert (f.duration is None) == (f.orig_pkts == 1)
            if f.conn_state == "REJ":
                assert f.history == "Sr" and f.resp_pkts == 1
            if f.conn_state == "RSTOS0":
                assert f.history == "SR" and f.resp_pkts == 0
            if f.conn_state in ("SF", "S1", "S2", "S3", "RSTO", "RSTR"):
                assert "h" in f.history and f.resp_pkts >= 1
            if f.conn_state == "SF":
                assert "F" in f.history or "f" in f.history
            if f.conn_state == "S2":
                assert f.history.endswith("F") and "f" not in f.history
            if f.conn_state == "S3":
                assert f.history.endswith("f") and "F" not in f.history
            assert ("D" in f.history) == (f.orig_bytes > 0)
            assert ("d" in f.history) == (f.resp_bytes > 0)
        elif f.proto == "udp":
            assert (f.conn_state, f.history) in {("SF", "Dd"), ("S0", "D")}
            assert (f.resp_pkts == 0) == (f.conn_state == "S0")
        else:
            assert f.conn_state == "OTH" and f.history is None


def by_scenario():
    out = defaultdict(list)
    for item in clean():
        out[item.scenario].append(item)
    return out


def test_benign_classes_look_like_their_protocols():
    s = by_scenario()
    assert all(i.flow.dst_port == 80 and i.flow.proto == "tcp" for i in s["benign/web"])
    assert all(i.flow.dst_port == 443 for i in s["benign/tls"])
    assert all(i.flow.dst_port == 53 and i.flow.orig_bytes <= 140 for i in s["benign/dns"])
    for item in s["benign/ntp"]:
        assert item.flow.dst_port == 123 and item.flow.proto == "udp"
        assert item.flow.orig_bytes % 48 == 0 and item.flow.orig_bytes == 48 * item.flow.orig_pkts
    for item in s["benign/ssh_admin"]:
        assert item.flow.src_ip.startswith("10.99.") and item.flow.duration >= 60
    assert all(i.flow.resp_bytes > 10 * i.flow.orig_bytes for i in s["benign/streaming"])
    assert all(i.flow.resp_bytes >= 2_000_000 for i in s["benign/software_update"])
    for item in s["benign/web"] + s["benign/tls"]:
        assert ipaddress.ip_address(item.flow.dst_ip).is_global
        assert item.flow.src_port >= 32768


def test_attack_playbooks_have_their_signatures():
    s = by_scenario()
    groups = defaultdict(list)
    for scenario in ATTACK_SCENARIOS:
        for item in s[scenario]:
            groups[(scenario, item.group)].append(item.flow)
    for (scenario, _), flows in groups.items():
        srcs, dsts = {f.src_ip for f in flows}, {f.dst_ip for f in flows}
        ports = {f.dst_port for f in flows}
        if scenario == "attack/port_scan_horizontal":
            assert len(srcs) == 1 and len(ports) == 1
            assert len(flows) == 1 or len(dsts) > 1
            assert all(f.orig_bytes == 0 for f in flows)
        elif scenario == "attack/port_scan_vertical":
            assert len(srcs) == 1 and len(dsts) == 1
            assert all(f.conn_state in {"S0", "REJ", "RSTO"} for f in flows)
        elif scenario == "attack/syn_flood":
            assert len(dsts) == 1 and len(ports) == 1
            assert all(f.conn_state == "S0" and f.orig_pkts == 1 for f in flows)
            assert len(flows) < 3 or len(srcs) > 1
        elif scenario == "attack/brute_force":
            assert ports <= {22, 23, 2323} and len(srcs) == len(dsts) == 1
        elif scenario == "attack/exfiltration":
            assert all(f.orig_bytes >= max(5_000_000, 50 * f.resp_bytes) for f in flows)
        elif scenario == "attack/dns_tunnel":
            assert all(f.dst_port == 53 and f.orig_pkts >= 5 for f in flows)
            assert all(f.orig_bytes / f.orig_pkts >= 90 for f in flows)
        elif scenario == "attack/c2_beacon":
            assert len(dsts) == 1 and len(ports) == 1
            ts = sorted(f.ts for f in flows)
            gaps = [b - a for a, b in itertools.pairwise(ts)]
            if len(gaps) >= 2:
                assert max(gaps) <= 1.55 * min(gaps)  # periodic with +-10% jitter


# ---------------------------------------------------------------------------- noise
def test_noise_rates_are_respected():
    noise = NoiseConfig(timestamp_jitter_s=2.0, missing_field_rate=0.1, swap_direction_rate=0.05)
    base, noisy = clean(), generate_flows(3000, seed=11, noise=noise)
    assert [b.id for b in base] == [n.id for n in noisy]
    swapped = sum(b.flow.src_ip != n.flow.src_ip for b, n in zip(base, noisy, strict=True))
    assert 0.03 <= swapped / len(base) <= 0.07
    present = dropped = 0
    for b, n in zip(base, noisy, strict=True):
        for name in NOISE_OPTIONAL_FIELDS:
            if getattr(b.flow, name) is not None:
                present += 1
                dropped += getattr(n.flow, name) is None
    assert 0.085 <= dropped / present <= 0.115
    shifts = [n.flow.ts - b.flow.ts for b, n in zip(base, noisy, strict=True)]
    assert all(abs(x) <= 2.0 + 1e-6 for x in shifts)
    assert max(shifts) > 1.5 and min(shifts) < -1.5


def test_swapped_flows_stay_valid_and_mirror_bytes():
    noise = NoiseConfig(timestamp_jitter_s=0, missing_field_rate=0, swap_direction_rate=1.0)
    for b, n in zip(clean(300, 4), generate_flows(300, seed=4, noise=noise), strict=True):
        assert (n.flow.src_ip, n.flow.dst_ip) == (b.flow.dst_ip, b.flow.src_ip)
        assert (n.flow.orig_bytes, n.flow.resp_bytes) == (b.flow.resp_bytes, b.flow.orig_bytes)
        assert n.flow.history is None or n.flow.history.startswith("^")
        assert n.flow.ts == b.flow.ts


def test_default_noise_is_mild():
    noise = NoiseConfig()
    assert noise.missing_field_rate <= 0.05 and noise.swap_direction_rate <= 0.02
    assert noise.timestamp_jitter_s <= 1.0


# ---------------------------------------------------------------------------- botnet / C2 coverage
C2_SHAPES = {
    "attack/c2_unanswered", "attack/c2_refused", "attack/c2_heartbeat",
    "attack/c2_long_session", "attack/c2_file_download", "attack/telnet_spray",
    "attack/exploit_scan", "attack/ddos_flood", "attack/spam_burst", "attack/kdd_dos",
    "attack/kdd_probe", "attack/kdd_r2l",
}  # fmt: skip
BENIGN_MIRRORS = {
    "benign/offline_peer", "benign/refused", "benign/long_lived", "benign/heartbeat",
    "benign/lan_discovery", "benign/firmware_check", "benign/mail", "benign/device_admin",
    "benign/icmp", "benign/p2p", "benign/ftp",
}  # fmt: skip


def sessions(scenario):
    groups = defaultdict(list)
    for item in by_scenario()[scenario]:
        groups[item.group].append(item.flow)
    assert groups, scenario
    return list(groups.values())


def test_new_classes_are_registered():
    assert set(ATTACK_SCENARIOS) >= C2_SHAPES
    assert set(BENIGN_SCENARIOS) >= BENIGN_MIRRORS


def test_c2_attempts_repeat_to_one_controller_without_data():
    for scenario, states in (
        ("attack/c2_unanswered", {"S0", "SH", "RSTOS0", "OTH"}),
        ("attack/c2_refused", {"REJ", "RSTOS0", "RSTO"}),
    ):
        seen = set()
        for flows in sessions(scenario):
            assert len({(f.src_ip, f.dst_ip, f.dst_port, f.proto) for f in flows}) == 1
            assert all(f.local_orig and not f.local_resp for f in flows)
            for f in flows:
                assert f.resp_bytes == 0
                if f.proto == "tcp":
                    assert f.orig_bytes == 0 and f.conn_state in states
                    seen.add(f.conn_state)
                else:
                    assert f.conn_state == "S0" and f.resp_pkts == 0
        assert seen & {"S0", "REJ"}


def test_c2_attempts_are_mostly_periodic():
    periodic = total = 0
    for flows in sessions("attack/c2_unanswered") + sessions("attack/c2_heartbeat"):
        ts = sorted(f.ts for f in flows)
        gaps = [b - a for a, b in itertools.pairwise(ts)]
        if len(gaps) >= 3:
            total += 1
            periodic += max(gaps) <= 4.0 * max(min(gaps), 1e-3)
    assert total >= 5 and periodic / total >= 0.5


def test_long_sessions_downloads_and_sprays_have_their_shapes():
    for flows in sessions("attack/c2_long_session") + sessions("benign/long_lived"):
        assert all(f.duration >= 300 for f in flows)
    for flows in sessions("attack/c2_long_session"):
        assert all((f.orig_bytes + f.resp_bytes) / f.duration < 200 for f in flows)
    for flows in sessions("attack/c2_file_download"):
        assert len({f.dst_ip for f in flows}) == 1
        assert all(f.resp_bytes > f.orig_bytes for f in flows)
    sprays = [f for s in sessions("attack/telnet_spray") for f in s]
    assert {f.dst_port for f in sprays} <= {22, 23, 2323}
    assert len({f.dst_ip for f in sprays}) > len(sprays) // 2
    assert all(f.local_orig and not f.local_resp for f in sprays)
    for flows in sessions("attack/spam_burst"):
        assert {f.dst_port for f in flows} <= {25, 465, 587}


def test_floods_and_discovery_are_one_way():
    for flows in sessions("benign/lan_discovery"):
        assert all(f.proto == "udp" and f.resp_pkts == 0 for f in flows)
        assert all(ipaddress.ip_address(f.dst_ip).is_multicast or f.dst_ip.endswith(".255")
                   for f in flows)  # fmt: skip
    ddos = [f for s in sessions("attack/ddos_flood") for f in s]
    assert {f.proto for f in ddos} <= {"tcp", "udp", "icmp"}
    assert all(f.resp_pkts == 0 for f in ddos if f.proto in ("udp", "icmp"))


def test_every_attack_state_has_a_benign_twin():
    """No tcp conn_state is produced by attacks only."""
    states = defaultdict(set)
    for item in clean():
        states[item.flow.conn_state].add(item.label)
    assert all(labels == {"Benign", "Malicious"} for labels in states.values()), states


# ---------------------------------------------------------------------------- single features
def _bucket(value, edges):
    if value is None:
        return None
    return sum(value >= edge for edge in edges)


_BYTE_EDGES = (1, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)
SINGLE_FEATURES = {
    "proto": lambda f: f.proto,
    "service": lambda f: f.service,
    "conn_state": lambda f: f.conn_state,
    "history": lambda f: f.history,
    "dst_port": lambda f: f.dst_port,
    "local_orig/local_resp": lambda f: (f.local_orig, f.local_resp),
    "duration bucket": lambda f: _bucket(f.duration, (0.001, 0.01, 0.1, 1, 10, 60, 600, 3600)),
    "bytes bucket": lambda f: (
        _bucket(f.orig_bytes, _BYTE_EDGES),
        _bucket(f.resp_bytes, _BYTE_EDGES),
    ),
}


def test_no_single_feature_gives_the_label_away():
    """Majority label per value (values seen < 5 times pooled as "rare") on the default train
    split: no single field reaches 75% accuracy."""
    from sv_env_network_logs.dataset import load_flows

    train, _ = load_flows("synthetic", split="train")
    for name, key in SINGLE_FEATURES.items():
        values = [key(item.flow) for item in train]
        freq = Counter(values)
        table = defaultdict(Counter)
        for value, item in zip(values, train, strict=True):
            table[value if freq[value] >= 5 else "rare"][item.label] += 1
        accuracy = sum(max(c.values()) for c in table.values()) / len(train)
        assert accuracy <= 0.75, (name, round(accuracy, 3))
