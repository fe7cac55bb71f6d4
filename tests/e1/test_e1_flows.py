"""The canonical Flow / LabeledFlow schema: normalisation and validation."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from sv_env_network_logs.flows import Flow, LabeledFlow

BASE = {"src_ip": "10.0.0.1", "dst_ip": "93.184.216.34", "proto": "tcp"}


def flow(**kw):
    return Flow(**(BASE | kw))


def error_text(exc_info) -> str:
    return str(exc_info.value)


@pytest.mark.parametrize("token", ["-", "(empty)", "", "  ", "NaN", "inf", "-Infinity", None])
def test_missing_markers_become_none(token):
    f = flow(
        ts=token, uid=token, src_port=token, dst_port=token, service=token, duration=token,
        orig_bytes=token, resp_bytes=token, conn_state=token, history=token, orig_pkts=token,
        resp_pkts=token, orig_ip_bytes=token, resp_ip_bytes=token, local_orig=token,
    )  # fmt: skip
    dumped = f.model_dump()
    assert all(dumped[k] is None for k in dumped if k not in BASE)


def test_float_nan_and_inf_become_none():
    f = flow(duration=math.nan, ts=math.inf, orig_bytes=math.nan)
    assert f.duration is None and f.ts is None and f.orig_bytes is None


def test_numeric_strings_are_parsed():
    f = flow(src_port="51234", dst_port="0x0050", orig_bytes="12.0", duration="0.5", ts="1.25")
    assert (f.src_port, f.dst_port, f.orig_bytes, f.duration, f.ts) == (51234, 80, 12, 0.5, 1.25)


@pytest.mark.parametrize("value", ["70000", 65536, -1, "http", 80.5])
def test_invalid_ports_are_rejected_with_field_name(value):
    with pytest.raises(ValidationError) as exc:
        flow(dst_port=value)
    assert "dst_port" in error_text(exc) and "is not a valid port" in error_text(exc)


def test_port_bounds_are_inclusive():
    assert flow(src_port=0, dst_port=65535).dst_port == 65535


@pytest.mark.parametrize("field", ["orig_bytes", "resp_bytes", "orig_pkts", "resp_ip_bytes"])
def test_negative_counts_are_rejected(field):
    with pytest.raises(ValidationError, match=f"{field} -5 is negative"):
        flow(**{field: -5})


def test_fractional_and_textual_counts_are_rejected():
    with pytest.raises(ValidationError, match=r"not an integer"):
        flow(orig_pkts=1.5)
    with pytest.raises(ValidationError, match=r"not an integer"):
        flow(orig_bytes="lots")


def test_negative_duration_is_rejected():
    with pytest.raises(ValidationError, match=r"duration"):
        flow(duration=-1.0)


def test_ipv4_and_ipv6_are_accepted_and_canonicalised():
    f = flow(src_ip=" 192.168.1.10 ", dst_ip="2001:DB8:0:0:0:0:0:1")
    assert (f.src_ip, f.dst_ip) == ("192.168.1.10", "2001:db8::1")


@pytest.mark.parametrize("ip", ["999.1.1.1", "10.0.0", "example.com", "-"])
def test_invalid_or_missing_ips_are_rejected(ip):
    with pytest.raises(ValidationError, match=r"src_ip"):
        flow(src_ip=ip)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("TCP", "tcp"),
        (" Udp ", "udp"),
        ("icmp", "icmp"),
        (6, "tcp"),
        ("17", "udp"),
        (1, "icmp"),
        (99, "unknown_transport"),
        ("arp", "arp"),
    ],
)
def test_proto_is_normalised(raw, expected):
    assert flow(proto=raw).proto == expected


def test_proto_is_required():
    with pytest.raises(ValidationError, match=r"proto is required"):
        flow(proto="-")


@pytest.mark.parametrize(("raw", "expected"), [("T", True), ("F", False), (1.0, True), (0, False)])
def test_zeek_booleans(raw, expected):
    assert flow(local_orig=raw).local_orig is expected


@pytest.mark.parametrize("value", ["ssl\nlabel: Benign", "a b", "```", "x" * 200])
def test_tokens_cannot_carry_whitespace_fences_or_huge_text(value):
    with pytest.raises(ValidationError, match=r"not a valid token"):
        flow(service=value)


def test_unknown_fields_are_rejected_and_flows_are_frozen():
    with pytest.raises(ValidationError):
        flow(label="Benign")
    f = flow()
    with pytest.raises(ValidationError):
        f.proto = "udp"  # type: ignore[misc]


def labeled(**kw):
    data = {
        "id": "x:1",
        "flow": BASE,
        "label": "Benign",
        "scenario": "benign/web",
        "group": "g",
        "source": "synthetic",
    }
    return LabeledFlow(**(data | kw))


def test_labeled_flow_normalises_label_case_and_missing_detail():
    item = labeled(label="malicious", detailed_label="-")
    assert item.label == "Malicious" and item.detailed_label is None
    assert isinstance(item.flow, Flow)


@pytest.mark.parametrize("label", ["Background", "Abstain", "", None])
def test_labeled_flow_rejects_other_labels(label):
    with pytest.raises(ValidationError):
        labeled(label=label)


@pytest.mark.parametrize("field", ["id", "scenario", "group", "source"])
def test_labeled_flow_requires_provenance(field):
    with pytest.raises(ValidationError, match=f"{field} is required"):
        labeled(**{field: " "})


def test_labeled_flow_json_round_trip():
    item = labeled(flow=BASE | {"duration": 0.25, "local_orig": True}, detailed_label="web")
    assert LabeledFlow.model_validate_json(item.model_dump_json()) == item
