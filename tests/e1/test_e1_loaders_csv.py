"""CSV loaders: CIC-IDS-2017, UNSW-NB15 and NSL-KDD layouts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sv_env_network_logs.dataset import DatasetError, load_flows
from sv_env_network_logs.loaders import (
    NSL_KDD_SERVICE_MAP,
    PLACEHOLDER_IP,
    UNSW_RAW_COLUMNS,
    LoadStats,
    load_cic_ids_2017,
    load_nsl_kdd,
    load_unsw_nb15,
    nsl_kdd_flag,
    nsl_kdd_service,
)


def write(tmp_path, name: str, lines: list[str]):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- CIC-IDS-2017
CIC_ML_HEADER = (
    " Destination Port, Flow Duration, Total Fwd Packets, Total Backward Packets,"
    "Total Length of Fwd Packets, Total Length of Bwd Packets,Flow Bytes/s, Flow Packets/s,"
    " Fwd Header Length, Fwd Header Length, Label"
)
CIC_ML_ROWS = [
    "53,30959,2,2,74,234,9948.0,129.2,40,40,BENIGN",
    "80,1000000,5,3,0,0,0.0,8.0,100,60,DDoS",
    "22,-1,1,1,0,0,Infinity,Infinity,20,20,PortScan",
    "80,5000000,3,1,NaN,0,NaN,NaN,60,20,Web Attack – Brute Force",
]


def test_cic_machine_learning_layout(tmp_path):
    path = write(tmp_path, "Friday-WorkingHours.pcap_ISCX.csv", [CIC_ML_HEADER, *CIC_ML_ROWS])
    items = load_cic_ids_2017(path)
    assert [i.label for i in items] == ["Benign", "Malicious", "Malicious", "Malicious"]
    dns, ddos, scan, web = items
    assert dns.flow.duration == pytest.approx(0.030959) and dns.flow.dst_port == 53
    assert (dns.flow.orig_pkts, dns.flow.resp_pkts) == (2, 2)
    assert (dns.flow.orig_bytes, dns.flow.resp_bytes) == (74, 234)
    assert dns.flow.src_ip == dns.flow.dst_ip == PLACEHOLDER_IP
    assert dns.flow.proto == "unknown_transport" and dns.scenario == "BENIGN"
    assert dns.detailed_label is None and dns.group != ddos.group
    assert ddos.detailed_label == ddos.scenario == "DDoS"
    assert scan.flow.duration is None  # negative duration: known CIC data bug
    assert web.flow.orig_bytes is None and web.detailed_label == "Web Attack – Brute Force"
    assert web.source == "cic-ids-2017:Friday-WorkingHours.pcap_ISCX.csv"


def test_cic_generated_flows_layout(tmp_path):
    header = (
        "Flow ID, Source IP, Source Port, Destination IP, Destination Port, Protocol, Timestamp,"
        " Flow Duration, Total Fwd Packets, Total Backward Packets,Total Length of Fwd Packets,"
        " Total Length of Bwd Packets, Label"
    )
    rows = [
        "192.168.10.5-104.16.207.165-54865-443-6,104.16.207.165,443,192.168.10.5,54865,6,"
        "7/7/2017 3:30,3,2,0,12,0,BENIGN",
        "172.16.0.1-192.168.10.50-33058-80-6,172.16.0.1,33058,192.168.10.50,80,6,"
        "7/7/2017 3:56,1056,3,4,0,11595,DDoS",
        "8.8.8.8-192.168.10.3-53-63211-17,192.168.10.3,63211,8.8.8.8,53,17,"
        "not-a-date,46,2,2,90,214,BENIGN",
    ]
    items = load_cic_ids_2017(write(tmp_path, "Friday.csv", [header, *rows]))
    first, ddos, dns = items
    assert first.flow.src_ip == "104.16.207.165" and first.flow.proto == "tcp"
    # day-first naive timestamp read as UTC
    assert first.flow.ts == datetime(2017, 7, 7, 3, 30, tzinfo=UTC).timestamp()
    assert ddos.group == "172.16.0.1<->192.168.10.50" and ddos.flow.resp_bytes == 11595
    assert dns.flow.proto == "udp" and dns.flow.ts is None


def test_cic_errors_name_file_and_line(tmp_path):
    bad = [CIC_ML_HEADER, CIC_ML_ROWS[0], "80,10,five,1,0,0,0,0,0,0,DDoS"]
    path = write(tmp_path, "bad.csv", bad)
    with pytest.raises(DatasetError, match=r"bad.csv: line 3: orig_pkts 'five' is not an integer"):
        load_cic_ids_2017(path)
    short = write(tmp_path, "short.csv", [CIC_ML_HEADER, "80,10,1,1,0,0,DDoS"])
    with pytest.raises(DatasetError, match=r"short.csv: line 2: expected 11 columns, got 7"):
        load_cic_ids_2017(short)
    port = write(tmp_path, "port.csv", [CIC_ML_HEADER, "70000,10,1,1,0,0,0,0,0,0,DDoS"])
    with pytest.raises(DatasetError, match=r"port.csv: line 2: dst_port '70000' is not a valid"):
        load_cic_ids_2017(port)
    nolabel = write(tmp_path, "nolabel.csv", [CIC_ML_HEADER.replace(" Label", " Class")])
    with pytest.raises(DatasetError, match=r"nolabel.csv: line 1: missing required .*'label'"):
        load_cic_ids_2017(nolabel)
    stats = LoadStats()
    assert len(load_cic_ids_2017(path, strict=False, stats=stats)) == 1 and stats.skipped == 1


def test_cic_blank_rows_ignored_and_blank_labels_excluded(tmp_path):
    rows = [CIC_ML_HEADER, CIC_ML_ROWS[0], ",,,,,,,,,,", "", "53,1,1,1,1,1,1,1,1,1, "]
    _, info = load_flows("cic-ids-2017", path=str(write(tmp_path, "x.csv", rows)), split="all")
    assert info.n == 1 and info.excluded == {"unknown": 1} and info.skipped == 0


# ---------------------------------------------------------------------------- UNSW-NB15
UNSW_SET_HEADER = (
    "id,dur,proto,service,state,spkts,dpkts,sbytes,dbytes,rate,sttl,dttl,sload,dload,"
    "attack_cat,label"
)
UNSW_SET_ROWS = [
    "1,0.121478,tcp,-,FIN,6,4,258,172,74.08749,252,254,14158.94,8495.365,Normal,0",
    "2,0.000009,udp,dns,INT,2,0,114,0,111111.1,254,0,50666664,0,Generic,1",
    "3,1.623129,tcp,http,RST,10,8,1034,3200,10.47,62,252,4553.3,14544.8,Exploits,1",
]


def test_unsw_training_set_layout(tmp_path):
    path = write(tmp_path, "UNSW_NB15_training-set.csv", [UNSW_SET_HEADER, *UNSW_SET_ROWS])
    items = load_unsw_nb15(path)
    normal, generic, exploit = items
    assert [i.label for i in items] == ["Benign", "Malicious", "Malicious"]
    assert normal.scenario == "Normal" and normal.detailed_label is None
    assert normal.flow.conn_state == "SF" and normal.flow.service is None
    assert (normal.flow.orig_ip_bytes, normal.flow.resp_ip_bytes) == (258, 172)
    assert normal.flow.orig_bytes is None and normal.flow.src_ip == PLACEHOLDER_IP
    assert generic.flow.conn_state == "S0" and generic.scenario == "Generic"
    assert exploit.flow.conn_state == "RST" and exploit.flow.service == "http"


def raw_row(src, sport, dst, dsport, proto, state, dur, sb, db, service, spk, dpk, cat, lab):
    values = dict.fromkeys(UNSW_RAW_COLUMNS, "0")
    values.update(srcip=src, sport=sport, dstip=dst, dsport=dsport, proto=proto, state=state)
    values.update(dur=dur, sbytes=sb, dbytes=db, service=service, spkts=spk, dpkts=dpk)
    values.update(attack_cat=cat, label=lab, stime="1421927414", ltime="1421927416")
    return ",".join(values[c] for c in UNSW_RAW_COLUMNS)


def test_unsw_raw_headerless_layout(tmp_path):
    rows = [
        raw_row("59.166.0.0", "1390", "149.171.126.6", "53", "udp", "CON", "0.001055", "132",
                "164", "dns", "2", "2", "", "0"),
        raw_row("175.45.176.1", "0x000b", "149.171.126.16", "-", "tcp", "FIN", "0.8", "1600",
                "300", "-", "12", "6", " Reconnaissance ", "1"),
    ]  # fmt: skip
    items = load_unsw_nb15(write(tmp_path, "UNSW-NB15_1.csv", rows))
    dns, recon = items
    assert dns.flow.src_ip == "59.166.0.0" and dns.flow.dst_port == 53
    assert dns.flow.conn_state == "S1" and dns.flow.ts == 1421927414.0
    assert dns.scenario == "Normal" and dns.label == "Benign"
    assert recon.flow.src_port == 11 and recon.flow.dst_port is None
    assert recon.scenario == recon.detailed_label == "Reconnaissance"
    assert recon.group == "149.171.126.16<->175.45.176.1"
    assert dns.id == "UNSW-NB15_1.csv:L1"


def test_unsw_raw_layout_with_header(tmp_path):
    header = ",".join(c if c != "label" else "Label" for c in UNSW_RAW_COLUMNS)
    row = raw_row("10.40.85.1", "0", "224.0.0.5", "0", "ospf", "INT", "50.0", "384", "0", "-",
                  "4", "0", "", "0")  # fmt: skip
    [item] = load_unsw_nb15(write(tmp_path, "raw_with_header.csv", [header, row]))
    assert item.flow.proto == "ospf" and item.flow.conn_state == "S0" and item.id.endswith(":L2")


def test_unsw_errors(tmp_path):
    with pytest.raises(DatasetError, match=r"odd.csv: line 1: unrecognised UNSW-NB15 layout"):
        load_unsw_nb15(write(tmp_path, "odd.csv", ["a,b,c", "1,2,3"]))
    bad = UNSW_SET_ROWS[1].replace(",2,0,114,", ",two,0,114,")
    path = write(tmp_path, "bad.csv", [UNSW_SET_HEADER, UNSW_SET_ROWS[0], bad])
    with pytest.raises(DatasetError, match=r"bad.csv: line 3: orig_pkts 'two' is not an integer"):
        load_unsw_nb15(path)
    row = raw_row("1.2.3.4", "99999", "5.6.7.8", "80", "tcp", "FIN", "1", "1", "1", "-", "1",
                  "1", "", "0")  # fmt: skip
    with pytest.raises(DatasetError, match=r"raw.csv: line 1: src_port '99999' is not a valid"):
        load_unsw_nb15(write(tmp_path, "raw.csv", [row]))


# ---------------------------------------------------------------------------- NSL-KDD
NSL_FEATURES = (
    "duration,protocol_type,service,flag,src_byts,dst_bytes,land,wrong_fragment,urgent,hot,"
    "num_failed_logins,logged_in,num_compromised,root_shell,su_attempted,num_root,"
    "num_file_creations,num_shells,num_access_files,num_outbound_cmds,is_hot_login,"
    "is_guest_login,count,srv_count,serror_rate,srv_error_rate,rerror_rate,srv_rerror_rate,"
    "same_srv_rate,diff_srv_rate,srv_diff_host_rate,dst_host_count, dst_host_srv_count,"
    "dst_host_same_srv_rate,dst_host_diff_srv_rate,dst_host_same_src_port_rate,"
    "dst_host_srv_diff_host_rate,dst_host_serror_rate,dst_host_srv_serror_rate,"
    "dst_host_rerror_rate,dst_host_srv_rerror_rate"
)
NSL_HEADER = NSL_FEATURES + ",label,#correctly_predicted,binary_label,attack_family"
TAIL = ",0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,3,3,0.0,0.0,0.0,0.0,1.0,0.0,0.0,255,255,1.0,0.0,0.0,0.0"
TAIL += ",0.0,0.0,0.0,0.0"
NSL_ROWS = [
    "0,tcp,http,SF,510,8894" + TAIL + ",normal,21,normal,normal",
    "0,tcp,finger,RSTO,0,0" + TAIL + ",neptune,19,attack,DoS",
    "2,udp,domain_u,SF,45,44" + TAIL + ",snmpguess,16,attack,R2L",
]


def test_nsl_kdd_with_header_and_typo(tmp_path):
    items = load_nsl_kdd(write(tmp_path, "KDDTest+.csv", [NSL_HEADER, *NSL_ROWS]))
    normal, neptune, snmp = items
    assert normal.label == "Benign" and normal.scenario == "normal"
    assert normal.detailed_label is None
    assert (normal.flow.orig_bytes, normal.flow.resp_bytes) == (510, 8894)
    assert normal.flow.service == "http" and normal.flow.conn_state == "SF"
    assert normal.flow.src_ip == PLACEHOLDER_IP and normal.flow.dst_port is None
    assert neptune.label == "Malicious" and neptune.scenario == "DoS/neptune"
    assert neptune.detailed_label == "neptune" and neptune.flow.conn_state == "RSTO"
    assert snmp.flow.proto == "udp" and snmp.flow.duration == 2.0
    assert len({i.group for i in items}) == 3


@pytest.mark.parametrize(
    ("service", "zeek"),
    [
        ("private", None), ("other", None), ("ecr_i", None), ("eco_i", None), ("tim_i", None),
        ("domain_u", "dns"), ("domain", "dns"), ("ftp_data", "ftp-data"), ("ftp", "ftp"),
        ("http", "http"), ("http_443", "ssl"), ("smtp", "smtp"), ("telnet", "telnet"),
        ("finger", "finger"), ("IRC", "irc"), ("imap4", "imap"), ("pop_3", "pop3"),
        ("ntp_u", "ntp"), ("X11", None), ("sunrpc", None), ("-", None),
    ],
)  # fmt: skip
def test_nsl_kdd_service_names_become_zeek_names(service, zeek):
    assert nsl_kdd_service(service) == zeek
    assert NSL_KDD_SERVICE_MAP.get(service, None) == zeek


def test_nsl_kdd_flags_are_zeek_conn_states(tmp_path):
    for flag in ("SF", "S0", "S1", "S2", "S3", "REJ", "RSTO", "RSTR", "RSTOS0", "SH", "OTH"):
        assert nsl_kdd_flag(flag) == flag and nsl_kdd_flag(flag.lower()) == flag
    assert nsl_kdd_flag("XYZ") is None and nsl_kdd_flag("-") is None
    rows = [
        NSL_ROWS[0].replace("tcp,http,SF", "icmp,ecr_i,SF"),
        NSL_ROWS[1].replace("tcp,finger,RSTO", "tcp,private,RSTOS0"),
        NSL_ROWS[2].replace("udp,domain_u,SF", "udp,private,SF"),
    ]
    smurf, neptune, udp = load_nsl_kdd(write(tmp_path, "map.csv", [NSL_HEADER, *rows]))
    assert (smurf.flow.proto, smurf.flow.service) == ("icmp", None)
    assert (neptune.flow.conn_state, neptune.flow.service) == ("RSTOS0", None)
    assert udp.flow.service is None


def test_nsl_kdd_headerless_original_layout(tmp_path):
    rows = [r.rsplit(",", 3)[0] + "," + r.rsplit(",", 3)[1] for r in NSL_ROWS]  # + difficulty
    items = load_nsl_kdd(write(tmp_path, "KDDTest+.txt", rows))
    assert [i.label for i in items] == ["Benign", "Malicious", "Malicious"]
    assert items[1].scenario == "neptune" and items[0].id == "KDDTest+.txt:L1"


def test_nsl_kdd_errors(tmp_path):
    bad = NSL_ROWS[1].replace("RSTO,0,0", "RSTO,zero,0")
    path = write(tmp_path, "bad.csv", [NSL_HEADER, NSL_ROWS[0], bad])
    with pytest.raises(DatasetError, match=r"bad.csv: line 3: orig_bytes 'zero' is not an integer"):
        load_nsl_kdd(path)
    with pytest.raises(DatasetError, match=r"wide.csv: line 2: expected 45 columns, got 46"):
        load_nsl_kdd(write(tmp_path, "wide.csv", [NSL_HEADER, NSL_ROWS[0] + ",extra"]))
    with pytest.raises(DatasetError, match=r"hdr.csv: line 1: unrecognised NSL-KDD header"):
        load_nsl_kdd(write(tmp_path, "hdr.csv", ["a,b,c"]))
    no_bytes = NSL_HEADER.replace("src_byts", "source")
    with pytest.raises(DatasetError, match=r"line 1: missing required column\(s\): \['src_bytes'"):
        load_nsl_kdd(write(tmp_path, "nob.csv", [no_bytes, NSL_ROWS[0]]))
    _, info = load_flows("nsl-kdd", path=str(path), split="all", strict=False)
    assert info.n == 1 and info.skipped == 1
