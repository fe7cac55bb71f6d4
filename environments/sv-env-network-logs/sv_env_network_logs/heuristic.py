"""A transparent rule-based baseline: per-flow evidence scores, abstaining when weak.

Each rule adds a signed score (positive = malicious evidence, negative = benign evidence) and a
reason. The total decides: ``>= malicious_at`` → Malicious, ``<= benign_at`` → Benign, otherwise
Abstain. Confidence grows with the margin and is capped; the rationale lists the strongest
reasons. Rules use only what a single record shows (no cross-flow state) and are written from
general Zeek/IDS knowledge. Their weights and thresholds are numbers in :data:`DEFAULT_PARAMS`,
overridden by ``heuristic_params.json`` — written by ``python -m
sv_env_network_logs.tune_heuristic`` from the synthetic train/dev splits only (never real data).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sv_env_network_logs.flows import Flow, LabeledFlow

PARAMS_FILE = Path(__file__).with_name("heuristic_params.json")
ABSTAIN_CONFIDENCE = 0.5

NO_REPLY_STATES = frozenset({"S0", "REJ", "RSTOS0", "SH", "RSTRH", "SHR", "OTH"})
ESTABLISHED_STATES = frozenset({"SF", "S1", "S2", "S3", "RSTO", "RSTR"})
TELNET_PORTS = frozenset({23, 2323})
WEB_PORTS = frozenset({80, 443, 8080, 8443})
#: Well-known remote-login, file-sharing and database services that scanners sweep for.
#: No rule names controller or exploit ports: those are any port (an open distribution),
#: so the rules read "not a well-known service" instead of a closed list.
TARGETED_PORTS = frozenset({23, 2323, 445, 139, 135, 3389, 1433, 3306, 5900, 6379, 9200})
#: Ports with ordinary client traffic (web, mail, DNS, time, chat, push, MQTT, VPN, STUN, ...).
COMMON_PORTS = frozenset(
    {20, 21, 22, 25, 53, 67, 68, 80, 110, 123, 143, 161, 443, 465, 587, 853, 993, 995, 1900}
    | {3478, 5222, 5223, 5228, 5353, 5355, 8080, 8443, 1883, 8883, 1194, 51820, 4500, 500}
    | {3702, 137, 138, 5683, 631, 9100, 548, 8009, 62078, 4070}
)
#: Ordinary LAN services (file/print sharing, casting, dev servers, databases, brokers).
LAN_PORTS = frozenset(
    {445, 139, 3389, 9100, 631, 8009, 5000, 8000, 3000, 9090, 548, 62078, 5432, 3306, 6379}
    | {9200, 1883, 5985, 161}
)
#: ICMP types (Zeek puts the type in src_port): echo reply, unreachable, echo, time exceeded.
ICMP_ECHO_REPLY, ICMP_UNREACH, ICMP_ECHO, ICMP_TTL = 0, 3, 8, 11

#: Rule weights (w_*) and thresholds; tuned values live in heuristic_params.json.
DEFAULT_PARAMS: dict[str, float] = {
    "malicious_at": 1.5,
    "benign_at": -1.0,
    "w_inbound_attempt": 2.0,
    "w_out_attempt_targeted": 2.0,
    "w_out_attempt_web": -0.5,
    "w_out_attempt_other": 0.8,
    "w_internal_attempt": 0.0,
    "w_internal_attempt_rare": 0.5,
    "w_odd_close": 0.5,
    "w_retransmit": 0.0,
    "w_telnet_external": 2.0,
    "w_telnet_internal": -0.5,
    "w_ssh_long": -1.5,
    "w_ssh_short_external": 1.8,
    "w_ssh_short_internal": 0.0,
    "ssh_short_s": 15.0,
    "w_dns_tunnel": 2.5,
    "w_dns_small": -1.5,
    "w_ntp": -1.5,
    "w_upload": 2.2,
    "w_upload_common": 1.2,
    "w_download": -1.5,
    "w_rare_port_small": 1.7,
    "w_long_quiet_rare": 1.5,
    "w_web_response": -1.0,
    "w_http_odd_port": 1.0,
    "w_exploit_request": 1.5,
    "w_inbound_remote_access": 1.0,
    "w_inbound_big_request": 2.0,
    "w_udp_multicast": -1.5,
    "w_udp_flood": 2.0,
    "udp_flood_pkts": 20.0,
    "w_udp_out_unanswered": 0.0,
    "w_icmp_flood": 2.0,
    "icmp_flood_pkts": 20.0,
    "w_icmp_big_reply": 1.5,
    "w_icmp_sweep": 1.0,
    "w_icmp_notice": -1.5,
    "w_icmp_ping": -1.0,
    "w_smtp_out": 0.0,
    "w_land": 3.0,
    "w_long_lived_common": -1.0,
}
TUNABLE = tuple(DEFAULT_PARAMS)


def load_params(path: Path = PARAMS_FILE) -> dict[str, float]:
    """Defaults updated with the tuned values in ``path`` (when it exists)."""
    params = dict(DEFAULT_PARAMS)
    if path.is_file():
        tuned = json.loads(path.read_text(encoding="utf-8")).get("params", {})
        params.update({k: float(v) for k, v in tuned.items() if k in params})
    return params


PARAMS = load_params()


@dataclass(frozen=True)
class _Direction:
    src_local: bool | None
    dst_local: bool | None

    @property
    def inbound(self) -> bool:
        return self.src_local is False and self.dst_local is True

    @property
    def outbound(self) -> bool:
        return self.src_local is True and self.dst_local is False

    @property
    def internal(self) -> bool:
        return self.src_local is True and self.dst_local is True


def _is_local(ip: str, flag: bool | None) -> bool | None:
    """Zeek's local_orig/local_resp when present, else RFC1918/ULA; None if unknown."""
    if flag is not None:
        return flag
    addr = ipaddress.ip_address(ip)
    if addr.is_unspecified:
        return None
    return addr.is_private


def _group_address(ip: str) -> bool:
    """Multicast or limited/subnet broadcast (x.x.x.255) destinations."""
    addr = ipaddress.ip_address(ip)
    return addr.is_multicast or (addr.version == 4 and ip.endswith(".255"))


def _evidence(flow: Flow, p: Mapping[str, float]) -> list[tuple[float, str]]:
    ev: list[tuple[float, str]] = []

    def add(weight: float, reason: str) -> None:
        if weight:
            ev.append((weight, reason))

    d = _Direction(_is_local(flow.src_ip, flow.local_orig), _is_local(flow.dst_ip, flow.local_resp))
    port, state, proto = flow.dst_port, (flow.conn_state or "").upper(), flow.proto
    ob, rb = flow.orig_bytes or 0, flow.resp_bytes or 0
    opk, rpk = flow.orig_pkts or 0, flow.resp_pkts or 0
    dur = flow.duration
    no_payload = ob == 0 and rb == 0
    service = (flow.service or "").lower()

    if flow.src_ip == flow.dst_ip and flow.src_ip != "0.0.0.0":
        add(p["w_land"], "source and destination address are the same (land attack)")

    if proto == "tcp" and state in NO_REPLY_STATES and no_payload:
        if d.inbound:
            add(p["w_inbound_attempt"], "unsolicited inbound connection attempt with no data")
        elif d.outbound and port in TARGETED_PORTS:
            add(p["w_out_attempt_targeted"], f"outbound probe to worm-targeted port {port}")
        elif d.outbound and port in WEB_PORTS:
            add(p["w_out_attempt_web"], "an unanswered outbound web connection (failed fetch)")
        elif d.internal and port in COMMON_PORTS | TARGETED_PORTS | LAN_PORTS:
            add(p["w_internal_attempt"], f"internal attempt to service port {port} unanswered")
        elif d.internal:
            add(p["w_internal_attempt_rare"], f"internal attempt to uncommon port {port}")
        else:
            add(p["w_out_attempt_other"], f"connection attempt with no data ({state or '?'})")
        if port in TARGETED_PORTS and not d.outbound:
            add(0.5, f"port {port} is a common worm/scanner target")
        if state in ("RSTOS0", "SH", "SHR", "RSTRH"):
            add(p["w_odd_close"], f"half-open attempt closed oddly ({state})")
        if state == "S0" and opk >= 2:
            add(p["w_retransmit"], "SYN retransmitted without an answer")

    if proto == "tcp" and port in TELNET_PORTS and not no_payload:
        if d.internal:
            add(p["w_telnet_internal"], "telnet session inside the network (device admin)")
        else:
            add(p["w_telnet_external"], f"telnet on port {port} across the perimeter (guessing)")

    if proto == "tcp" and port == 22 and state in ESTABLISHED_STATES:
        if dur is not None and dur >= 60:
            add(p["w_ssh_long"], "long interactive SSH session")
        elif (dur is None or dur < p["ssh_short_s"]) and ob < 6000 and rb < 8000:
            weight = p["w_ssh_short_internal"] if d.internal else p["w_ssh_short_external"]
            add(weight, "short, low-volume SSH session (password-guessing pattern)")

    if proto == "udp" and port == 53:
        if ob > 1000 or opk > 10 or (dur is not None and dur > 5):
            add(p["w_dns_tunnel"], "DNS flow with large/many queries over a long time")
        elif ob <= 512:
            add(p["w_dns_small"], "ordinary small DNS lookup")

    if proto == "udp" and port == 123 and ob <= 48 * 8:
        add(p["w_ntp"], "standard NTP exchange")

    if proto == "udp" and (state == "S0" or (not state and flow.resp_pkts == 0)):
        if _group_address(flow.dst_ip):
            add(p["w_udp_multicast"], "unanswered multicast/broadcast discovery (SSDP/mDNS/...)")
        elif opk >= p["udp_flood_pkts"] and not d.inbound:
            add(p["w_udp_flood"], f"one-way udp stream of {opk} packets, no reply (flood)")
        elif d.outbound:
            add(p["w_udp_out_unanswered"], "unanswered outbound udp datagram")

    one_way = ob >= 5_000_000 and ob > 10 * max(rb, 1)
    if one_way and (d.outbound or d.src_local is None):
        weight = p["w_upload_common"] if port in (443, 22, 21, 20) else p["w_upload"]
        add(weight, f"large one-way upload ({ob:,} bytes out, {rb:,} back)")

    if rb >= 1_000_000 and rb > 5 * max(ob, 1) and state in ESTABLISHED_STATES:
        add(p["w_download"], "large download (update, streaming or web content)")

    rare = port is not None and port not in COMMON_PORTS and port not in TARGETED_PORTS
    if proto == "tcp" and d.outbound and state in ESTABLISHED_STATES and rare:
        if port < 49152 and ob < 2000 and rb < 5000:
            add(p["w_rare_port_small"], f"small exchange with a rare remote port {port}")
        if dur is not None and dur >= 300 and (ob + rb) / dur < 50:
            add(p["w_long_quiet_rare"], f"long, quiet session to rare port {port} (C2 channel)")
    if proto == "tcp" and d.outbound and port in TARGETED_PORTS - TELNET_PORTS and ob > 0:
        add(p["w_exploit_request"], f"request sent to exploited service port {port}")
    odd_http = port is not None and port not in (80, 8080, 8000, 8008, 8888, 3128)
    if service == "http" and odd_http and not d.inbound:
        add(p["w_http_odd_port"], f"HTTP on unusual port {port}")

    if d.inbound and state in ESTABLISHED_STATES and port in (21, 23, 143, 513, 514, 2323):
        add(p["w_inbound_remote_access"], f"remote login/mail service {port} used from outside")
    if d.inbound and port in WEB_PORTS and ob > 40_000 and ob > 3 * max(rb, 1):
        add(p["w_inbound_big_request"], f"oversized request to an internal web server ({ob:,} B)")

    web = proto == "tcp" and port in WEB_PORTS and state in ESTABLISHED_STATES
    if web and rb > ob and rb >= 1000:
        add(p["w_web_response"], "web/TLS request with a normal response")
    if proto == "tcp" and port in COMMON_PORTS and dur is not None and dur >= 300 and not rare:
        add(p["w_long_lived_common"], f"long-lived session on standard port {port}")

    if proto == "tcp" and port in (25, 465, 587) and d.outbound:
        add(p["w_smtp_out"], "outbound mail submission/delivery")

    if proto == "icmp":
        icmp_type = flow.src_port
        payload = ob / opk if opk else 0
        if icmp_type in (ICMP_UNREACH, ICMP_TTL):
            add(p["w_icmp_notice"], "ICMP unreachable/time-exceeded notice")
        elif icmp_type == ICMP_ECHO and rpk == 0 and opk >= p["icmp_flood_pkts"]:
            add(p["w_icmp_flood"], f"{opk} unanswered echo requests (ICMP flood)")
        elif icmp_type == ICMP_ECHO_REPLY and rpk == 0 and payload >= 500:
            add(p["w_icmp_big_reply"], "large unsolicited echo replies (smurf-style)")
        elif icmp_type == ICMP_ECHO and payload >= 1400:
            add(p["w_icmp_big_reply"], "oversized echo request (ping of death)")
        elif icmp_type == ICMP_ECHO and d.inbound and payload < 30:
            add(p["w_icmp_sweep"], "tiny inbound echo request (ping sweep)")
        elif icmp_type == ICMP_ECHO and rpk > 0:
            add(p["w_icmp_ping"], "ordinary ping with replies")
    return ev


def heuristic_predict(
    flow: Flow, params: Mapping[str, float] | None = None
) -> tuple[str, float, str]:
    """(label, confidence, rationale) for one flow; label is Benign, Malicious or Abstain."""
    p = PARAMS if params is None else params
    evidence = _evidence(flow, p)
    score = sum(weight for weight, _ in evidence)
    reasons = [r for _, r in sorted(evidence, key=lambda e: -abs(e[0]))][:2]
    rationale = "; ".join(reasons) if reasons else "no distinctive evidence in the record"
    if score >= p["malicious_at"]:
        return "Malicious", round(min(0.95, 0.55 + 0.1 * score), 3), rationale
    if score <= p["benign_at"]:
        return "Benign", round(min(0.95, 0.6 + 0.1 * -score), 3), rationale
    return "Abstain", ABSTAIN_CONFIDENCE, f"weak evidence (score {score:+.1f}): {rationale}"


def evaluate(
    items: Iterable[LabeledFlow], params: Mapping[str, float] | None = None
) -> dict[str, float | int]:
    """Summary of :func:`heuristic_predict` on labelled items.

    ``accuracy`` counts abstentions as not correct; ``answered_accuracy`` is over non-abstained
    items only; ``missed_attacks`` / ``false_alarms`` count confident wrong answers; ``recall``
    is caught attacks over all attacks (abstentions count as missed).
    """
    n = correct = abstained = missed = false_alarms = attacks = caught = 0
    for item in items:
        n += 1
        label, _, _ = heuristic_predict(item.flow, params)
        attacks += item.label == "Malicious"
        if label == "Abstain":
            abstained += 1
        elif label == item.label:
            correct += 1
            caught += label == "Malicious"
        elif item.label == "Malicious":
            missed += 1
        else:
            false_alarms += 1
    answered = n - abstained
    return {
        "n": n,
        "accuracy": round(correct / n, 4) if n else 0.0,
        "answered_accuracy": round(correct / answered, 4) if answered else 0.0,
        "abstain_rate": round(abstained / n, 4) if n else 0.0,
        "recall": round(caught / attacks, 4) if attacks else 0.0,
        "missed_attacks": missed,
        "false_alarms": false_alarms,
    }
