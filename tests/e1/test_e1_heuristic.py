"""The transparent rule-based baseline."""

from __future__ import annotations

import json

import pytest

from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.flows import Flow
from sv_env_network_logs.generator import GENERATOR_VERSION
from sv_env_network_logs.heuristic import (
    DEFAULT_PARAMS,
    PARAMS,
    PARAMS_FILE,
    TUNABLE,
    evaluate,
    heuristic_predict,
    load_params,
)
from sv_env_network_logs.tune_heuristic import check, grid, mean_reward, tune


def f(**kw) -> Flow:
    return Flow(**({"src_ip": "10.1.2.3", "dst_ip": "52.84.10.20", "proto": "tcp"} | kw))


CASES = [
    ("Malicious", f(src_ip="45.95.1.2", dst_ip="192.168.1.20", dst_port=23, conn_state="S0",
                    orig_bytes=0, resp_bytes=0, history="S", orig_pkts=1)),
    ("Malicious", f(dst_port=2323, conn_state="SF", orig_bytes=60, resp_bytes=120, duration=2.0)),
    ("Malicious", f(dst_ip="10.10.0.53", proto="udp", dst_port=53, orig_bytes=250_000,
                    orig_pkts=1200, duration=600.0)),
    ("Malicious", f(dst_port=4444, conn_state="SF", orig_bytes=300, resp_bytes=120,
                    duration=0.4)),
    ("Malicious", f(dst_port=9999, conn_state="SF", orig_bytes=800_000_000, resp_bytes=90_000)),
    ("Benign", f(dst_ip="10.10.0.53", proto="udp", dst_port=53, orig_bytes=40, resp_bytes=120,
                 orig_pkts=1, resp_pkts=1, conn_state="SF")),
    ("Benign", f(proto="udp", dst_port=123, orig_bytes=48, resp_bytes=48, conn_state="SF")),
    ("Benign", f(src_ip="10.99.0.12", dst_ip="10.10.1.5", dst_port=22, conn_state="SF",
                 duration=1800.0, orig_bytes=90_000, resp_bytes=700_000)),
    ("Benign", f(dst_port=443, conn_state="SF", orig_bytes=900, resp_bytes=250_000_000)),
    # botnet / C2 shapes
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="45.95.1.2", dst_port=6667, conn_state="S0",
                    orig_bytes=0, resp_bytes=0, history="S", orig_pkts=1, resp_pkts=0)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="45.95.1.2", dst_port=48101, conn_state="REJ",
                    orig_bytes=0, resp_bytes=0, history="Sr", orig_pkts=1, resp_pkts=1)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="45.95.1.2", dst_port=6667, conn_state="S1",
                    duration=7200.0, orig_bytes=3000, resp_bytes=5000)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="61.177.3.4", dst_port=23, conn_state="SF",
                    orig_bytes=40, resp_bytes=90, duration=3.0)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="61.177.3.4", dst_port=37215, conn_state="S0",
                    orig_bytes=0, resp_bytes=0, orig_pkts=1)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="61.177.3.4", proto="udp", dst_port=27015,
                    conn_state="S0", orig_bytes=200 * 512, orig_pkts=200, resp_pkts=0)),
    ("Malicious", f(src_ip="192.168.1.20", dst_ip="61.177.3.4", proto="icmp", src_port=8,
                    dst_port=0, conn_state="OTH", orig_bytes=500 * 56, orig_pkts=500,
                    resp_pkts=0)),
    ("Benign", f(src_ip="192.168.1.20", dst_ip="239.255.255.250", proto="udp", dst_port=1900,
                 conn_state="S0", orig_bytes=300, orig_pkts=1, resp_pkts=0)),
    ("Benign", f(src_ip="52.84.1.2", dst_ip="10.1.2.3", proto="icmp", src_port=3, dst_port=3,
                 conn_state="OTH", orig_bytes=56, orig_pkts=1, resp_pkts=0)),
    ("Benign", f(src_ip="10.99.0.12", dst_ip="192.168.1.20", dst_port=23, conn_state="SF",
                 orig_bytes=900, resp_bytes=9000, duration=120.0)),
    # tuned on synthetic data: big uploads lean malicious; an unanswered internal service
    # attempt is undecided since v3 (a compromised host sweeping its LAN neighbours draws from
    # the same service catalogue as offline shares and printers), as is an unanswered
    # outbound web attempt
    ("Malicious", f(dst_port=443, conn_state="SF", orig_bytes=700_000_000, resp_bytes=900_000)),
    ("Abstain", f(src_ip="10.10.0.5", dst_ip="10.10.1.9", dst_port=3389, conn_state="S0",
                  orig_bytes=0, resp_bytes=0)),
    ("Abstain", f(src_ip="192.168.1.20", dst_port=443, conn_state="S0", orig_bytes=0,
                  resp_bytes=0, history="S", orig_pkts=1, resp_pkts=0)),
    ("Abstain", f(proto="icmp", src_ip="8.8.8.8", dst_ip="10.1.2.3")),
]  # fmt: skip


@pytest.mark.parametrize(("expected", "flow"), CASES)
def test_rules_on_textbook_flows(expected, flow):
    label, confidence, rationale = heuristic_predict(flow)
    assert label == expected
    assert 0.0 <= confidence <= 1.0 and rationale
    if label != "Abstain":
        assert confidence > 0.5


def test_sparse_records_do_not_crash():
    for flow in [f(), f(src_ip="0.0.0.0", dst_ip="0.0.0.0", proto="unknown_transport")]:
        label, confidence, _ = heuristic_predict(flow)
        assert label in {"Benign", "Malicious", "Abstain"} and 0 <= confidence <= 1


def test_missing_ports_are_not_evidence():
    """IP- and port-less records (NSL-KDD, CIC MachineLearningCSV) fire no port rule."""
    web = f(src_ip="0.0.0.0", dst_ip="0.0.0.0", service="http", conn_state="SF",
            orig_bytes=230, resp_bytes=4000)  # fmt: skip
    label, _, rationale = heuristic_predict(web)
    assert label != "Malicious" and "None" not in rationale
    attempt = f(src_ip="0.0.0.0", dst_ip="0.0.0.0", conn_state="S0", orig_bytes=0, resp_bytes=0)
    assert "None" not in heuristic_predict(attempt)[2]


def test_measured_quality_on_default_test_split():
    items, _ = load_flows(split="test")
    report = evaluate(items)
    assert report["n"] == len(items)
    # regression guard around the measured values (synthetic-v3, tuned params: answered
    # accuracy 0.895, abstain 0.28, recall 0.70, accuracy 0.64)
    assert report["answered_accuracy"] >= 0.87
    assert report["abstain_rate"] <= 0.33
    assert report["recall"] >= 0.65
    assert report["accuracy"] >= 0.62


def test_tuned_params_are_fresh_and_complete():
    recorded = json.loads(PARAMS_FILE.read_text())
    assert set(recorded["params"]) == set(TUNABLE)
    assert recorded["data"]["generator_version"] == GENERATOR_VERSION
    assert check(PARAMS_FILE) == []  # tuned on the current default train/dev data
    assert load_params() == PARAMS == {k: float(v) for k, v in recorded["params"].items()}
    assert recorded["reward"]["train_dev_tuned"] >= recorded["reward"]["train_dev_default"]


def test_tuning_is_deterministic_and_never_worse(tmp_path):
    train, _ = load_flows(split="train")
    sample = train[:250]
    first = tune(sample, DEFAULT_PARAMS, passes=1)
    assert first == tune(sample, DEFAULT_PARAMS, passes=1)
    assert mean_reward(sample, first) >= mean_reward(sample, DEFAULT_PARAMS)
    for name, value in first.items():
        assert value in grid(name) or value == DEFAULT_PARAMS[name]
        if name.startswith("w_") and DEFAULT_PARAMS[name] > 0:
            assert value >= 0
        if name.startswith("w_") and DEFAULT_PARAMS[name] < 0:
            assert value <= 0
    assert check(tmp_path / "missing.json")
