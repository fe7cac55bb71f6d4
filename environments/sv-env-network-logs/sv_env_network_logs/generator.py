"""Deterministic synthetic Zeek ``conn.log`` flows with benign traffic and attack playbooks.

Determinism: all randomness comes from ``random.Random`` instances seeded from ``seed`` and
only uses integer draws and ``random()``/``uniform()`` with plain IEEE arithmetic (no
``gauss``/``log``/``exp``), so the output is identical on every run and platform.

Each playbook run is a *session* (several flows sharing ``group``). The label budget is exact:
``round(n * malicious_fraction)`` malicious flows (halves round up), the rest benign; each
class gets a share of its label's budget by fixed weights (largest remainder), so every class
is present once ``n`` is a few hundred.

Modules by role: ``records`` builds Zeek-consistent records (its docstring lists the rules);
this module holds the original enterprise classes, noise and assembly; ``botnet`` holds the
IoT botnet / C2 playbooks and their benign look-alikes; ``classic`` the KDD-99 style attacks.
Benign and attack classes are weighted so that no single field (state, port, service, bytes,
duration, locality) predicts the label with more than ~72% accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

from sv_env_network_logs import botnet, classic
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.records import (
    _CLOUD_PREFIXES,
    _INTERNAL_DNS,
    _MISC_PREFIXES,
    _MONITORS,
    _PUBLIC_DNS,
    _STORAGE_PREFIXES,
    _STREAMING_PREFIXES,
    _UPDATE_PREFIXES,
    _admin,
    _any_public,
    _app_port,
    _dmz,
    _ephemeral,
    _iot,
    _public,
    _server,
    _skew,
    _skew_int,
    _user,
    icmp_echo,
    tcp_flow,
    udp_flow,
)
from sv_shared.sampling import weighted_pick as _pick

GENERATOR_VERSION = "synthetic-v3"
BASE_TS = 1_700_000_000.0
DAY_S = 86_400.0


# ---------------------------------------------------------------------------- benign classes
Playbook = Callable[[Random, float, int], list[dict[str, Any]]]


def _benign_web(rng: Random, t: float, k: int) -> list[dict]:
    client, servers = _user(rng), [_public(rng, _CLOUD_PREFIXES) for _ in range(3)]
    out = []
    for _ in range(k):
        state = _pick(rng, (("SF", 0.9), ("RSTO", 0.05), ("S1", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=rng.choice(servers),
                dport=80,
                state=state,
                ob=rng.randint(180, 1500),
                rb=_skew_int(rng, 300, 800_000),
                duration=_skew(rng, 0.02, 8.0),
                service="http" if rng.random() < 0.9 else None,
            )
        )
        t += rng.uniform(0.1, 30.0)
    return out


def _benign_tls(rng: Random, t: float, k: int) -> list[dict]:
    client = _user(rng)
    servers = [_public(rng, _CLOUD_PREFIXES + _MISC_PREFIXES[:4]) for _ in range(3)]
    out = []
    for _ in range(k):
        state = _pick(rng, (("SF", 0.8), ("RSTR", 0.07), ("S1", 0.08), ("RSTO", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=rng.choice(servers),
                dport=443,
                state=state,
                ob=_skew_int(rng, 500, 9000),
                rb=_skew_int(rng, 3000, 3_000_000),
                duration=_skew(rng, 0.05, 120.0),
                service="ssl" if rng.random() < 0.85 else None,
            )
        )
        t += rng.uniform(0.05, 45.0)
    return out


def _benign_dns(rng: Random, t: float, k: int) -> list[dict]:
    client = _user(rng) if rng.random() < 0.8 else _server(rng)
    resolver = rng.choice(_INTERNAL_DNS) if rng.random() < 0.7 else rng.choice(_PUBLIC_DNS)
    out = []
    for _ in range(k):
        if rng.random() < 0.08:  # a truncated answer retried over tcp, or a zone transfer
            rb = _skew_int(rng, 300, 60_000)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=client,
                    sport=_ephemeral(rng),
                    dst=resolver,
                    dport=53,
                    state="SF",
                    ob=rng.randint(30, 120),
                    rb=rb,
                    duration=_skew(rng, 0.002, 2.0),
                    service="dns",
                )
            )
            t += rng.uniform(0.01, 20.0)
            continue
        opk = 1 if rng.random() < 0.9 else 2
        rpk = 0 if rng.random() < 0.05 else opk
        out.append(
            udp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=resolver,
                dport=53,
                ob=opk * rng.randint(28, 70),
                rb=rpk * rng.randint(44, 450),
                opk=opk,
                rpk=rpk,
                duration=_skew(rng, 0.0005, 0.2),
                service="dns",
            )
        )
        t += rng.uniform(0.01, 20.0)
    return out


def _benign_ntp(rng: Random, t: float, k: int) -> list[dict]:
    client = rng.choice((_user, _server, _iot))(rng)
    server = _public(rng, _CLOUD_PREFIXES) if rng.random() < 0.7 else "10.10.0.123"
    out = []
    for _ in range(k):
        burst = 1 if rng.random() < 0.8 else 4
        out.append(
            udp_flow(
                rng,
                ts=t,
                src=client,
                sport=123 if rng.random() < 0.5 else _ephemeral(rng),
                dst=server,
                dport=123,
                ob=48 * burst,
                rb=48 * burst,
                opk=burst,
                rpk=burst,
                duration=_skew(rng, 0.005, 0.2) + (burst - 1) * 2.0,
                service="ntp",
            )
        )
        t += rng.uniform(60.0, 1024.0)
    return out


def _benign_ssh_admin(rng: Random, t: float, k: int) -> list[dict]:
    admin = _admin(rng)
    out = []
    for _ in range(k):
        duration = _skew(rng, 60.0, 14_400.0)
        ob = int(duration * rng.uniform(40.0, 400.0)) + rng.randint(3000, 9000)
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=admin,
                sport=_ephemeral(rng),
                dst=_server(rng),
                dport=22,
                state=_pick(rng, (("SF", 0.7), ("S1", 0.3))),
                ob=ob,
                rb=int(ob * rng.uniform(1.5, 12.0)),
                duration=duration,
                service="ssh",
                orig_seg=rng.randint(48, 120),
                resp_seg=rng.randint(200, 1448),
            )
        )
        t += duration + rng.uniform(30.0, 900.0)
    return out


def _benign_streaming(rng: Random, t: float, k: int) -> list[dict]:
    client, cdn = _user(rng), _public(rng, _STREAMING_PREFIXES)
    out = []
    for _ in range(k):
        duration = rng.uniform(600.0, 10_800.0)
        rb = int(duration * rng.uniform(125_000.0, 1_000_000.0))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=cdn,
                dport=443,
                state=_pick(rng, (("SF", 0.7), ("S1", 0.3))),
                ob=int(rb * rng.uniform(0.004, 0.02)),
                rb=rb,
                duration=duration,
                service="ssl",
            )
        )
        t += rng.uniform(1.0, 120.0)
    return out


def _benign_update(rng: Random, t: float, k: int) -> list[dict]:
    client = rng.choice((_user, _server))(rng)
    host = _public(rng, _UPDATE_PREFIXES)
    out = []
    for _ in range(k):
        rb = _skew_int(rng, 2_000_000, 900_000_000)
        dport = rng.choice((80, 443))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=host,
                dport=dport,
                state="SF",
                ob=rng.randint(1_000, 50_000),
                rb=rb,
                duration=rb / rng.uniform(1e6, 5e7),
                service="http" if dport == 80 else "ssl",
            )
        )
        t += rng.uniform(1.0, 60.0)
    return out


def _benign_monitoring(rng: Random, t: float, k: int) -> list[dict]:
    """Hard case: an internal monitoring host sweeping services (scan-like, benign)."""
    monitor = rng.choice(_MONITORS)
    out = []
    for _ in range(k):
        target = rng.choice((_server, _user, _dmz))(rng)
        kind = _pick(rng, (("tcp", 0.6), ("snmp", 0.25), ("icmp", 0.15)))
        if kind == "icmp":
            out.append(
                icmp_echo(
                    rng,
                    ts=t,
                    src=monitor,
                    dst=target,
                    pkts=rng.randint(1, 3),
                    replies=rng.random() < 0.8,
                )
            )
        elif kind == "snmp":
            replied = rng.random() < 0.8
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=monitor,
                    sport=_ephemeral(rng),
                    dst=target,
                    dport=161,
                    ob=rng.randint(40, 90),
                    rb=rng.randint(60, 1400),
                    rpk=1 if replied else 0,
                    service="snmp" if replied else None,
                )
            )
        else:
            state = _pick(rng, (("SF", 0.5), ("REJ", 0.3), ("S0", 0.2)))
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=monitor,
                    sport=_ephemeral(rng),
                    dst=target,
                    dport=rng.choice((22, 80, 443, 3389, 5985, 8080)),
                    state=state,
                    ob=rng.randint(0, 20),
                    rb=rng.randint(0, 300),
                    syn_pkts=rng.randint(1, 2),
                    duration=_skew(rng, 0.001, 0.5),
                )
            )
        t += rng.uniform(0.01, 2.0)
    return out


def _benign_failed(rng: Random, t: float, k: int) -> list[dict]:
    """Hard case: ordinary outbound connections that never got an answer."""
    client, server = _user(rng), _public(rng, _CLOUD_PREFIXES + _MISC_PREFIXES)
    out = []
    for _ in range(k):
        state = "S0" if rng.random() < 0.8 else "REJ"
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=server,
                dport=rng.choice((443, 443, 80, 8443, _app_port(rng))),
                state=state,
                syn_pkts=rng.randint(1, 3),
                duration=rng.uniform(1.0, 7.0) if state == "S0" else _skew(rng, 0.0005, 0.3),
            )
        )
        t += rng.uniform(1.0, 30.0)
    return out


def _benign_upload(rng: Random, t: float, k: int) -> list[dict]:
    """Hard case: a legitimate large upload (cloud backup) that looks like exfiltration."""
    client, host = _user(rng), _public(rng, _STORAGE_PREFIXES)
    out = []
    for _ in range(k):
        ob = _skew_int(rng, 20_000_000, 2_000_000_000)
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=client,
                sport=_ephemeral(rng),
                dst=host,
                dport=443,
                state="SF",
                ob=ob,
                rb=int(ob * rng.uniform(0.001, 0.01)),
                duration=ob / rng.uniform(1e6, 2e7),
                service="ssl",
            )
        )
        t += rng.uniform(1.0, 300.0)
    return out


# ---------------------------------------------------------------------------- attack playbooks
_SCAN_PORTS = (23, 22, 445, 3389, 80, 8080, 443, 6379, 9200, 5432)
_TOP_PORTS = (
    21, 22, 23, 25, 53, 80, 110, 111, 135, 139, 143, 443, 445, 993, 995, 1433, 1723, 3306,
    3389, 5432, 5900, 6379, 8000, 8080, 8443, 9200, 27017,
)  # fmt: skip


def _attack_scan_horizontal(rng: Random, t: float, k: int) -> list[dict]:
    outbound = rng.random() < 0.4  # an infected internal device scanning the internet
    src = _iot(rng) if outbound else _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES[:4])
    dport = rng.choice(_SCAN_PORTS)
    fixed_sport = _ephemeral(rng) if rng.random() < 0.6 else None
    subnet = rng.choice(("10.1.4", "10.10.2", "192.168.1", "172.16.5"))
    out = []
    for _ in range(k):
        dst = _any_public(rng) if outbound else f"{subnet}.{rng.randint(1, 254)}"
        state = _pick(rng, (("S0", 0.8), ("REJ", 0.15), ("RSTO", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=src,
                sport=fixed_sport or _ephemeral(rng),
                dst=dst,
                dport=dport,
                state=state,
                syn_pkts=1 if rng.random() < 0.7 else 2,
                open_port_probe=True,
                duration=_skew(rng, 0.000002, 0.002),
            )
        )
        t += _skew(rng, 0.001, 2.0)
    return out


def _attack_scan_vertical(rng: Random, t: float, k: int) -> list[dict]:
    internal = rng.random() < 0.3
    src = _user(rng) if internal else _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES[:4])
    dst = rng.choice((_server, _dmz, _iot))(rng)
    sequential = rng.random() < 0.5
    port = rng.randint(1, 2000)
    sport = _ephemeral(rng)
    out = []
    for _ in range(k):
        if sequential:
            port = port % 65535 + 1
        else:
            port = rng.choice(_TOP_PORTS) if rng.random() < 0.6 else rng.randint(1, 65535)
        state = _pick(rng, (("S0", 0.55), ("REJ", 0.4), ("RSTO", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=src,
                sport=sport,
                dst=dst,
                dport=port,
                state=state,
                syn_pkts=1,
                open_port_probe=True,
                duration=_skew(rng, 0.000002, 0.002),
            )
        )
        t += _skew(rng, 0.0005, 0.5)
    return out


def _attack_syn_flood(rng: Random, t: float, k: int) -> list[dict]:
    dst, dport = rng.choice((_server, _dmz))(rng), rng.choice((80, 443, 443, 443, 25))
    out = []
    for _ in range(k):
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=_any_public(rng),
                sport=rng.randint(1024, 65535),
                dst=dst,
                dport=dport,
                state="S0",
                syn_pkts=1,
            )
        )
        t += _skew(rng, 0.0001, 0.01)
    return out


def _attack_brute_force(rng: Random, t: float, k: int) -> list[dict]:
    inbound = rng.random() < 0.6
    src = _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES[:4]) if inbound else _iot(rng)
    dst = rng.choice((_iot, _server))(rng) if inbound else _any_public(rng)
    dport = _pick(rng, ((23, 0.4), (2323, 0.1), (22, 0.5)))
    ssh = dport == 22
    out = []
    for _ in range(k):
        state = _pick(rng, (("SF", 0.6), ("RSTO", 0.3), ("REJ", 0.1)))
        if ssh:
            ob, rb, dur = rng.randint(1200, 3500), rng.randint(1500, 4500), rng.uniform(0.5, 6)
        else:
            ob, rb, dur = rng.randint(10, 120), rng.randint(20, 300), rng.uniform(0.3, 8.0)
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=src,
                sport=_ephemeral(rng),
                dst=dst,
                dport=dport,
                state=state,
                ob=ob,
                rb=rb,
                duration=dur,
                service="ssh" if ssh and state != "REJ" else None,
                orig_seg=rng.randint(20, 200),
                resp_seg=rng.randint(40, 600),
            )
        )
        t += dur + rng.uniform(0.5, 10.0)
    return out


def _attack_c2_beacon(rng: Random, t: float, k: int) -> list[dict]:
    bot = rng.choice((_user, _iot))(rng)
    variant = _pick(rng, (("odd", 0.4), ("http", 0.35), ("tls", 0.25)))
    c2 = _public(rng, _MISC_PREFIXES if rng.random() < 0.7 else _CLOUD_PREFIXES)
    dport, service = {
        "odd": (_app_port(rng), None),
        "http": (80, "http"),
        "tls": (443, "ssl"),
    }[variant]
    interval = rng.uniform(30.0, 900.0)
    out = []
    for i in range(k):
        state = _pick(rng, (("SF", 0.85), ("S0", 0.1), ("RSTR", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t + i * interval + rng.uniform(-0.1, 0.1) * interval,
                src=bot,
                sport=_ephemeral(rng),
                dst=c2,
                dport=dport,
                state=state,
                ob=rng.randint(60, 600),
                rb=_skew_int(rng, 0, 900),
                syn_pkts=rng.randint(1, 3),
                duration=_skew(rng, 0.05, 3.0),
                service=service if state != "S0" else None,
            )
        )
    return out


def _attack_exfiltration(rng: Random, t: float, k: int) -> list[dict]:
    src = rng.choice((_user, _server))(rng)
    dst = _public(rng, _MISC_PREFIXES if rng.random() < 0.5 else _CLOUD_PREFIXES)
    dport, service = _pick(
        rng,
        (
            ((443, "ssl"), 0.4),
            ((21, "ftp"), 0.1),
            ((22, "ssh"), 0.15),
            ((_app_port(rng), None), 0.35),
        ),
    )
    out = []
    for _ in range(k):
        ob = _skew_int(rng, 5_000_000, 2_000_000_000)
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=src,
                sport=_ephemeral(rng),
                dst=dst,
                dport=dport,
                state="SF",
                ob=ob,
                rb=max(200, int(ob * rng.uniform(0.0005, 0.01))),
                duration=ob / rng.uniform(2e5, 1.5e7),
                service=service,
            )
        )
        t += rng.uniform(5.0, 600.0)
    return out


def _attack_dns_tunnel(rng: Random, t: float, k: int) -> list[dict]:
    src = rng.choice((_user, _server, _iot))(rng)
    resolver = rng.choice(_INTERNAL_DNS) if rng.random() < 0.5 else rng.choice(_PUBLIC_DNS)
    out = []
    for _ in range(k):
        if rng.random() < 0.2:  # low and slow
            opk, duration = rng.randint(5, 20), rng.uniform(5.0, 60.0)
        else:
            opk, duration = _skew_int(rng, 40, 3000), rng.uniform(20.0, 1800.0)
        rpk = max(1, int(opk * rng.uniform(0.9, 1.0)))
        out.append(
            udp_flow(
                rng,
                ts=t,
                src=src,
                sport=_ephemeral(rng),
                dst=resolver,
                dport=53,
                ob=opk * rng.randint(90, 250),
                rb=rpk * rng.randint(100, 300),
                opk=opk,
                rpk=rpk,
                duration=duration,
                service="dns",
            )
        )
        t += duration + rng.uniform(1.0, 120.0)
    return out


@dataclass(frozen=True)
class _Class:
    scenario: str
    weight: float
    session: tuple[int, int]
    build: Playbook


BENIGN_CLASSES: tuple[_Class, ...] = (
    _Class("benign/web", 0.10, (1, 6), _benign_web),
    _Class("benign/tls", 0.12, (1, 6), _benign_tls),
    _Class("benign/dns", 0.08, (1, 6), _benign_dns),
    _Class("benign/ntp", 0.04, (1, 4), _benign_ntp),
    _Class("benign/ssh_admin", 0.03, (1, 3), _benign_ssh_admin),
    _Class("benign/streaming", 0.03, (1, 3), _benign_streaming),
    _Class("benign/software_update", 0.04, (1, 5), _benign_update),
    _Class("benign/monitoring", 0.03, (3, 8), _benign_monitoring),
    _Class("benign/failed_connection", 0.04, (1, 3), _benign_failed),
    _Class("benign/large_upload", 0.02, (1, 3), _benign_upload),
    _Class("benign/offline_peer", 0.10, (3, 15), botnet._benign_offline_peer),
    _Class("benign/refused", 0.05, (2, 8), botnet._benign_refused),
    _Class("benign/long_lived", 0.05, (1, 3), botnet._benign_long_lived),
    _Class("benign/heartbeat", 0.06, (3, 12), botnet._benign_heartbeat),
    _Class("benign/lan_discovery", 0.05, (2, 10), botnet._benign_lan_discovery),
    _Class("benign/firmware_check", 0.03, (1, 4), botnet._benign_firmware_check),
    _Class("benign/mail", 0.05, (2, 8), botnet._benign_mail),
    _Class("benign/device_admin", 0.06, (1, 3), botnet._benign_device_admin),
    _Class("benign/p2p", 0.05, (3, 12), botnet._benign_p2p),
    _Class("benign/icmp", 0.03, (1, 6), botnet._benign_icmp),
    _Class("benign/ftp", 0.02, (2, 6), classic._benign_ftp),
)
ATTACK_CLASSES: tuple[_Class, ...] = (
    _Class("attack/port_scan_horizontal", 0.06, (4, 12), _attack_scan_horizontal),
    _Class("attack/port_scan_vertical", 0.05, (4, 12), _attack_scan_vertical),
    _Class("attack/syn_flood", 0.05, (4, 15), _attack_syn_flood),
    _Class("attack/brute_force", 0.06, (3, 10), _attack_brute_force),
    _Class("attack/c2_beacon", 0.05, (3, 8), _attack_c2_beacon),
    _Class("attack/exfiltration", 0.04, (1, 4), _attack_exfiltration),
    _Class("attack/dns_tunnel", 0.05, (1, 4), _attack_dns_tunnel),
    _Class("attack/c2_unanswered", 0.12, (3, 20), botnet._attack_c2_attempts(refused=False)),
    _Class("attack/c2_refused", 0.05, (3, 15), botnet._attack_c2_attempts(refused=True)),
    _Class("attack/c2_heartbeat", 0.07, (3, 12), botnet._attack_c2_heartbeat),
    _Class("attack/c2_long_session", 0.05, (1, 3), botnet._attack_c2_long_session),
    _Class("attack/c2_file_download", 0.05, (1, 5), botnet._attack_c2_download),
    _Class("attack/telnet_spray", 0.06, (4, 15), botnet._attack_telnet_spray),
    _Class("attack/exploit_scan", 0.07, (4, 15), botnet._attack_exploit_scan),
    _Class("attack/ddos_flood", 0.05, (4, 20), botnet._attack_ddos),
    _Class("attack/spam_burst", 0.03, (3, 12), botnet._attack_spam),
    _Class("attack/lan_service_probe", 0.06, (3, 12), botnet._attack_lan_service_probe),
    _Class("attack/kdd_dos", 0.05, (3, 15), classic._attack_kdd_dos),
    _Class("attack/kdd_probe", 0.04, (3, 12), classic._attack_kdd_probe),
    _Class("attack/kdd_r2l", 0.03, (1, 6), classic._attack_kdd_r2l),
)
BENIGN_SCENARIOS = tuple(c.scenario for c in BENIGN_CLASSES)
ATTACK_SCENARIOS = tuple(c.scenario for c in ATTACK_CLASSES)
HARD_CASE_SCENARIOS = ("benign/monitoring", "benign/failed_connection", "benign/large_upload")


# ---------------------------------------------------------------------------- noise
@dataclass(frozen=True)
class NoiseConfig:
    """Deterministic measurement noise applied after generation.

    * ``timestamp_jitter_s``: ``ts`` moves by a uniform offset in ``[-j, +j]``.
    * ``missing_field_rate``: each optional field in :data:`NOISE_OPTIONAL_FIELDS` becomes
      ``None`` independently with this probability.
    * ``swap_direction_rate``: probability that originator and responder are swapped
      (ip, port, bytes, packets, ip bytes, locality; history gets Zeek's ``^`` flip marker).
    """

    timestamp_jitter_s: float = 0.5
    missing_field_rate: float = 0.02
    swap_direction_rate: float = 0.01

    def __post_init__(self) -> None:
        if self.timestamp_jitter_s < 0:
            raise ValueError("timestamp_jitter_s must be >= 0")
        for name in ("missing_field_rate", "swap_direction_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")


NOISE_OPTIONAL_FIELDS = (
    "uid", "service", "duration", "orig_bytes", "resp_bytes", "conn_state", "history",
    "orig_pkts", "resp_pkts", "orig_ip_bytes", "resp_ip_bytes", "local_orig", "local_resp",
)  # fmt: skip
_SWAP_PAIRS = (
    ("src_ip", "dst_ip"), ("src_port", "dst_port"), ("orig_bytes", "resp_bytes"),
    ("orig_pkts", "resp_pkts"), ("orig_ip_bytes", "resp_ip_bytes"), ("local_orig", "local_resp"),
)  # fmt: skip


def _apply_noise(rng: Random, rec: dict[str, Any], noise: NoiseConfig) -> dict[str, Any]:
    rec = dict(rec)
    if noise.timestamp_jitter_s and rec["ts"] is not None:
        jitter = rng.uniform(-noise.timestamp_jitter_s, noise.timestamp_jitter_s)
        rec["ts"] = round(max(0.0, rec["ts"] + jitter), 6)
    if rng.random() < noise.swap_direction_rate:
        for a, b in _SWAP_PAIRS:
            rec[a], rec[b] = rec[b], rec[a]
        if rec["history"]:
            rec["history"] = "^" + rec["history"].swapcase()
    for name in NOISE_OPTIONAL_FIELDS:
        if rng.random() < noise.missing_field_rate:
            rec[name] = None
    return rec


# ---------------------------------------------------------------------------- assembly
def _quotas(total: int, classes: tuple[_Class, ...]) -> list[int]:
    """Split ``total`` by class weight with the largest-remainder method."""
    weight_sum = sum(c.weight for c in classes)
    raw = [total * c.weight / weight_sum for c in classes]
    quotas = [int(x) for x in raw]
    order = sorted(range(len(classes)), key=lambda i: (-(raw[i] - quotas[i]), i))
    for i in order[: total - sum(quotas)]:
        quotas[i] += 1
    return quotas


def generate_flows(
    n: int,
    *,
    seed: int = 0,
    malicious_fraction: float = 0.5,
    noise: NoiseConfig | None = None,
) -> list[LabeledFlow]:
    """Generate ``n`` labelled synthetic flows, sorted by timestamp (before noise).

    ``noise=None`` means clean records; pass ``NoiseConfig()`` for the mild defaults.
    Ids are ``syn-<seed>-<index>``; ``group`` identifies the playbook run / session.
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    if not 0.0 <= malicious_fraction <= 1.0:
        raise ValueError("malicious_fraction must be within [0, 1]")
    rng = Random(seed)
    n_mal = math.floor(n * malicious_fraction + 0.5)
    plan = list(zip(ATTACK_CLASSES, _quotas(n_mal, ATTACK_CLASSES), strict=True))
    plan += zip(BENIGN_CLASSES, _quotas(n - n_mal, BENIGN_CLASSES), strict=True)
    rows: list[tuple[dict[str, Any], str, str]] = []
    session = 0
    for cls, quota in plan:
        left = quota
        while left > 0:
            size = min(left, rng.randint(*cls.session))
            start = BASE_TS + rng.uniform(0.0, DAY_S)
            group = f"{cls.scenario}#{session:05d}"
            rows.extend((rec, cls.scenario, group) for rec in cls.build(rng, start, size))
            left -= size
            session += 1
    rows.sort(key=lambda row: (row[0]["ts"], row[2]))
    noise_rng = Random(seed * 7_919 + 104_729)
    items = []
    for index, (rec, scenario, group) in enumerate(rows):
        if noise is not None:
            rec = _apply_noise(noise_rng, rec, noise)
        items.append(
            LabeledFlow(
                id=f"syn-{seed}-{index:06d}",
                flow=rec,
                label="Malicious" if scenario.startswith("attack/") else "Benign",
                scenario=scenario,
                group=group,
                source="synthetic",
                detailed_label=scenario.split("/", 1)[1],
            )
        )
    return items
