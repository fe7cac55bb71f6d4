"""Zeek ``conn.log`` record builders and address/number helpers shared by the playbooks.

Zeek consistency of noise-free flows: ``*_ip_bytes = *_bytes + 40 * *_pkts`` for tcp and
``+ 28 * *_pkts`` for udp/icmp; S0/REJ/SH/RSTOS0 carry no payload; ``history`` matches
``conn_state`` (OTH is mid-stream: no SYN in the history); single-packet S0 attempts have no
duration (as Zeek logs them). Randomness is integer draws and ``random()``/``uniform()`` only.
"""

from __future__ import annotations

import ipaddress
import math
from random import Random
from typing import Any

# ---------------------------------------------------------------------------- addresses
_CLOUD_PREFIXES = (
    "3.80", "13.107", "20.190", "23.215", "34.117", "35.186", "44.201", "52.84", "54.239",
    "104.16", "104.244", "142.250", "151.101", "172.217", "185.199", "199.232",
)  # fmt: skip
_MISC_PREFIXES = (
    "2.57", "5.188", "45.95", "46.161", "61.177", "79.124", "89.248", "91.240", "103.145",
    "112.85", "118.25", "185.220", "193.201", "194.26", "212.70", "222.186",
)  # fmt: skip
_STREAMING_PREFIXES = ("23.246", "45.57", "198.38", "208.75")
_UPDATE_PREFIXES = ("13.107", "20.190", "91.189", "17.253", "151.101")
_STORAGE_PREFIXES = ("52.84", "142.250", "162.125", "13.107")
_INTERNAL_DNS = ("10.10.0.53", "10.10.0.54")
_PUBLIC_DNS = ("8.8.8.8", "8.8.4.4", "1.1.1.1", "9.9.9.9")
_MONITORS = ("10.10.0.5", "10.10.0.6")
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _public(rng: Random, prefixes: tuple[str, ...]) -> str:
    return f"{rng.choice(prefixes)}.{rng.randint(1, 254)}.{rng.randint(1, 254)}"


def _any_public(rng: Random) -> str:
    """A random routable public IPv4 address (spoofed sources)."""
    while True:
        addr = ipaddress.IPv4Address(rng.getrandbits(32))
        if addr.is_global and not addr.is_multicast:
            return str(addr)


def _user(rng: Random) -> str:
    return f"10.1.{rng.randint(0, 31)}.{rng.randint(2, 254)}"


def _server(rng: Random) -> str:
    return f"10.10.{rng.randint(1, 3)}.{rng.randint(2, 254)}"


def _admin(rng: Random) -> str:
    return f"10.99.0.{rng.randint(10, 40)}"


def _iot(rng: Random) -> str:
    return f"192.168.{rng.choice((1, 8, 20))}.{rng.randint(2, 254)}"


def _dmz(rng: Random) -> str:
    return f"172.16.5.{rng.randint(2, 254)}"


def _app_port(rng: Random) -> int:
    """Any registered or dynamic port: controllers, vendor services and peers alike.

    One open distribution for every role that is not a well-known service, so no closed
    list of controller ports exists for a policy (or a heuristic) to memorise.
    """
    return rng.randint(1024, 65535)


def _ephemeral(rng: Random) -> int:
    return rng.randint(32768, 60999) if rng.random() < 0.5 else rng.randint(49152, 65535)


def _skew(rng: Random, lo: float, hi: float) -> float:
    """A value in [lo, hi] skewed towards ``lo`` (cubic), using exact arithmetic."""
    u = rng.random()
    return lo + (hi - lo) * u * u * u


def _skew_int(rng: Random, lo: int, hi: int) -> int:
    return int(_skew(rng, lo, hi + 0.999))


def _uid(rng: Random) -> str:
    return "C" + "".join(rng.choice(_B62) for _ in range(17))


def _private(ip: str) -> bool:
    return ipaddress.ip_address(ip).is_private


# ---------------------------------------------------------------------------- flow builders
def _tcp_history(rng: Random, state: str, ob: int, rb: int, open_port_probe: bool) -> str:
    if state == "S0":
        return "S"
    if state == "REJ":
        return "Sr"
    if state == "SH":
        return "SF"
    if state == "RSTOS0":
        return "SR"
    if state == "OTH":  # mid-stream: the handshake happened before the capture started
        return ("D" if ob else "A") + ("d" if rb else "a")
    if state == "RSTO" and open_port_probe:
        return "ShR"
    core = "ShA" + ("D" if ob else "") + ("ad" if rb else ("a" if ob else ""))
    if state == "SF":
        if ob and rb:
            return rng.choice(("ShADadFf", "ShADadfF", "ShAdDaFf"))
        return core + "Ff"
    if state == "S1":
        return core
    if state == "S2":
        return core + "F"
    if state == "S3":
        return core + "f"
    if state == "RSTO":
        return core + "R"
    if state == "RSTR":
        return core + "r"
    raise ValueError(f"unsupported tcp state {state}")


def _tcp_ctrl(state: str, history: str) -> tuple[int, int]:
    """(orig, resp) control packets implied by a tcp state/history."""
    return {
        "S0": (1, 0),
        "REJ": (1, 1),
        "SH": (2, 0),
        "RSTOS0": (2, 0),
        "OTH": (1, 1),
        "SF": (3, 2),
        "S1": (2, 1),
        "S2": (3, 1),
        "S3": (2, 2),
        "RSTO": (2, 1) if history == "ShR" else (3, 1),
        "RSTR": (2, 2),
    }[state]


#: tcp states that never carry payload
NO_DATA_STATES = frozenset({"S0", "REJ", "SH", "RSTOS0"})


def tcp_flow(
    rng: Random,
    *,
    ts: float,
    src: str,
    sport: int,
    dst: str,
    dport: int,
    state: str,
    ob: int = 0,
    rb: int = 0,
    duration: float | None = None,
    service: str | None = None,
    orig_seg: int = 1448,
    resp_seg: int = 1448,
    syn_pkts: int = 1,
    open_port_probe: bool = False,
) -> dict[str, Any]:
    """A Zeek-consistent tcp conn record."""
    if state in NO_DATA_STATES or open_port_probe:
        ob = rb = 0
    history = _tcp_history(rng, state, ob, rb, open_port_probe)
    octl, rctl = _tcp_ctrl(state, history)
    if state == "S0":
        octl = syn_pkts
    odata = math.ceil(ob / orig_seg) if ob else 0
    rdata = math.ceil(rb / resp_seg) if rb else 0
    extra = rng.randint(0, 2) if (ob or rb) else 0
    opk = octl + odata + rdata // 2 + extra
    rpk = rctl + rdata + odata // 2 + (extra if rctl else 0)
    if state == "S0" and opk == 1:
        duration = None
    elif duration is None:
        duration = _skew(rng, 0.000002, 0.05)
    return _record(
        ts,
        src,
        sport,
        dst,
        dport,
        "tcp",
        service,
        duration,
        ob,
        rb,
        state,
        history,
        opk,
        rpk,
        40,
        rng,
    )


def udp_flow(
    rng: Random,
    *,
    ts: float,
    src: str,
    sport: int,
    dst: str,
    dport: int,
    ob: int,
    rb: int,
    opk: int = 1,
    rpk: int = 1,
    duration: float | None = None,
    service: str | None = None,
) -> dict[str, Any]:
    """A Zeek-consistent udp conn record (SF with replies, S0 without)."""
    if rpk == 0:
        rb = 0
    state, history = ("SF", "Dd") if rpk else ("S0", "D")
    if duration is None:
        duration = _skew(rng, 0.0003, 0.2)
    return _record(
        ts,
        src,
        sport,
        dst,
        dport,
        "udp",
        service,
        duration,
        ob,
        rb,
        state,
        history,
        opk,
        rpk,
        28,
        rng,
    )


def icmp_echo(rng: Random, *, ts: float, src: str, dst: str, pkts: int, replies: bool) -> dict:
    """An ICMP echo exchange (Zeek logs type/code as ports, OTH state, no history)."""
    ob = 56 * pkts
    rpk = pkts if replies else 0
    duration = _skew(rng, 0.001, 0.01) + (pkts - 1) * 1.0
    return _record(
        ts, src, 8, dst, 0, "icmp", None, duration, ob, 56 * rpk, "OTH", None, pkts, rpk, 28, rng
    )


def icmp_flow(
    rng: Random,
    *,
    ts: float,
    src: str,
    dst: str,
    icmp_type: int,
    code: int = 0,
    pkts: int = 1,
    payload: int = 56,
    rpk: int = 0,
    duration: float | None = None,
) -> dict:
    """Any ICMP message stream (type in src_port, code in dst_port, as Zeek logs them)."""
    if duration is None:
        duration = None if pkts == 1 and not rpk else _skew(rng, 0.0005, 0.05) + (pkts - 1) * 0.01
    return _record(
        ts, src, icmp_type, dst, code, "icmp", None, duration, payload * pkts, payload * rpk,
        "OTH", None, pkts, rpk, 28, rng,
    )  # fmt: skip


def _record(
    ts: float,
    src: str,
    sport: int,
    dst: str,
    dport: int,
    proto: str,
    service: str | None,
    duration: float | None,
    ob: int,
    rb: int,
    state: str,
    history: str | None,
    opk: int,
    rpk: int,
    header: int,
    rng: Random,
) -> dict[str, Any]:
    return {
        "ts": round(ts, 6),
        "uid": _uid(rng),
        "src_ip": src,
        "src_port": sport,
        "dst_ip": dst,
        "dst_port": dport,
        "proto": proto,
        "service": service,
        "duration": None if duration is None else max(round(duration, 6), 0.000001),
        "orig_bytes": ob,
        "resp_bytes": rb,
        "conn_state": state,
        "history": history,
        "orig_pkts": opk,
        "resp_pkts": rpk,
        "orig_ip_bytes": ob + header * opk,
        "resp_ip_bytes": rb + header * rpk,
        "local_orig": _private(src),
        "local_resp": _private(dst),
    }
