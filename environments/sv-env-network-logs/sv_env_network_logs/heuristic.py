"""A transparent rule-based baseline: per-flow evidence scores, abstaining when weak.

Each rule adds a signed score (positive = malicious evidence, negative = benign evidence) and a
reason. The total decides: ``>= MALICIOUS_AT`` → Malicious, ``<= BENIGN_AT`` → Benign, otherwise
Abstain. Confidence grows with the margin and is capped; the rationale lists the strongest
reasons. Rules use only what a single record shows (no cross-flow state), written from general
Zeek/IDS knowledge — not fitted to any real dataset.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from sv_env_network_logs.flows import Flow, LabeledFlow

MALICIOUS_AT = 1.5
BENIGN_AT = -1.0
ABSTAIN_CONFIDENCE = 0.5

NO_REPLY_STATES = frozenset({"S0", "REJ", "RSTOS0", "SH", "RSTRH", "SHR", "OTH"})
ESTABLISHED_STATES = frozenset({"SF", "S1", "S2", "S3", "RSTO", "RSTR"})
TELNET_PORTS = frozenset({23, 2323})
#: Ports commonly targeted by worms/scanners (SMB, RDP, ADB, TR-069, router exploits, ...).
TARGETED_PORTS = frozenset(
    {23, 2323, 445, 139, 135, 3389, 5555, 7547, 37215, 52869, 1433, 3306, 5900, 6379, 9200}
)
#: Ports with ordinary client traffic.
COMMON_PORTS = frozenset(
    {20, 21, 22, 25, 53, 67, 68, 80, 110, 123, 143, 161, 443, 465, 587, 853, 993, 995, 1900}
    | {3478, 5222, 5223, 5228, 5353, 8080, 8443}
)
BIG_UPLOAD = 5_000_000


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


def _is_local(ip: str, flag: bool | None) -> bool | None:
    """Zeek's local_orig/local_resp when present, else RFC1918/ULA; None if unknown."""
    if flag is not None:
        return flag
    addr = ipaddress.ip_address(ip)
    if addr.is_unspecified:
        return None
    return addr.is_private


def _evidence(flow: Flow) -> list[tuple[float, str]]:
    ev: list[tuple[float, str]] = []
    d = _Direction(_is_local(flow.src_ip, flow.local_orig), _is_local(flow.dst_ip, flow.local_resp))
    port, state, proto = flow.dst_port, (flow.conn_state or "").upper(), flow.proto
    ob, rb = flow.orig_bytes or 0, flow.resp_bytes or 0
    opk = flow.orig_pkts or 0
    dur = flow.duration
    no_payload = ob == 0 and rb == 0

    if proto == "tcp" and state in NO_REPLY_STATES and no_payload:
        if d.inbound:
            ev.append((2.0, "unsolicited inbound connection attempt that carried no data"))
        elif d.outbound and port in TARGETED_PORTS:
            ev.append((2.0, f"outbound probe to commonly attacked port {port} with no data"))
        elif d.outbound and port in (80, 443, 8443):
            ev.append((-0.5, "an unanswered outbound web connection is usually a failed fetch"))
        else:
            ev.append((0.8, f"connection attempt with no data ({state or 'no reply'})"))
        if port in TARGETED_PORTS and not d.outbound:
            ev.append((0.5, f"port {port} is a common worm/scanner target"))
        if port is not None and port not in COMMON_PORTS and port not in TARGETED_PORTS:
            ev.append((0.5, f"probe to uncommon port {port}"))

    if proto == "tcp" and port in TELNET_PORTS and not no_payload:
        ev.append((2.0, f"telnet session on port {port} (Mirai-style credential guessing)"))

    if proto == "tcp" and port == 22 and state in ESTABLISHED_STATES:
        if dur is not None and dur >= 60:
            ev.append((-1.5, "long interactive SSH session"))
        elif (dur is None or dur < 15) and ob < 6000 and rb < 8000:
            weight = 1.8 if d.inbound or d.outbound else 1.2
            ev.append((weight, "short, low-volume SSH session (password-guessing pattern)"))

    if proto == "udp" and port == 53:
        if ob > 1000 or opk > 10 or (dur is not None and dur > 5):
            ev.append((2.5, "DNS flow with large/many queries over a long time (tunnelling)"))
        elif ob <= 512:
            ev.append((-1.5, "ordinary small DNS lookup"))

    if proto == "udp" and port == 123 and ob <= 48 * 8:
        ev.append((-1.5, "standard NTP exchange"))

    one_way = ob >= BIG_UPLOAD and ob > 10 * max(rb, 1)
    if one_way and (d.outbound or d.src_local is None):
        weight = 1.2 if port in (443, 22, 21) else 2.2
        ev.append((weight, f"large one-way upload ({ob:,} bytes out, {rb:,} back)"))

    if rb >= 1_000_000 and rb > 5 * max(ob, 1) and state in ESTABLISHED_STATES:
        ev.append((-1.5, "large download (update, streaming or web content)"))

    if (
        proto == "tcp"
        and d.outbound
        and state in ESTABLISHED_STATES
        and port is not None
        and port not in COMMON_PORTS
        and port not in TARGETED_PORTS
        and port < 49152
        and ob < 2000
        and rb < 5000
    ):
        ev.append((1.7, f"small exchange with a rare remote port {port} (beacon-like)"))

    web = proto == "tcp" and port in (80, 443, 8080, 8443) and state in ESTABLISHED_STATES
    if web and rb > ob and rb >= 1000:
        ev.append((-1.0, "web/TLS request with a normal response"))

    if proto == "icmp" and not d.inbound:
        ev.append((-0.5, "ICMP from inside the network (monitoring-like)"))
    return ev


def heuristic_predict(flow: Flow) -> tuple[str, float, str]:
    """(label, confidence, rationale) for one flow; label is Benign, Malicious or Abstain."""
    evidence = _evidence(flow)
    score = sum(weight for weight, _ in evidence)
    reasons = [r for _, r in sorted(evidence, key=lambda e: -abs(e[0]))][:2]
    rationale = "; ".join(reasons) if reasons else "no distinctive evidence in the record"
    if score >= MALICIOUS_AT:
        return "Malicious", round(min(0.95, 0.55 + 0.1 * score), 3), rationale
    if score <= BENIGN_AT:
        return "Benign", round(min(0.95, 0.6 + 0.1 * -score), 3), rationale
    return "Abstain", ABSTAIN_CONFIDENCE, f"weak evidence (score {score:+.1f}): {rationale}"


def evaluate(items: Iterable[LabeledFlow]) -> dict[str, float | int]:
    """Summary of :func:`heuristic_predict` on labelled items.

    ``accuracy`` counts abstentions as not correct; ``answered_accuracy`` is over non-abstained
    items only; ``missed_attacks`` / ``false_alarms`` count confident wrong answers.
    """
    n = correct = abstained = missed = false_alarms = 0
    for item in items:
        n += 1
        label, _, _ = heuristic_predict(item.flow)
        if label == "Abstain":
            abstained += 1
        elif label == item.label:
            correct += 1
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
        "missed_attacks": missed,
        "false_alarms": false_alarms,
    }
