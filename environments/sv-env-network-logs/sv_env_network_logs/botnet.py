"""Botnet / command-and-control playbooks and the benign traffic that shares their surface.

Attack shapes follow public descriptions of IoT botnet captures (Mirai, Okiru, Gafgyt, Hajime,
Torii, IRC bots): C2 attempts that are never answered or are refused, repeated to one
controller ip:port at a periodic or jittered pace; small periodic heartbeats; long-lived
low-volume C2 sessions; binary downloads from the controller; outbound telnet/SSH spraying and
exploit scanning from an infected device; floods; spam bursts. Each benign class mirrors one
of them (retries to an offline cloud endpoint, refused local ports, long-lived IoT/VPN
sessions, telemetry heartbeats, LAN discovery, firmware checks, mail relays, device admin,
ICMP housekeeping) so that no single field gives the label away.
"""

from __future__ import annotations

from random import Random

from sv_env_network_logs.records import (
    _CLOUD_PREFIXES,
    _MISC_PREFIXES,
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
    icmp_flow,
    tcp_flow,
    udp_flow,
)
from sv_shared.sampling import weighted_pick as _pick

#: Well-known device management services: probed by worms and used by administrators alike
#: (device exploits on vendor ports are drawn from :func:`_app_port`, like controller ports).
DEVICE_SERVICE_PORTS = (23, 22, 80, 8080)
#: LAN services: offline shares, printers and discovery (benign) and a compromised host's
#: sweep of its neighbours (attack) draw from this one catalogue.
LAN_SERVICES = (
    ("tcp", 445), ("tcp", 139), ("tcp", 631), ("tcp", 9100), ("tcp", 3389), ("tcp", 22),
    ("tcp", 8080), ("udp", 137), ("udp", 161), ("udp", 1900), ("udp", 5353), ("udp", 5355),
    ("udp", 3702),
)  # fmt: skip
#: IRC: botnet controllers and chat clients use the same two ports.
IRC_PORTS = (6667, 6697)
_PERIODS = (1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
_JITTERS = (0.0, 0.01, 0.05, 0.1, 0.3, 0.6)


def _c2(rng: Random) -> str:
    return _public(rng, _MISC_PREFIXES if rng.random() < 0.75 else _CLOUD_PREFIXES)


def _bot(rng: Random) -> str:
    return _iot(rng) if rng.random() < 0.75 else _user(rng)


def _schedule(rng: Random, t: float, k: int) -> list[float]:
    """k start times: periodic (fixed interval, small jitter) or irregular bursts."""
    if rng.random() < 0.75:
        period, jitter = rng.choice(_PERIODS) * rng.uniform(0.8, 1.25), rng.choice(_JITTERS)
        return [t + i * period + rng.uniform(-jitter, jitter) * period for i in range(k)]
    out = []
    for _ in range(k):
        out.append(t)
        t += _skew(rng, 0.5, 900.0)
    return out


def _sport(rng: Random, base: int, i: int, sequential: bool) -> int:
    return (base + i) % 28232 + 32768 if sequential else _ephemeral(rng)


def _attempt(rng: Random, state: str, **kw) -> dict:
    """An attempt that carried no data: S0 with SYN retransmits, REJ, RSTOS0 or SH."""
    syn = _pick(rng, ((1, 0.65), (2, 0.2), (3, 0.15))) if state == "S0" else 1
    if state == "S0" and syn > 1:
        kw["duration"] = rng.uniform(0.9, 3.2) if syn == 2 else rng.uniform(3.0, 9.5)
    elif state != "S0":
        kw["duration"] = _skew(rng, 0.00005, 0.6)
    return tcp_flow(rng, state=state, syn_pkts=syn, **kw)


# ---------------------------------------------------------------------------- attacks
def _attack_c2_attempts(refused: bool):
    def build(rng: Random, t: float, k: int) -> list[dict]:
        bot, c2 = _bot(rng), _c2(rng)
        dport = _pick(rng, ((443, 0.25), (80, 0.15), (_app_port(rng), 0.6)))
        udp = not refused and rng.random() < 0.15
        if udp:  # udp controllers / P2P botnet peers listen on ad-hoc high ports
            dport = _app_port(rng)
        base, sequential = _ephemeral(rng), rng.random() < 0.4
        if refused:
            states = (("REJ", 0.85), ("RSTOS0", 0.1), ("RSTO", 0.05))
        else:
            states = (("S0", 0.9), ("SH", 0.04), ("RSTOS0", 0.03), ("OTH", 0.03))
        out = []
        for i, ts in enumerate(_schedule(rng, t, k)):
            sport = _sport(rng, base, i, sequential)
            if udp:
                out.append(
                    udp_flow(
                        rng,
                        ts=ts,
                        src=bot,
                        sport=sport,
                        dst=c2,
                        dport=dport,
                        ob=rng.randint(8, 120),
                        rb=0,
                        rpk=0,
                        duration=None if rng.random() < 0.7 else rng.uniform(0.001, 2.0),
                    )
                )
                continue
            state = _pick(rng, states)
            if state == "OTH":
                out.append(
                    tcp_flow(
                        rng,
                        ts=ts,
                        src=bot,
                        sport=sport,
                        dst=c2,
                        dport=dport,
                        state="OTH",
                        duration=_skew(rng, 0.001, 30.0),
                    )
                )
            elif state == "RSTO":
                out.append(
                    tcp_flow(
                        rng,
                        ts=ts,
                        src=bot,
                        sport=sport,
                        dst=c2,
                        dport=dport,
                        state="RSTO",
                        open_port_probe=True,
                    )
                )
            else:
                out.append(_attempt(rng, state, ts=ts, src=bot, sport=sport, dst=c2, dport=dport))
        return out

    return build


def _attack_c2_heartbeat(rng: Random, t: float, k: int) -> list[dict]:
    bot, c2 = _bot(rng), _c2(rng)
    dport = _pick(rng, ((80, 0.25), (443, 0.35), (8080, 0.1), (_app_port(rng), 0.3)))
    service = {80: "http", 8080: "http", 443: "ssl"}.get(dport)
    udp = rng.random() < 0.15
    if udp:
        dport, service = _app_port(rng), None
    ob0, rb0 = rng.randint(4, 300), rng.randint(0, 400)
    out = []
    for ts in _schedule(rng, t, k):
        ob, rb = ob0 + rng.randint(0, 24), max(0, rb0 + rng.randint(-8, 24))
        if udp:
            out.append(
                udp_flow(
                    rng,
                    ts=ts,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=c2,
                    dport=dport,
                    ob=ob,
                    rb=rb,
                    rpk=1 if rb else 0,
                )
            )
            continue
        state = _pick(rng, (("SF", 0.7), ("RSTO", 0.1), ("RSTR", 0.1), ("S1", 0.05), ("S3", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=ts,
                src=bot,
                sport=_ephemeral(rng),
                dst=c2,
                dport=dport,
                state=state,
                ob=ob,
                rb=rb,
                duration=_skew(rng, 0.005, 4.0),
                service=service if rng.random() < 0.8 else None,
                orig_seg=rng.randint(40, 400),
                resp_seg=rng.randint(40, 600),
            )
        )
    return out


def _attack_c2_long_session(rng: Random, t: float, k: int) -> list[dict]:
    bot, c2 = _bot(rng), _c2(rng)
    irc = rng.random() < 0.3
    dport = rng.choice(IRC_PORTS) if irc else _app_port(rng)
    out = []
    for _ in range(k):
        duration = rng.uniform(300.0, 43_200.0)
        pings = int(duration / rng.uniform(60.0, 300.0)) + 1
        ob = pings * rng.randint(10, 80) + rng.randint(0, 2000)
        rb = pings * rng.randint(10, 80) + _skew_int(rng, 0, 20_000)
        state = _pick(
            rng,
            (
                ("S1", 0.3),
                ("SF", 0.25),
                ("OTH", 0.15),
                ("RSTO", 0.1),
                ("RSTR", 0.1),
                ("S2", 0.05),
                ("S3", 0.05),
            ),
        )
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=bot,
                sport=_ephemeral(rng),
                dst=c2,
                dport=dport,
                state=state,
                ob=ob,
                rb=rb,
                duration=duration,
                service="irc" if irc and state != "OTH" and rng.random() < 0.7 else None,
                orig_seg=rng.randint(20, 120),
                resp_seg=rng.randint(40, 500),
            )
        )
        t += duration + rng.uniform(5.0, 600.0)
    return out


def _attack_c2_download(rng: Random, t: float, k: int) -> list[dict]:
    bot, c2 = _bot(rng), _c2(rng)
    dport = _pick(rng, ((80, 0.6), (8080, 0.15), (_app_port(rng), 0.25)))
    out = []
    for _ in range(k):
        if rng.random() < 0.15:  # tftp-style fetch over udp/69
            size = rng.randint(20_000, 200_000)
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=c2,
                    dport=69,
                    ob=(size // 512 + 1) * 4 + 20,
                    rb=size,
                    opk=size // 512 + 2,
                    rpk=size // 512 + 1,
                    duration=rng.uniform(0.5, 20.0),
                )
            )
        else:
            size = _pick(
                rng,
                (
                    (rng.randint(300, 6000), 0.3),
                    (rng.randint(25_000, 250_000), 0.6),
                    (rng.randint(250_000, 2_500_000), 0.1),
                ),
            )
            state = _pick(rng, (("SF", 0.8), ("RSTO", 0.08), ("RSTR", 0.07), ("S1", 0.05)))
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=c2,
                    dport=dport,
                    state=state,
                    ob=rng.randint(70, 260),
                    rb=size,
                    duration=_skew(rng, 0.05, 3.0) + size / rng.uniform(5e4, 5e6),
                    service="http" if rng.random() < 0.85 else None,
                )
            )
        t += rng.uniform(0.2, 40.0)
    return out


def _attack_telnet_spray(rng: Random, t: float, k: int) -> list[dict]:
    bot = _iot(rng) if rng.random() < 0.85 else _user(rng)
    dport = _pick(rng, ((23, 0.45), (2323, 0.15), (22, 0.4)))
    out = []
    for _ in range(k):
        dst = _any_public(rng)
        state = _pick(
            rng,
            (
                ("S0", 0.4),
                ("REJ", 0.12),
                ("SF", 0.25),
                ("RSTO", 0.12),
                ("RSTR", 0.06),
                ("S1", 0.05),
            ),
        )
        if state in ("S0", "REJ"):
            out.append(
                _attempt(rng, state, ts=t, src=bot, sport=_ephemeral(rng), dst=dst, dport=dport)
            )
        else:
            ssh = dport == 22
            ob = rng.randint(900, 3000) if ssh else rng.randint(6, 160)
            rb = rng.randint(1000, 4000) if ssh else rng.randint(0, 400)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state=state,
                    ob=ob,
                    rb=rb,
                    duration=rng.uniform(0.2, 20.0),
                    service="ssh" if ssh and rng.random() < 0.8 else None,
                    orig_seg=rng.randint(10, 200),
                    resp_seg=rng.randint(20, 600),
                )
            )
        t += _skew(rng, 0.01, 15.0)
    return out


def _attack_exploit_scan(rng: Random, t: float, k: int) -> list[dict]:
    bot = _iot(rng) if rng.random() < 0.8 else _user(rng)
    ports = [
        rng.choice(DEVICE_SERVICE_PORTS) if rng.random() < 0.5 else _app_port(rng)
        for _ in range(rng.randint(1, 3))
    ]
    out = []
    for _ in range(k):
        dst, dport = _any_public(rng), rng.choice(ports)
        state = _pick(
            rng,
            (
                ("S0", 0.8),
                ("REJ", 0.05),
                ("RSTOS0", 0.03),
                ("SH", 0.02),
                ("RSTO", 0.04),
                ("SF", 0.06),
            ),
        )
        if state == "SF":  # the exploit request itself (e.g. a router command injection)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state="SF",
                    ob=rng.randint(150, 1100),
                    rb=_skew_int(rng, 0, 600),
                    duration=_skew(rng, 0.05, 5.0),
                    service="http" if dport in (80, 8080) else None,
                )
            )
        elif state == "RSTO":
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state="RSTO",
                    open_port_probe=True,
                )
            )
        else:
            out.append(
                _attempt(rng, state, ts=t, src=bot, sport=_ephemeral(rng), dst=dst, dport=dport)
            )
        t += _skew(rng, 0.001, 3.0)
    return out


def _attack_ddos(rng: Random, t: float, k: int) -> list[dict]:
    bot = _bot(rng)
    victim = _any_public(rng)
    mode = _pick(rng, (("udp", 0.35), ("syn", 0.2), ("ack", 0.15), ("icmp", 0.15), ("http", 0.15)))
    dport = _pick(rng, ((80, 0.15), (443, 0.15), (53, 0.1), (123, 0.35), (_app_port(rng), 0.25)))
    dport = dport if rng.random() < 0.75 else None
    if dport == 123:  # NTP reflection: the flood is small udp requests to time servers
        mode = "udp"
    out = []
    for _ in range(k):
        port = dport or rng.randint(1, 65535)
        sport = _ephemeral(rng)
        if mode == "udp":
            pkts = _skew_int(rng, 1, 3000)
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=sport,
                    dst=victim,
                    dport=port,
                    ob=pkts * rng.randint(8, 1460),
                    rb=0,
                    opk=pkts,
                    rpk=0,
                    duration=None if pkts == 1 else pkts * rng.uniform(0.0001, 0.01),
                )
            )
        elif mode == "syn":
            out.append(
                tcp_flow(rng, ts=t, src=bot, sport=sport, dst=victim, dport=port, state="S0")
            )
        elif mode == "ack":
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=sport,
                    dst=victim,
                    dport=port,
                    state="OTH",
                    ob=rng.randint(0, 1) * rng.randint(64, 1400),
                    duration=_skew(rng, 0.000001, 0.5),
                )
            )
        elif mode == "icmp":
            pkts = _skew_int(rng, 1, 2000)
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    dst=victim,
                    icmp_type=8,
                    pkts=pkts,
                    payload=rng.choice((56, 512, 1024, 1472)),
                    rpk=0,
                )
            )
        else:
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=sport,
                    dst=victim,
                    dport=80,
                    state=_pick(rng, (("SF", 0.5), ("RSTO", 0.3), ("S1", 0.2))),
                    ob=rng.randint(60, 500),
                    rb=_skew_int(rng, 0, 2000),
                    duration=_skew(rng, 0.01, 2.0),
                    service="http",
                )
            )
        t += _skew(rng, 0.0001, 0.5)
    return out


def _attack_spam(rng: Random, t: float, k: int) -> list[dict]:
    bot = _user(rng) if rng.random() < 0.7 else _iot(rng)
    dport = _pick(rng, ((25, 0.85), (587, 0.1), (465, 0.05)))
    out = []
    for _ in range(k):
        dst = _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES)
        state = _pick(rng, (("SF", 0.55), ("S0", 0.15), ("REJ", 0.1), ("RSTO", 0.1), ("RSTR", 0.1)))
        if state in ("S0", "REJ"):
            out.append(
                _attempt(rng, state, ts=t, src=bot, sport=_ephemeral(rng), dst=dst, dport=dport)
            )
        else:
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=bot,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state=state,
                    ob=_skew_int(rng, 200, 40_000),
                    rb=rng.randint(150, 900),
                    duration=_skew(rng, 0.3, 15.0),
                    service=("smtp" if dport != 465 else "ssl") if rng.random() < 0.9 else None,
                )
            )
        t += _skew(rng, 0.05, 10.0)
    return out


# ---------------------------------------------------------------------------- benign mirrors
def _benign_offline_peer(rng: Random, t: float, k: int) -> list[dict]:
    """A device retrying an endpoint that is down or firewalled (periodic S0, benign)."""
    if rng.random() < 0.6:
        src, dst = _iot(rng) if rng.random() < 0.6 else _user(rng), _public(rng, _CLOUD_PREFIXES)
        dport = rng.choice((443, 443, 80, 8080, 8443, _app_port(rng), _app_port(rng)))
    else:  # an internal share, printer or cast target that is switched off
        src, dst = _user(rng), rng.choice((_server, _iot, _user))(rng)
        dport = rng.choice([port for proto, port in LAN_SERVICES if proto == "tcp"])
    base, sequential = _ephemeral(rng), rng.random() < 0.3
    udp = rng.random() < 0.2  # QUIC, STUN, CoAP, time or vendor udp services that stay silent
    if udp:
        dst = _public(rng, _CLOUD_PREFIXES)
        dport = rng.choice((443, 443, 123, _app_port(rng), _app_port(rng)))
    out = []
    for i, ts in enumerate(_schedule(rng, t, k)):
        state = _pick(rng, (("S0", 0.9), ("SH", 0.03), ("RSTOS0", 0.03), ("OTH", 0.04)))
        sport = _sport(rng, base, i, sequential)
        if udp:
            opk = rng.randint(1, 3)
            out.append(
                udp_flow(
                    rng,
                    ts=ts,
                    src=src,
                    sport=sport,
                    dst=dst,
                    dport=dport,
                    ob=opk * rng.randint(20, 1250),
                    rb=0,
                    opk=opk,
                    rpk=0,
                    duration=None if opk == 1 else rng.uniform(0.5, 6.0),
                )
            )
        elif state == "OTH":
            out.append(
                tcp_flow(
                    rng,
                    ts=ts,
                    src=src,
                    sport=sport,
                    dst=dst,
                    dport=dport,
                    state="OTH",
                    duration=_skew(rng, 0.001, 30.0),
                )
            )
        else:
            out.append(_attempt(rng, state, ts=ts, src=src, sport=sport, dst=dst, dport=dport))
    return out


def _benign_refused(rng: Random, t: float, k: int) -> list[dict]:
    """Connections to a closed port (service restarting, stale config, wrong port): REJ."""
    src = rng.choice((_user, _server, _iot))(rng)
    if rng.random() < 0.6:
        dst = rng.choice((_server, _dmz, _iot, _user))(rng)
        dport = rng.choice((8080, 8000, 3389, 5432, 3306, 6379, 9200, 23, _app_port(rng)))
    else:
        dst = _public(rng, _CLOUD_PREFIXES)
        dport = rng.choice((443, 80, 8443, _app_port(rng)))
    out = []
    for ts in _schedule(rng, t, k):
        state = _pick(rng, (("REJ", 0.85), ("RSTOS0", 0.05), ("RSTO", 0.1)))
        if state == "RSTO":
            out.append(
                tcp_flow(
                    rng,
                    ts=ts,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state="RSTO",
                    open_port_probe=True,
                )
            )
        else:
            out.append(
                _attempt(rng, state, ts=ts, src=src, sport=_ephemeral(rng), dst=dst, dport=dport)
            )
    return out


def _benign_long_lived(rng: Random, t: float, k: int) -> list[dict]:
    """Hours-long low-volume sessions: MQTT/websocket from IoT to cloud, VPN, chat, SSH."""
    kind = _pick(rng, (("mqtt", 0.25), ("ws", 0.2), ("vpn", 0.15), ("chat", 0.25), ("ssh", 0.15)))
    src = _iot(rng) if kind in ("mqtt", "ws") else _user(rng)
    dst = _public(rng, _CLOUD_PREFIXES if kind != "chat" else _CLOUD_PREFIXES + _MISC_PREFIXES)
    dport, service = {
        "mqtt": rng.choice(((_app_port(rng), None), (_app_port(rng), "ssl"))),
        "ws": (443, "ssl"),
        "vpn": rng.choice(((_app_port(rng), None), (443, "ssl"))),
        "chat": _pick(rng, (((_app_port(rng), None), 1.0), ((rng.choice(IRC_PORTS), "irc"), 2.0))),
        "ssh": (22, "ssh"),
    }[kind]
    out = []
    for _ in range(k):
        duration = rng.uniform(300.0, 43_200.0)
        pings = int(duration / rng.uniform(30.0, 300.0)) + 1
        ob = pings * rng.randint(2, 120) + _skew_int(rng, 0, 50_000)
        rb = pings * rng.randint(2, 120) + _skew_int(rng, 0, 200_000)
        if kind == "vpn" and service is None:
            opk, rpk = pings + ob // 300 + 1, pings + rb // 600 + 1
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    ob=ob,
                    rb=rb,
                    opk=opk,
                    rpk=rpk,
                    duration=duration,
                )
            )
        else:
            state = _pick(
                rng,
                (
                    ("S1", 0.3),
                    ("SF", 0.3),
                    ("OTH", 0.15),
                    ("RSTO", 0.1),
                    ("RSTR", 0.1),
                    ("S2", 0.025),
                    ("S3", 0.025),
                ),
            )
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
                    duration=duration,
                    service=service if state != "OTH" and rng.random() < 0.85 else None,
                    orig_seg=rng.randint(20, 600),
                    resp_seg=rng.randint(40, 1448),
                )
            )
        t += duration + rng.uniform(1.0, 300.0)
    return out


def _benign_heartbeat(rng: Random, t: float, k: int) -> list[dict]:
    """Periodic telemetry / keep-alive / push check-ins: small sessions at a fixed interval."""
    src = _iot(rng) if rng.random() < 0.65 else _user(rng)
    dst = _public(rng, _CLOUD_PREFIXES)
    dport = rng.choice((443, 443, 80, 8080, _app_port(rng), _app_port(rng)))
    service = {443: "ssl", 80: "http", 8080: "http"}.get(dport, rng.choice(("ssl", None)))
    udp = rng.random() < 0.12
    ob0, rb0 = rng.randint(4, 400), rng.randint(0, 600)
    out = []
    for ts in _schedule(rng, t, k):
        ob, rb = ob0 + rng.randint(0, 24), max(0, rb0 + rng.randint(-8, 24))
        if udp:
            port = _app_port(rng)
            out.append(
                udp_flow(
                    rng,
                    ts=ts,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=port,
                    ob=ob,
                    rb=rb,
                    rpk=1 if rb else 0,
                )
            )
            continue
        state = _pick(
            rng, (("SF", 0.75), ("RSTO", 0.08), ("RSTR", 0.08), ("S1", 0.05), ("S3", 0.04))
        )
        out.append(
            tcp_flow(
                rng,
                ts=ts,
                src=src,
                sport=_ephemeral(rng),
                dst=dst,
                dport=dport,
                state=state,
                ob=ob,
                rb=rb,
                duration=_skew(rng, 0.005, 4.0),
                service=service if rng.random() < 0.8 else None,
                orig_seg=rng.randint(40, 400),
                resp_seg=rng.randint(40, 600),
            )
        )
    return out


_DISCOVERY = (
    ("239.255.255.250", 1900, None, (90, 500)),  # SSDP
    ("224.0.0.251", 5353, "dns", (30, 400)),  # mDNS
    ("224.0.0.252", 5355, "dns", (30, 80)),  # LLMNR
    ("192.168.1.255", 137, None, (50, 70)),  # NetBIOS name service broadcast
    ("239.255.255.250", 3702, None, (300, 900)),  # WS-Discovery
    ("255.255.255.255", 0, None, (20, 120)),  # vendor discovery beacons (0: a vendor port)
)


def _benign_lan_discovery(rng: Random, t: float, k: int) -> list[dict]:
    """IoT/LAN chatter nobody answers: SSDP, mDNS, LLMNR, NetBIOS, WS-Discovery (udp S0)."""
    src = _iot(rng) if rng.random() < 0.6 else _user(rng)
    dst, dport, service, (lo, hi) = rng.choice(_DISCOVERY)
    dport = dport or _app_port(rng)
    out = []
    for ts in _schedule(rng, t, k):
        opk = _pick(rng, ((1, 0.5), (2, 0.2), (rng.randint(3, 12), 0.3)))
        sport = dport if rng.random() < 0.6 else _ephemeral(rng)
        out.append(
            udp_flow(
                rng,
                ts=ts,
                src=src,
                sport=sport,
                dst=dst,
                dport=dport,
                ob=opk * rng.randint(lo, hi),
                rb=0,
                opk=opk,
                rpk=0,
                service=service,
                duration=None if opk == 1 else opk * rng.uniform(0.01, 1.0),
            )
        )
    return out


def _attack_lan_service_probe(rng: Random, t: float, k: int) -> list[dict]:
    """A compromised LAN host sweeping its neighbours' shares, printers, SNMP agents and
    discovery responders: the same service catalogue the benign LAN traffic uses."""
    src = _iot(rng) if rng.random() < 0.5 else _user(rng)
    services = [rng.choice(LAN_SERVICES) for _ in range(rng.randint(1, 3))]
    out = []
    for _ in range(k):
        proto, dport = rng.choice(services)
        dst = rng.choice((_user, _server, _iot))(rng)
        if proto == "udp":
            answered = rng.random() < 0.3
            opk = rng.randint(1, 3)
            rpk = opk if answered else 0
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    ob=opk * rng.randint(30, 120),
                    rb=rpk * rng.randint(40, 400),
                    opk=opk,
                    rpk=rpk,
                    duration=None if opk == 1 and not answered else _skew(rng, 0.001, 2.0),
                )
            )
        else:
            state = _pick(rng, (("S0", 0.45), ("REJ", 0.3), ("RSTO", 0.1), ("SF", 0.15)))
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state=state,
                    ob=rng.randint(40, 600),
                    rb=rng.randint(0, 900),
                    duration=_skew(rng, 0.001, 3.0),
                    open_port_probe=state == "RSTO",
                )
            )
        t += _skew(rng, 0.01, 30.0)
    return out


def _benign_firmware_check(rng: Random, t: float, k: int) -> list[dict]:
    """IoT update checks over plain HTTP (small answers) and occasional firmware downloads."""
    src, dst = _iot(rng), _public(rng, _UPDATE_PREFIXES + _CLOUD_PREFIXES)
    dport = _pick(rng, ((80, 0.7), (8080, 0.15), (443, 0.15)))
    out = []
    for _ in range(k):
        size = _pick(
            rng,
            (
                (rng.randint(100, 6000), 0.6),
                (rng.randint(25_000, 250_000), 0.25),
                (rng.randint(250_000, 20_000_000), 0.15),
            ),
        )
        state = _pick(rng, (("SF", 0.85), ("RSTO", 0.05), ("RSTR", 0.05), ("S1", 0.05)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=src,
                sport=_ephemeral(rng),
                dst=dst,
                dport=dport,
                state=state,
                ob=rng.randint(70, 400),
                rb=size,
                duration=_skew(rng, 0.05, 3.0) + size / rng.uniform(5e4, 5e6),
                service=("ssl" if dport == 443 else "http") if rng.random() < 0.85 else None,
            )
        )
        t += rng.uniform(1.0, 3600.0)
    return out


def _benign_mail(rng: Random, t: float, k: int) -> list[dict]:
    """A mail relay delivering to many MX hosts, and clients submitting/reading mail."""
    relay = rng.random() < 0.6
    src = _dmz(rng) if relay else _user(rng)
    out = []
    for _ in range(k):
        dst = _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES)
        dport, service = (
            (25, "smtp")
            if relay
            else rng.choice(((587, "smtp"), (993, "ssl"), (465, "ssl"), (143, "imap")))
        )
        state = _pick(
            rng, (("SF", 0.8), ("S0", 0.05), ("REJ", 0.03), ("RSTO", 0.06), ("RSTR", 0.06))
        )
        if state in ("S0", "REJ"):
            out.append(
                _attempt(rng, state, ts=t, src=src, sport=_ephemeral(rng), dst=dst, dport=dport)
            )
        else:
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=dst,
                    dport=dport,
                    state=state,
                    ob=_skew_int(rng, 200, 400_000),
                    rb=rng.randint(150, 5000),
                    duration=_skew(rng, 0.3, 30.0),
                    service=service if rng.random() < 0.9 else None,
                )
            )
        t += _skew(rng, 0.5, 600.0)
    return out


def _benign_device_admin(rng: Random, t: float, k: int) -> list[dict]:
    """An administrator configuring IoT/network gear over telnet or SSH from inside."""
    admin, device = (_admin(rng) if rng.random() < 0.6 else _user(rng)), _iot(rng)
    dport = _pick(rng, ((23, 0.55), (22, 0.35), (2323, 0.1)))
    out = []
    for _ in range(k):
        duration = _skew(rng, 2.0, 1800.0)
        ob = int(duration * rng.uniform(1.0, 40.0)) + rng.randint(10, 2500)
        state = _pick(rng, (("SF", 0.7), ("RSTO", 0.1), ("RSTR", 0.1), ("S1", 0.1)))
        out.append(
            tcp_flow(
                rng,
                ts=t,
                src=admin,
                sport=_ephemeral(rng),
                dst=device,
                dport=dport,
                state=state,
                ob=ob,
                rb=int(ob * rng.uniform(1.0, 20.0)),
                duration=duration,
                service="ssh" if dport == 22 and rng.random() < 0.9 else None,
                orig_seg=rng.randint(10, 120),
                resp_seg=rng.randint(40, 1448),
            )
        )
        t += duration + rng.uniform(10.0, 3600.0)
    return out


def _benign_p2p(rng: Random, t: float, k: int) -> list[dict]:
    """Peer-to-peer clients (file sharing, games, calls): many peers on random high ports,
    a large share of which are offline (S0) or closed (REJ)."""
    src = _user(rng)
    lport = _ephemeral(rng)
    out = []
    for _ in range(k):
        peer, dport = _any_public(rng), rng.randint(1024, 65535)
        kind = _pick(rng, (("udp", 0.35), ("S0", 0.3), ("REJ", 0.1), ("tcp", 0.25)))
        if kind == "udp":
            rpk = rng.randint(0, 6)
            opk = rng.randint(1, 8)
            out.append(
                udp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=lport,
                    dst=peer,
                    dport=dport,
                    ob=opk * rng.randint(20, 1200),
                    rb=rpk * rng.randint(20, 1200),
                    opk=opk,
                    rpk=rpk,
                    duration=None if opk == 1 and not rpk else _skew(rng, 0.01, 60.0),
                )
            )
        elif kind in ("S0", "REJ"):
            out.append(
                _attempt(rng, kind, ts=t, src=src, sport=_ephemeral(rng), dst=peer, dport=dport)
            )
        else:
            ob, rb = _skew_int(rng, 60, 5_000_000), _skew_int(rng, 60, 20_000_000)
            out.append(
                tcp_flow(
                    rng,
                    ts=t,
                    src=src,
                    sport=_ephemeral(rng),
                    dst=peer,
                    dport=dport,
                    state=_pick(rng, (("SF", 0.5), ("RSTO", 0.2), ("RSTR", 0.2), ("S1", 0.1))),
                    ob=ob,
                    rb=rb,
                    duration=_skew(rng, 0.05, 1800.0),
                )
            )
        t += _skew(rng, 0.01, 30.0)
    return out


def _benign_icmp(rng: Random, t: float, k: int) -> list[dict]:
    """Everyday ICMP: pings with replies, port/host unreachable notices, traceroute hops."""
    src = rng.choice((_user, _server, _iot))(rng)
    out = []
    for _ in range(k):
        kind = _pick(rng, (("ping", 0.45), ("unreach", 0.35), ("ttl", 0.2)))
        if kind == "ping":
            dst = _public(rng, _CLOUD_PREFIXES) if rng.random() < 0.6 else _server(rng)
            pkts = rng.randint(1, 10)
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=src,
                    dst=dst,
                    icmp_type=8,
                    pkts=pkts,
                    payload=rng.choice((56, 32, 48, 64)),
                    rpk=pkts if rng.random() < 0.9 else 0,
                )
            )
        elif kind == "unreach":  # a host/router tells a client its udp/tcp packet was refused
            origin = (
                _public(rng, _CLOUD_PREFIXES + _MISC_PREFIXES)
                if rng.random() < 0.5
                else (_server(rng))
            )
            pkts = rng.randint(1, 4)
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=origin,
                    dst=src,
                    icmp_type=3,
                    code=rng.choice((3, 3, 1, 13)),
                    pkts=pkts,
                    payload=rng.choice((28, 56, 68, 96)),
                )
            )
        else:
            hop = _public(rng, _MISC_PREFIXES + _CLOUD_PREFIXES)
            out.append(
                icmp_flow(
                    rng,
                    ts=t,
                    src=hop,
                    dst=src,
                    icmp_type=11,
                    pkts=rng.randint(1, 3),
                    payload=rng.choice((28, 36, 56)),
                )
            )
        t += _skew(rng, 0.1, 120.0)
    return out
