"""Hugging Face IoT-23 loader on small local files (offline), and the offline Hub error."""

from __future__ import annotations

import json

import pytest

from sv_env_network_logs.dataset import DatasetError, load_flows
from sv_env_network_logs.loaders import HF_IOT23_ID, PLACEHOLDER_IP, LoadStats, load_hf_iot23

ZEEK_COLUMNS = (
    "ts,uid,id.orig_h,id.orig_p,id.resp_h,id.resp_p,proto,service,duration,orig_bytes,"
    "resp_bytes,conn_state,local_orig,local_resp,missed_bytes,history,orig_pkts,orig_ip_bytes,"
    "resp_pkts,resp_ip_bytes,label,detailed-label"
)
ZEEK_ROWS = [
    "1525879831.015811,CUmrqr4svHuSXJy5z7,192.168.100.103,51524,65.127.233.163,23,tcp,-,"
    "2.999051,0,0,S0,-,-,0,S,3,180,0,0,Malicious,PartOfAHorizontalPortScan",
    "1525879840.2,C6ePQu2Dj6iz1sO4Ie,192.168.100.103,49812,52.84.10.20,443,tcp,ssl,12.5,1820,"
    "48211,SF,,,0,ShADadFf,40,3420,50,50211,Benign,-",
    "1525879850.0,CwHCaF2SH6ZWd8488h,192.168.100.1,5353,224.0.0.251,5353,udp,dns,0.0001,60,0,"
    "S0,,,0,D,1,88,0,0,Background,-",
]


pytestmark = pytest.mark.usefixtures("hf_offline")


def test_local_csv_with_zeek_column_names(tmp_path):
    path = tmp_path / "iot23.csv"
    path.write_text("\n".join([ZEEK_COLUMNS, *ZEEK_ROWS]) + "\n")
    stats = LoadStats()
    items = load_hf_iot23(str(path), stats=stats, cache_dir=str(tmp_path / "c"))
    assert [i.label for i in items] == ["Malicious", "Benign"]
    assert stats.excluded == {"Background": 1}
    scan, tls = items
    assert scan.flow.src_ip == "192.168.100.103" and scan.flow.dst_port == 23
    assert scan.flow.service is None and scan.flow.local_orig is None
    assert scan.scenario == scan.detailed_label == "PartOfAHorizontalPortScan"
    assert tls.scenario == "Benign" and tls.detailed_label is None
    assert tls.flow.resp_bytes == 48211 and tls.source == "hf:iot23.csv"
    assert tls.group == "192.168.100.103<->52.84.10.20" and scan.id == "hf:iot23.csv:train:1"


def test_local_parquet_without_ips_like_the_hub_table(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "id.orig_p": [51524, 49812, 3],
            "id.resp_p": [23, 443, 3],
            "proto": ["tcp", "tcp", "icmp"],
            "service": ["-", "ssl", "-"],
            "duration": [2.999051, 12.5, float("nan")],
            "orig_bytes": [0, 1820, 0],
            "resp_bytes": [0, 48211, 0],
            "conn_state": ["S0", "SF", "OTH"],
            "missed_bytes": [0, 0, 0],
            "history": ["S", "ShADadFf", "-"],
            "orig_pkts": [3, 40, 1],
            "orig_ip_bytes": [180, 3420, 28],
            "resp_pkts": [0, 50, 0],
            "resp_ip_bytes": [0, 50211, 0],
            "label": ["Malicious", "Benign", "benign"],
        }
    )
    path = tmp_path / "train.parquet"
    frame.to_parquet(path)
    items = load_hf_iot23(str(path), cache_dir=str(tmp_path / "c"))
    assert [i.label for i in items] == ["Malicious", "Benign", "Benign"]
    assert all(i.flow.src_ip == i.flow.dst_ip == PLACEHOLDER_IP for i in items)
    assert len({i.group for i in items}) == 3  # no IPs: each row is its own group
    assert items[2].flow.duration is None and items[2].flow.history is None


def test_local_jsonl_with_combined_label_column_and_int_labels(tmp_path):
    combined = "tunnel_parents   label   detailed-label"
    rows = [
        {"id.orig_h": "10.0.0.2", "id.resp_h": "8.8.8.8", "id.resp_p": 53, "proto": "udp",
         combined: "-   Benign   -"},
        {"id.orig_h": "10.0.0.2", "id.resp_h": "1.2.3.4", "id.resp_p": 6667, "proto": "tcp",
         combined: "(empty)   Malicious   C&C"},
    ]  # fmt: skip
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = load_hf_iot23(str(path), cache_dir=str(tmp_path / "c"))
    assert [(i.label, i.detailed_label) for i in items] == [("Benign", None), ("Malicious", "C&C")]
    ints = tmp_path / "ints.jsonl"
    ints.write_text(json.dumps({"proto": "tcp", "label": 1}) + "\n")
    [item] = load_hf_iot23(str(ints), cache_dir=str(tmp_path / "c"))
    assert item.label == "Malicious"


def test_bad_rows_and_missing_columns(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([ZEEK_COLUMNS, ZEEK_ROWS[1].replace(",443,", ",70000,")]) + "\n")
    with pytest.raises(DatasetError, match=r"bad.csv: row 1: dst_port 70000 is not a valid port"):
        load_hf_iot23(str(bad), cache_dir=str(tmp_path / "c"))
    stats = LoadStats()
    assert load_hf_iot23(str(bad), strict=False, stats=stats, cache_dir=str(tmp_path / "c")) == []
    assert stats.skipped == 1
    nolabel = tmp_path / "nolabel.csv"
    nolabel.write_text("proto,duration\ntcp,1.0\n")
    with pytest.raises(DatasetError, match=r"nolabel.csv: missing required column\(s\)"):
        load_hf_iot23(str(nolabel), cache_dir=str(tmp_path / "c"))
    with pytest.raises(DatasetError, match=r"file not found"):
        load_hf_iot23(str(tmp_path / "absent.csv"))


def test_hub_id_offline_is_a_clear_dataset_error():
    with pytest.raises(DatasetError) as exc:
        load_hf_iot23(HF_IOT23_ID)
    message = str(exc.value)
    assert HF_IOT23_ID in message and "Hugging Face Hub" in message and "offline" in message


def test_dispatcher_with_local_path(tmp_path):
    path = tmp_path / "iot23.csv"
    path.write_text("\n".join([ZEEK_COLUMNS, *ZEEK_ROWS]) + "\n")
    _, info = load_flows("hf-iot23", path=str(path), split="all")
    assert info.n == 2 and info.excluded == {"Background": 1}
    assert info.revision.startswith("sha256:") and info.source == "hf-iot23"
    with pytest.raises(DatasetError, match=r"offline"):
        load_flows("hf-iot23")
