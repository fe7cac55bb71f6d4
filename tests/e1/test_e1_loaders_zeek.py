"""Labelled Zeek conn.log loader (IoT-23 / Stratosphere layout)."""

from __future__ import annotations

import pytest

from sv_env_network_logs.dataset import DatasetError, load_flows
from sv_env_network_logs.loaders import LoadStats, load_zeek_labeled

FIELDS = [
    "ts",
    "uid",
    "id.orig_h",
    "id.orig_p",
    "id.resp_h",
    "id.resp_p",
    "proto",
    "service",
    "duration",
    "orig_bytes",
    "resp_bytes",
    "conn_state",
    "local_orig",
    "local_resp",
    "missed_bytes",
    "history",
    "orig_pkts",
    "orig_ip_bytes",
    "resp_pkts",
    "resp_ip_bytes",
    "tunnel_parents",
    "label",
    "detailedlabel",
]
TYPES = [
    "time",
    "string",
    "addr",
    "port",
    "addr",
    "port",
    "enum",
    "string",
    "interval",
    "count",
    "count",
    "string",
    "bool",
    "bool",
    "count",
    "string",
    "count",
    "count",
    "count",
    "count",
    "set[string]",
    "string",
    "string",
]
ROWS = [
    # scanner probing telnet, Mirai style (single SYN: duration/bytes unset)
    "1525879831.015811 CUmrqr4svHuSXJy5z7 192.168.100.103 51524 65.127.233.163 23 tcp - - - - "
    "S0 - - 0 S 1 40 0 0 (empty) Malicious PartOfAHorizontalPortScan",
    # benign TLS session
    "1525879840.212000 C6ePQu2Dj6iz1sO4Ie 192.168.100.103 49812 52.84.10.20 443 tcp ssl "
    "12.500000 1820 48211 SF T F 0 ShADadFf 40 3420 50 50211 (empty) Benign -",
    # unlabelled background
    "1525879850.000001 CwHCaF2SH6ZWd8488h 147.32.83.165 5353 224.0.0.251 5353 udp dns "
    "0.000100 60 0 S0 T F 0 D 1 88 0 0 (empty) Background (empty)",
    # lower-case label spelling, IPv6, C&C heartbeat
    "1525879860.500000 CpdnFb2vwq7qd6cAS2 2001:db8::5 40000 2001:db8:1::9 8080 tcp http "
    "0.250000 300 120 SF T F 0 ShADadFf 6 620 5 320 (empty) malicious C&C-HeartBeat",
]


def zeek_text(rows=ROWS, fields=FIELDS, types=TYPES, combined=False) -> str:
    """A conn.log.labeled; ``combined`` joins the last three columns by runs of spaces."""
    head = [
        "#separator \\x09",
        "#set_separator\t,",
        "#empty_field\t(empty)",
        "#unset_field\t-",
        "#path\tconn",
        "#open\t2018-05-09-15-30-31",
    ]
    if combined:
        head.append("#fields\t" + "\t".join(fields[:-3]) + "\t" + "   ".join(fields[-3:]))
        head.append("#types\t" + "\t".join(types[:-3]) + "\t" + "   ".join(types[-3:]))
    else:
        head += ["#fields\t" + "\t".join(fields), "#types\t" + "\t".join(types)]
    body = []
    for row in rows:
        values = row.split(" ")
        if combined:
            body.append("\t".join(values[:-3]) + "\t" + "   ".join(values[-3:]))
        else:
            body.append("\t".join(values))
    return "\n".join([*head, *body, "#close\t2018-05-10-15-30-31"]) + "\n"


@pytest.fixture
def conn_log(tmp_path):
    path = tmp_path / "CTU-IoT-Malware-Capture-1-1.conn.log.labeled"
    path.write_text(zeek_text())
    return path


def test_loads_rows_maps_missing_markers_and_labels(conn_log):
    stats = LoadStats()
    items = load_zeek_labeled(conn_log, stats=stats)
    assert [i.label for i in items] == ["Malicious", "Benign", "Malicious"]
    assert stats.excluded == {"Background": 1} and stats.skipped == 0
    scan, tls, c2 = items
    assert scan.flow.duration is None and scan.flow.orig_bytes is None
    assert scan.flow.local_orig is None and scan.flow.conn_state == "S0"
    assert scan.scenario == scan.detailed_label == "PartOfAHorizontalPortScan"
    assert tls.scenario == "Benign" and tls.detailed_label is None
    assert tls.flow.service == "ssl" and tls.flow.local_orig is True and tls.flow.resp_pkts == 50
    assert c2.flow.src_ip == "2001:db8::5" and c2.detailed_label == "C&C-HeartBeat"
    assert scan.id == f"{conn_log.name}:L9" and len({i.id for i in items}) == 3
    assert scan.source == f"zeek:{conn_log.name}"
    assert tls.group == "192.168.100.103<->52.84.10.20"


def test_background_can_be_included_explicitly(conn_log):
    items = load_zeek_labeled(conn_log, include_background=True)
    background = [i for i in items if i.scenario == "Background"]
    assert len(items) == 4 and len(background) == 1
    assert background[0].label == "Benign" and background[0].detailed_label == "Background"


def test_column_order_comes_from_fields_header(tmp_path, conn_log):
    order = list(range(len(FIELDS)))
    order.reverse()
    rows = [" ".join(row.split(" ")[i] for i in order) for row in ROWS]
    path = tmp_path / "reordered.log"
    path.write_text(
        zeek_text(rows, [FIELDS[i] for i in order], [TYPES[i] for i in order])
    )  # fmt: skip
    expected = [i.flow for i in load_zeek_labeled(conn_log)]
    assert [i.flow for i in load_zeek_labeled(path)] == expected


def test_space_joined_label_columns_variant(tmp_path, conn_log):
    path = tmp_path / "iot23.conn.log.labeled"
    path.write_text(zeek_text(combined=True))
    got = load_zeek_labeled(path)
    want = load_zeek_labeled(conn_log)
    assert [(i.flow, i.label, i.scenario) for i in got] == [
        (i.flow, i.label, i.scenario) for i in want
    ]
    # tab-separated header but space-joined values (seen in some releases)
    mixed = tmp_path / "mixed.log"
    head = zeek_text().split("\n")[:8]
    body = zeek_text(combined=True).split("\n")[8:]
    mixed.write_text("\n".join(head + body))
    assert [i.label for i in load_zeek_labeled(mixed)] == ["Malicious", "Benign", "Malicious"]


def test_unknown_labels_are_excluded_not_errors(tmp_path):
    rows = [ROWS[1].replace(" Benign -", " - -"), ROWS[1].replace(" Benign -", " Weird -")]
    path = tmp_path / "unknown.log"
    path.write_text(zeek_text(rows))
    stats = LoadStats()
    assert load_zeek_labeled(path, stats=stats) == []
    assert stats.excluded == {"unknown": 2}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (" 443 tcp", " 70000 tcp", "line 10: dst_port '70000' is not a valid port"),
        (" 1820 ", " 1.8k ", "line 10: orig_bytes '1.8k' is not an integer"),
        ("52.84.10.20", "52.84.10", "line 10: dst_ip '52.84.10' is not a valid IP address"),
        (" 0 ShADadFf", " ShADadFf", "line 10: expected 23 fields, got 22"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, old, new, message):
    rows = [ROWS[0], ROWS[1].replace(old, new, 1), ROWS[3]]
    path = tmp_path / "bad.conn.log.labeled"
    path.write_text(zeek_text(rows))
    with pytest.raises(DatasetError) as exc:
        load_zeek_labeled(path)
    assert str(exc.value) == f"bad.conn.log.labeled: {message}"
    stats = LoadStats()
    items = load_zeek_labeled(path, strict=False, stats=stats)
    assert len(items) == 2 and stats.skipped == 1 and message in stats.first_errors[0]
    _, info = load_flows("zeek", path=str(path), split="all", strict=False)
    assert info.skipped == 1 and info.n == 2


def test_missing_or_incomplete_header_is_an_error(tmp_path):
    path = tmp_path / "noheader.log"
    path.write_text("\t".join(ROWS[1].split(" ")) + "\n")
    with pytest.raises(DatasetError, match=r"noheader.log: line 1: data before the #fields"):
        load_zeek_labeled(path)
    path.write_text("#separator \\x09\n#path\tconn\n")
    with pytest.raises(DatasetError, match=r"no #fields header"):
        load_zeek_labeled(path)
    fields = [f for f in FIELDS if f != "label"]
    path.write_text("#separator \\x09\n#fields\t" + "\t".join(fields) + "\n")
    with pytest.raises(DatasetError, match=r"line 2: missing required column\(s\): \['label'\]"):
        load_zeek_labeled(path)
    with pytest.raises(DatasetError, match=r"file not found"):
        load_zeek_labeled(tmp_path / "absent.log")


def test_dispatcher_reports_background_and_file_revision(conn_log):
    _, info = load_flows("zeek", path=str(conn_log), split="all")
    assert info.n == 3 and info.excluded == {"Background": 1}
    assert info.revision.startswith("sha256:") and info.license == "see source"
    _, info_bg = load_flows("zeek", path=str(conn_log), split="all", include_background=True)
    assert info_bg.n == 4 and info_bg.excluded == {}
