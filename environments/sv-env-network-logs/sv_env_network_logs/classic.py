"""Classic intrusion shapes from the public KDD-99 attack catalogue, rendered as Zeek flows.

DoS: SYN floods over many victim ports (neptune), ICMP echo-reply floods (smurf), oversized
pings (pod), tiny overlapping UDP fragments (teardrop), same source/destination SYNs (land),
oversized web requests (back). Probes: ping sweeps, port sweeps with odd closing states,
service sweeps (satan/nmap). Remote-to-local: telnet password guessing, FTP upload/download of
warez, IMAP and shell-code sessions. ``benign/ftp`` is the ordinary FTP counterpart.
"""

from __future__ import annotations

from random import Random

from sv_env_network_logs.records import (
    _MISC_PREFIXES,
    _any_public,
    _dmz,
    _ephemeral,
    _public,
    _server,
    _skew,
    _skew_int,
    _user,
    icmp_flow,
    tcp_flow,
    udp_flow,
)
from sv_shared.sampling import weighted_pick as _pick

_SERVICES = (
    (21, "ftp"), (22, "ssh"), (23, None), (25, "smtp"), (53, "dns"), (79, None), (80, "http"),
    (110, "pop3"), (111, None), (113, None), (119, None), (143, "imap"), (443, "ssl"),
    (513, None), (514, None), (515, None), (6000, None),
)  # fmt: skip


def _outsider(rng: Random) -> str:
    return _public(rng, _MISC_PREFIXES) if rng.random() < 0.7 else _any_public(rng)


def _victim(rng: Random) -> str:
    return rng.choice((_server, _dmz))(rng)


def _attack_kdd_dos(rng: Random, t: float, k: int) -> list[dict]:
    kind = _pick(
        rng,
        (
            ("neptune", 0.45),
            ("smurf", 0.2),
            ("pod", 0.08),
            ("teardrop", 0.1),
            ("land", 0.05),
            ("back", 0.12),
        ),
    )
    src, dst = _outsider(rng), _victim(rng)
    out = []
    for _ in range(k):
        if kind == "neptune":
            dport = rng.randint(1, 1024) if rng.random() < 0.7 else rng.randint(1025, 65535)
            state = _pick(rng, (("S0", 0.85), ("REJ", 0.1), ("RSTOS0", 0.05)))
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=rng.randint(1024, 65535),
                    dst=dst,
                    dport=dport,
                    state=state,
                    duration=None if state == "S0" else _skew(rng, 0.00001, 0.01),
                )
            )
        elif kind == "smurf":  # echo replies from amplifiers, each a large payload
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=_any_public(rng),
                    dst=dst,
                    icmp_type=0,
                    pkts=rng.randint(1, 3),
                    payload=rng.choice((520, 1032, 1472)),
                )
            )
        elif kind == "pod":
            out.append(
                icmp_flow(
                    rng, ts=t, src=src, dst=dst, icmp_type=8, pkts=rng.randint(1, 45), payload=1472
                )
            )
        elif kind == "teardrop":
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=rng.randint(1, 65535),
                    dst=dst,
                    dport=rng.randint(1, 65535),
                    ob=rng.choice((28, 36, 28)),
                    rb=0,
                    opk=1,
                    rpk=0,
                    duration=None,
                )
            )
        elif kind == "land":
            port = rng.choice((23, 25, 80, 139, 445, rng.randint(1, 1024)))
            out.append(tcp_flow(rng, ts=t, src=dst, sport=port, dst=dst, dport=port, state="S0"))
        else:
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=80,
                    state=_pick(rng, (("SF", 0.6), ("RSTR", 0.3), ("S1", 0.1))),
                    ob=rng.randint(50_000, 56_000),
                    rb=rng.randint(7000, 9000),
                    duration=_skew(rng, 0.2, 6.0),
                    service="http",
                )
            )
        t += _skew(rng, 0.0005, 2.0)
    return out


def _attack_kdd_probe(rng: Random, t: float, k: int) -> list[dict]:
    kind = _pick(rng, (("ipsweep", 0.3), ("portsweep", 0.35), ("satan", 0.35)))
    src = _outsider(rng)
    dst, subnet = _victim(rng), rng.choice(("10.10.1", "10.10.2", "172.16.5", "10.1.4"))
    out = []
    for _ in range(k):
        if kind == "ipsweep":
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=src,
                    dst=f"{subnet}.{rng.randint(1, 254)}",
                    icmp_type=8,
                    payload=rng.choice((8, 18, 20)),
                    rpk=rng.randint(0, 1),
                )
            )
        elif kind == "portsweep":
            state = _pick(
                rng, (("REJ", 0.35), ("RSTOS0", 0.25), ("SH", 0.15), ("RSTR", 0.1), ("S0", 0.15))
            )
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=f"{subnet}.{rng.randint(1, 254)}",
                    dport=rng.randint(1, 65535),
                    state=state,
                    duration=_skew(rng, 0.00001, 30.0),
                )
            )
        else:
            dport, service = rng.choice(_SERVICES)
            state = _pick(
                rng, (("REJ", 0.4), ("S0", 0.2), ("RSTO", 0.15), ("SF", 0.15), ("RSTR", 0.1))
            )
            data = state in ("SF", "RSTR")
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state=state,
                    ob=rng.randint(0, 40) if data else 0,
                    rb=rng.randint(0, 300) if data else 0,
                    open_port_probe=state == "RSTO",
                    duration=_skew(rng, 0.00001, 2.0),
                    service=service if data else None,
                )
            )
        t += _skew(rng, 0.001, 5.0)
    return out


def _attack_kdd_r2l(rng: Random, t: float, k: int) -> list[dict]:
    kind = _pick(
        rng,
        (
            ("guess_passwd", 0.4),
            ("warezmaster", 0.15),
            ("warezclient", 0.15),
            ("imap", 0.1),
            ("shell", 0.2),
        ),
    )
    src, dst = _outsider(rng), _victim(rng)
    out = []
    for _ in range(k):
        if kind == "guess_passwd":
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=23,
                    state=_pick(rng, (("SF", 0.5), ("RSTO", 0.4), ("S3", 0.1))),
                    ob=rng.randint(100, 140),
                    rb=rng.randint(150, 200),
                    duration=rng.uniform(1.0, 5.0),
                    orig_seg=20,
                    resp_seg=60,
                )
            )
        elif kind in ("warezmaster", "warezclient"):
            up = kind == "warezmaster"
            size = _skew_int(rng, 200_000, 20_000_000)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=rng.choice((20, rng.randint(1025, 65535))),
                    state="SF",
                    ob=size if up else 0,
                    rb=0 if up else size,
                    duration=size / rng.uniform(2e4, 2e6),
                    service="ftp-data",
                )
            )
            out.append(
                tcp_flow(
                    rng,
                    ts=t + 0.01,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=21,
                    state="SF",
                    ob=rng.randint(100, 600),
                    rb=rng.randint(300, 1500),
                    duration=rng.uniform(2.0, 120.0),
                    service="ftp",
                    orig_seg=40,
                    resp_seg=80,
                )
            )
        elif kind == "imap":
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=143,
                    state=_pick(rng, (("SF", 0.5), ("RSTO", 0.3), ("S1", 0.2))),
                    ob=rng.randint(1500, 12_000),
                    rb=rng.randint(100, 800),
                    duration=rng.uniform(0.5, 30.0),
                    service="imap",
                )
            )
        else:  # buffer_overflow / multihop / ftp_write: a remote shell doing work
            duration = rng.uniform(10.0, 600.0)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=rng.choice((23, 23, 513, 514, 21)),
                    state="SF",
                    ob=rng.randint(500, 6000),
                    rb=rng.randint(1000, 30_000),
                    duration=duration,
                    orig_seg=rng.randint(10, 100),
                    resp_seg=rng.randint(100, 1000),
                )
            )
        t += _skew(rng, 0.5, 60.0)
    return out[:k]


def _benign_ftp(rng: Random, t: float, k: int) -> list[dict]:
    """Ordinary FTP: control sessions and data transfers (active port 20 or passive ports)."""
    client = _user(rng)
    server = _public(rng, _MISC_PREFIXES) if rng.random() < 0.5 else _server(rng)
    out = []
    for i in range(k):
        if i % 2 == 0:
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=client,
                    sport=_ephemeral(rng),
                    dst=server,
                    dport=21,
                    state=_pick(rng, (("SF", 0.85), ("RSTO", 0.15))),
                    ob=rng.randint(60, 900),
                    rb=rng.randint(200, 3000),
                    duration=_skew(rng, 1.0, 900.0),
                    service="ftp",
                    orig_seg=40,
                    resp_seg=90,
                )
            )
        else:
            size = _skew_int(rng, 100, 50_000_000)
            up = rng.random() < 0.3
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=client,
                    sport=_ephemeral(rng),
                    dst=server,
                    dport=rng.choice((20, rng.randint(1025, 65535))),
                    state="SF",
                    ob=size if up else 0,
                    rb=0 if up else size,
                    duration=_skew(rng, 0.01, 3.0) + size / rng.uniform(1e5, 1e7),
                    service="ftp-data",
                )
            )
        t += _skew(rng, 0.1, 300.0)
    return out
