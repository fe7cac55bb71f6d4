"""Loaders on the real samples in ../shared/realdata (skipped cleanly when absent)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sv_env_network_logs.dataset import load_flows, split_flows
from sv_env_network_logs.heuristic import evaluate
from sv_env_network_logs.loaders import PLACEHOLDER_IP
from sv_env_network_logs.prompts import parse_rendered_flow, render_flow

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
E1 = REALDATA / "E1_network_logs"
ZEEK_SAMPLE = E1 / "stratosphere_zeek" / "011-zeek-mixed_conn.log.labeled.sample500"
NSL_SAMPLE = E1 / "nsl_kdd" / "KDDTest+_sample500.csv"

pytestmark = pytest.mark.realdata


def need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"real data sample not present: {path}")
    return path


def test_stratosphere_zeek_sample():
    path = need(ZEEK_SAMPLE)
    items, info = load_flows("zeek", path=str(path), split="all")
    assert info.n == 418 and info.skipped == 0
    assert info.label_counts == {"Benign": 218, "Malicious": 200}
    assert info.excluded == {"Background": 82}
    details = Counter(i.detailed_label for i in items)
    assert details == {"External-Attack-to-Device": 200, None: 150, "Microsoft": 60,
                       "Cert-Validation": 8}  # fmt: skip
    assert all(i.flow.proto in {"tcp", "udp", "icmp"} for i in items)
    for item in items:
        assert parse_rendered_flow(render_flow(item.flow)) == item.flow
    everything, _ = load_flows("zeek", path=str(path), split="all", include_background=True)
    assert len(everything) == 500
    splits = split_flows(items)
    groups = [{i.group for i in part} for part in splits.values()]
    assert not (groups[0] & groups[1] or groups[0] & groups[2] or groups[1] & groups[2])
    assert all(Counter(i.label for i in part).keys() == {"Benign", "Malicious"}
               for part in splits.values())  # fmt: skip
    report = evaluate(items)  # measured, not tuned: answered accuracy 0.984, abstain 0.39
    assert report["answered_accuracy"] >= 0.9


def test_nsl_kdd_sample():
    path = need(NSL_SAMPLE)
    items, info = load_flows("nsl-kdd", path=str(path), split="all")
    assert info.n == 500 and info.skipped == 0 and info.excluded == {}
    assert info.label_counts == {"Benign": 250, "Malicious": 250}
    assert all(i.flow.src_ip == PLACEHOLDER_IP for i in items)
    assert {i.flow.proto for i in items} == {"tcp", "udp", "icmp"}
    assert {i.flow.conn_state for i in items} <= {"SF", "S0", "REJ", "RSTO", "RSTR", "SH", "S1",
                                                   "S2", "S3", "RSTOS0", "OTH"}  # fmt: skip
    neptune = [i for i in items if i.detailed_label == "neptune"]
    assert neptune and all(i.scenario == "DoS/neptune" for i in neptune)
    _, test_info = load_flows("nsl-kdd", path=str(path), split="test")
    assert 50 <= test_info.n <= 100
