"""Parsers for real flow datasets into the one ``LabeledFlow`` schema (see ``flows.py``).

Tolerance rules (the same for every loader):

* A file whose header is missing, unrecognised or lacks a required column is always a
  :class:`DatasetError` (the header line is named).
* A data row that cannot be turned into a ``Flow`` (bad IP, port out of range, text where a
  number is required, wrong column count) is a ``DatasetError`` naming ``file: line N`` — unless
  ``strict=False``, in which case the row is skipped and counted in ``LoadStats.skipped``.
* Missing values (Zeek ``-``/``(empty)``, blank cells, NaN, Infinity) are not errors; they
  become ``None``.
* Rows whose label is Background or unknown/blank are not errors: they are excluded and counted
  in ``LoadStats.excluded`` (Background means *unlabelled*, not benign). Zeek's
  ``include_background=True`` keeps Background rows, labelled ``Benign`` with scenario and
  detailed label ``Background`` — an explicit opt-in to the "background is normal" convention.
* Blank lines and all-blank CSV rows are ignored silently.

Sources without IP addresses (NSL-KDD, CIC-IDS-2017 MachineLearningCSV, UNSW-NB15 train/test
sets, IP-less Hugging Face tables) get the placeholder addresses ``0.0.0.0`` → ``0.0.0.0``
(:data:`PLACEHOLDER_IP`); their rows are independent, so each row is its own ``group``. With
addresses, ``group`` is the unordered IP pair ("conversation"): it keeps every exchange between
two hosts (a scanner and its victim, a client and its server) in one split. A pure source-IP
key would put all traffic of a monitored host into one group and make splits degenerate.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sv_env_network_logs.flows import Flow, LabeledFlow, is_missing, parse_float
from sv_shared.hub_datasets import HubDatasetError, iter_rows, open_dataset

PLACEHOLDER_IP = "0.0.0.0"
HF_IOT23_ID = "19kmunz/iot-23-preprocessed"


class DatasetError(ValueError):
    """Malformed or unusable dataset input; the message names the file and line/row."""


@dataclass
class LoadStats:
    """Counters filled in by a loader: skipped bad rows and excluded unlabelled rows."""

    rows: int = 0
    skipped: int = 0
    excluded: Counter[str] = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)


class _RowError(ValueError):
    pass


# ---------------------------------------------------------------------------- shared helpers
def describe_validation_error(exc: ValidationError) -> str:
    """The first error of a pydantic ValidationError as ``field ... problem``."""
    err = exc.errors()[0]
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    loc = ".".join(str(p) for p in err.get("loc", ()) if p != "flow")
    return msg if not loc or msg.startswith(loc) else f"{loc}: {msg}"


def _group(flow: Flow, fallback: str) -> str:
    """The unordered (canonical) IP pair, or ``fallback`` when addresses are placeholders."""
    if PLACEHOLDER_IP in (flow.src_ip, flow.dst_ip):
        return fallback
    a, b = sorted((flow.src_ip, flow.dst_ip))
    return f"{a}<->{b}"


def _item(*, flow: dict[str, Any], fallback_group: str, **fields: Any) -> LabeledFlow:
    """Validate one row; any schema problem becomes a row error naming the field."""
    try:
        parsed = Flow(**flow)
        return LabeledFlow(flow=parsed, group=_group(parsed, fallback_group), **fields)
    except ValidationError as exc:
        raise _RowError(describe_validation_error(exc)) from None


def _binary_label(value: Any) -> str | None:
    """Map label spellings to Benign / Malicious / Background; ``None`` if unknown."""
    if is_missing(value):
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return {0: "Benign", 1: "Malicious"}.get(int(value)) if value in (0, 1) else None
    text = str(value).strip().lower()
    return {
        "benign": "Benign",
        "normal": "Benign",
        "0": "Benign",
        "malicious": "Malicious",
        "attack": "Malicious",
        "1": "Malicious",
        "background": "Background",
    }.get(text)


def _run_rows(
    name: str,
    rows: Iterable[tuple[int, Any]],
    convert: Any,
    *,
    strict: bool,
    stats: LoadStats,
    where: str = "line",
) -> list[LabeledFlow]:
    """Convert ``(line_no, raw)`` rows; apply the strict/skip policy uniformly."""
    out: list[LabeledFlow] = []
    for line_no, raw in rows:
        stats.rows += 1
        try:
            item = convert(line_no, raw)
        except _RowError as exc:
            message = f"{name}: {where} {line_no}: {exc}"
            if strict:
                raise DatasetError(message) from None
            stats.skipped += 1
            if len(stats.first_errors) < 20:
                stats.first_errors.append(message)
            continue
        if isinstance(item, str):
            stats.excluded[item] += 1
        else:
            out.append(item)
    return out


def _open_text(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    return path.open("r", encoding="utf-8-sig", errors="replace", newline="")


def _csv_rows(handle: Any) -> Iterator[tuple[int, list[str]]]:
    """Non-blank CSV rows with their (physical, 1-based) line numbers."""
    reader = csv.reader(handle)
    for row in reader:
        if not row or all(not cell.strip() for cell in row):
            continue
        yield reader.line_num, row


def _index(header: list[str]) -> dict[str, int]:
    """Column positions keyed by stripped, lower-cased name (first occurrence wins)."""
    out: dict[str, int] = {}
    for i, name in enumerate(header):
        out.setdefault(name.strip().lower(), i)
    return out


def _require(name: str, line_no: int, index: Mapping[str, int], *cols: str) -> None:
    missing = [c for c in cols if c not in index]
    if missing:
        raise DatasetError(f"{name}: line {line_no}: missing required column(s): {missing}")


def _check_width(row: list[str], width: int) -> None:
    if len(row) != width:
        raise _RowError(f"expected {width} columns, got {len(row)}")


# ---------------------------------------------------------------------------- Zeek conn.log
ZEEK_FIELDS = {
    "ts": "ts",
    "uid": "uid",
    "id.orig_h": "src_ip",
    "id.orig_p": "src_port",
    "id.resp_h": "dst_ip",
    "id.resp_p": "dst_port",
    "proto": "proto",
    "service": "service",
    "duration": "duration",
    "orig_bytes": "orig_bytes",
    "resp_bytes": "resp_bytes",
    "conn_state": "conn_state",
    "history": "history",
    "orig_pkts": "orig_pkts",
    "resp_pkts": "resp_pkts",
    "orig_ip_bytes": "orig_ip_bytes",
    "resp_ip_bytes": "resp_ip_bytes",
    "local_orig": "local_orig",
    "local_resp": "local_resp",
}
_DETAIL_NAMES = ("detailedlabel", "detailed-label", "detailed_label")
_ZEEK_REQUIRED = ("id.orig_h", "id.resp_h", "proto", "label")
_SPACE_RUN = re.compile(r"\s{2,}")


def _zeek_separator(value: str) -> str:
    text = value.strip() if value.strip() else value
    return re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text) or "\t"


def _split_zeek(line: str, sep: str, width: int) -> list[str]:
    """Split a data line; re-split space-joined trailing fields (IoT-23 label variant)."""
    values = line.split(sep)
    if len(values) < width:
        values = values[:-1] + _SPACE_RUN.split(values[-1].strip())
    if len(values) < width:
        values = values[:-1] + values[-1].split()
    return values


def _zeek_item(
    name: str, line_no: int, row: dict[str, str], include_background: bool
) -> LabeledFlow | str:
    label = _binary_label(row.get("label"))
    if label is None:
        return "unknown"
    if label == "Background" and not include_background:
        return "Background"
    detail = next((row[d] for d in _DETAIL_NAMES if d in row), None)
    detail = None if is_missing(detail) else detail
    if label == "Background":
        label, detail = "Benign", "Background"
    flow = {ZEEK_FIELDS[k]: v for k, v in row.items() if k in ZEEK_FIELDS}
    return _item(
        id=f"{name}:L{line_no}",
        flow=flow,
        label=label,
        scenario=detail or label,
        fallback_group=f"{name}:L{line_no}",
        source=f"zeek:{name}",
        detailed_label=detail,
    )


def _zeek_lines(path: Path, name: str) -> Iterator[tuple[int, list[str], list[str]]]:
    """Yield ``(line_no, names, values)`` for each data line, honouring the ``#`` headers."""
    sep, unset, empty = "\t", "-", "(empty)"
    names: list[str] | None = None
    with _open_text(path) as handle:
        for line_no, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                key, _, value = line[1:].partition(" " if line.startswith("#separator") else sep)
                if key == "separator":
                    sep = _zeek_separator(value)
                elif key == "unset_field":
                    unset = value
                elif key == "empty_field":
                    empty = value
                elif key == "fields":
                    names = [n for f in value.split(sep) for n in f.split()]
                    _require(name, line_no, dict.fromkeys(names, 0), *_ZEEK_REQUIRED)
                continue
            if names is None:
                raise DatasetError(f"{name}: line {line_no}: data before the #fields header")
            values = _split_zeek(line, sep, len(names))
            yield line_no, names, ["-" if v in (unset, empty) else v for v in values]
    if names is None:
        raise DatasetError(f"{name}: line 1: no #fields header found")


def load_zeek_labeled(
    path: str | Path,
    *,
    include_background: bool = False,
    strict: bool = True,
    stats: LoadStats | None = None,
) -> list[LabeledFlow]:
    """Load a labelled Zeek ``conn.log`` (IoT-23 / Stratosphere ``*.conn.log.labeled``).

    Column names come from the ``#fields`` header (order is not assumed); ``#separator``,
    ``#unset_field`` and ``#empty_field`` are honoured. ``label`` is Benign / Malicious /
    Background (any case); ``detailedlabel`` becomes ``scenario`` and ``detailed_label``. The
    IoT-23 variant whose last column is ``tunnel_parents   label   detailedlabel`` joined by
    runs of spaces is split back into three fields.
    """
    path = Path(path)
    name, stats = path.name, stats if stats is not None else LoadStats()

    def convert(line_no: int, parsed: tuple[list[str], list[str]]) -> LabeledFlow | str:
        names, values = parsed
        if len(values) != len(names):
            raise _RowError(f"expected {len(names)} fields, got {len(values)}")
        return _zeek_item(name, line_no, dict(zip(names, values, strict=True)), include_background)

    rows = ((no, (names, values)) for no, names, values in _zeek_lines(path, name))
    return _run_rows(name, rows, convert, strict=strict, stats=stats)


# ---------------------------------------------------------------------------- CIC-IDS-2017
_CIC_REQUIRED = (
    "destination port",
    "flow duration",
    "total fwd packets",
    "total backward packets",
    "total length of fwd packets",
    "total length of bwd packets",
    "label",
)
_CIC_TIME_FORMATS = ("%d/%m/%Y %H:%M:%S", "%d/%m/%Y %H:%M", "%d/%m/%Y %I:%M:%S %p")


def _cic_ts(value: str) -> float | None:
    """Parse CIC's naive day-first timestamps as UTC (best effort; ``None`` if unparseable)."""
    for fmt in _CIC_TIME_FORMATS:
        try:
            return datetime.strptime(value.strip(), fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return None


def _nonneg_or_none(value: Any, field_name: str) -> float | None:
    try:
        number = parse_float(value, field_name)
    except ValueError as exc:
        raise _RowError(str(exc)) from None
    return number if number is None or number >= 0 else None


def load_cic_ids_2017(
    path: str | Path, *, strict: bool = True, stats: LoadStats | None = None
) -> list[LabeledFlow]:
    """Load a CIC-IDS-2017 CSV (MachineLearningCSV or GeneratedLabelledFlows layout).

    ``Flow Duration`` is in microseconds (negative values, a known data bug, become ``None``);
    Fwd = originator, Bwd = responder; payload lengths map to ``*_bytes``. ``BENIGN`` → Benign,
    any other label → Malicious with the original text as ``detailed_label``. The
    MachineLearningCSV layout has no IPs or protocol: placeholders and ``unknown_transport``.
    """
    path = Path(path)
    name, stats = path.name, stats if stats is not None else LoadStats()
    with _open_text(path) as handle:
        lines = _csv_rows(handle)
        header_line, header = next(lines, (1, []))
        idx = _index(header)
        _require(name, header_line, idx, *_CIC_REQUIRED)
        has_ips = "source ip" in idx and "destination ip" in idx

        def get(row: list[str], col: str) -> str | None:
            return row[idx[col]] if col in idx else None

        def convert(line_no: int, row: list[str]) -> LabeledFlow | str:
            _check_width(row, len(header))
            raw_label = get(row, "label")
            if is_missing(raw_label):
                return "unknown"
            text = str(raw_label).strip()
            benign = text.upper() == "BENIGN"
            duration_us = _nonneg_or_none(get(row, "flow duration"), "duration")
            proto = get(row, "protocol")
            return _item(
                id=f"{name}:L{line_no}",
                flow={
                    "ts": _cic_ts(get(row, "timestamp") or ""),
                    "src_ip": get(row, "source ip") if has_ips else PLACEHOLDER_IP,
                    "src_port": get(row, "source port"),
                    "dst_ip": get(row, "destination ip") if has_ips else PLACEHOLDER_IP,
                    "dst_port": get(row, "destination port"),
                    "proto": "unknown_transport" if proto is None or is_missing(proto) else proto,
                    "duration": None if duration_us is None else duration_us / 1e6,
                    "orig_pkts": get(row, "total fwd packets"),
                    "resp_pkts": get(row, "total backward packets"),
                    "orig_bytes": get(row, "total length of fwd packets"),
                    "resp_bytes": get(row, "total length of bwd packets"),
                },
                label="Benign" if benign else "Malicious",
                scenario="BENIGN" if benign else text,
                fallback_group=f"{name}:L{line_no}",
                source=f"cic-ids-2017:{name}",
                detailed_label=None if benign else text,
            )

        return _run_rows(name, lines, convert, strict=strict, stats=stats)


# ---------------------------------------------------------------------------- UNSW-NB15
UNSW_RAW_COLUMNS = (
    "srcip", "sport", "dstip", "dsport", "proto", "state", "dur", "sbytes", "dbytes", "sttl",
    "dttl", "sloss", "dloss", "service", "sload", "dload", "spkts", "dpkts", "swin", "dwin",
    "stcpb", "dtcpb", "smeansz", "dmeansz", "trans_depth", "res_bdy_len", "sjit", "djit",
    "stime", "ltime", "sintpkt", "dintpkt", "tcprtt", "synack", "ackdat", "is_sm_ips_ports",
    "ct_state_ttl", "ct_flw_http_mthd", "is_ftp_login", "ct_ftp_cmd", "ct_srv_src",
    "ct_srv_dst", "ct_dst_ltm", "ct_src_ltm", "ct_src_dport_ltm", "ct_dst_sport_ltm",
    "ct_dst_src_ltm", "attack_cat", "label",
)  # fmt: skip
_UNSW_SET_REQUIRED = ("dur", "proto", "state", "spkts", "dpkts", "sbytes", "dbytes", "label")
#: Argus/UNSW ``state`` → Zeek-like ``conn_state``; other states (RST, ECO, URH, ...) are
#: kept verbatim because their direction/meaning has no exact Zeek equivalent.
UNSW_STATE_MAP = {"FIN": "SF", "CON": "S1", "REQ": "S0", "INT": "S0", "ACC": "S1", "CLO": "SF"}


def _looks_like_ip(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9a-fA-F:.]+", text.strip())) and any(c in text for c in ".:")


def load_unsw_nb15(
    path: str | Path, *, strict: bool = True, stats: LoadStats | None = None
) -> list[LabeledFlow]:
    """Load a UNSW-NB15 CSV: the training/testing-set layout (header with ``dur``, ``label``)
    or the raw 49-column layout (``UNSW-NB15_1.csv`` ..., headerless or with a header).

    ``sbytes``/``dbytes`` count whole IP packets, so they map to ``orig_ip_bytes`` /
    ``resp_ip_bytes`` (``*_bytes`` stay ``None``). ``label`` 0/1 → Benign/Malicious;
    ``attack_cat`` → scenario (``Normal`` for benign rows). States are mapped with
    :data:`UNSW_STATE_MAP`.
    """
    path = Path(path)
    name, stats = path.name, stats if stats is not None else LoadStats()
    with _open_text(path) as handle:
        lines = _csv_rows(handle)
        first_line, first = next(lines, (1, []))
        lowered = [c.strip().lower() for c in first]
        if "srcip" in lowered:
            idx, layout, pending = _index(first), "raw", []
            _require(name, first_line, idx, *UNSW_RAW_COLUMNS[:9], "attack_cat", "label")
        elif "dur" in lowered and "label" in lowered:
            idx, layout, pending = _index(first), "set", []
            _require(name, first_line, idx, *_UNSW_SET_REQUIRED)
        elif len(first) == len(UNSW_RAW_COLUMNS) and _looks_like_ip(first[0]):
            idx, layout = {c: i for i, c in enumerate(UNSW_RAW_COLUMNS)}, "raw"
            pending = [(first_line, first)]
        else:
            raise DatasetError(
                f"{name}: line {first_line}: unrecognised UNSW-NB15 layout (expected a header "
                f"with dur/label or {len(UNSW_RAW_COLUMNS)} headerless columns)"
            )
        width = len(first)

        def get(row: list[str], col: str) -> str | None:
            return row[idx[col]] if col in idx else None

        def convert(line_no: int, row: list[str]) -> LabeledFlow | str:
            _check_width(row, width)
            label = _binary_label(get(row, "label"))
            if label not in ("Benign", "Malicious"):
                return "unknown"
            cat = get(row, "attack_cat")
            cat = None if is_missing(cat) or cat.strip().lower() == "normal" else cat.strip()
            state = get(row, "state")
            state = None if is_missing(state) else state.strip().upper()
            return _item(
                id=f"{name}:L{line_no}",
                flow={
                    "ts": get(row, "stime"),
                    "src_ip": get(row, "srcip") if layout == "raw" else PLACEHOLDER_IP,
                    "src_port": get(row, "sport"),
                    "dst_ip": get(row, "dstip") if layout == "raw" else PLACEHOLDER_IP,
                    "dst_port": get(row, "dsport"),
                    "proto": get(row, "proto"),
                    "service": get(row, "service"),
                    "duration": get(row, "dur"),
                    "conn_state": UNSW_STATE_MAP.get(state, state) if state else None,
                    "orig_pkts": get(row, "spkts"),
                    "resp_pkts": get(row, "dpkts"),
                    "orig_ip_bytes": get(row, "sbytes"),
                    "resp_ip_bytes": get(row, "dbytes"),
                },
                label=label,
                scenario=cat or "Normal",
                fallback_group=f"{name}:L{line_no}",
                source=f"unsw-nb15:{name}",
                detailed_label=cat,
            )

        return _run_rows(name, [*pending, *lines], convert, strict=strict, stats=stats)


# ---------------------------------------------------------------------------- NSL-KDD
NSL_KDD_COLUMNS = (
    "duration", "protocol_type", "service", "flag", "src_bytes", "dst_bytes", "land",
    "wrong_fragment", "urgent", "hot", "num_failed_logins", "logged_in", "num_compromised",
    "root_shell", "su_attempted", "num_root", "num_file_creations", "num_shells",
    "num_access_files", "num_outbound_cmds", "is_host_login", "is_guest_login", "count",
    "srv_count", "serror_rate", "srv_serror_rate", "rerror_rate", "srv_rerror_rate",
    "same_srv_rate", "diff_srv_rate", "srv_diff_host_rate", "dst_host_count",
    "dst_host_srv_count", "dst_host_same_srv_rate", "dst_host_diff_srv_rate",
    "dst_host_same_src_port_rate", "dst_host_srv_diff_host_rate", "dst_host_serror_rate",
    "dst_host_srv_serror_rate", "dst_host_rerror_rate", "dst_host_srv_rerror_rate", "label",
    "difficulty",
)  # fmt: skip


#: NSL-KDD / KDD-99 ``service`` (from the public KDD feature list) → the name Zeek writes in
#: ``conn.log``'s ``service`` field. Zeek names a service only when one of its analyzers
#: recognised the protocol, so KDD names without a Zeek analyzer (``private``, ``other``,
#: ``X11``, ``sunrpc``, ``netbios_*``, ...) become ``None`` ("-"), as does every ICMP
#: pseudo-service (``ecr_i``, ``eco_i``, ``tim_i``, ``urp_i``, ``red_i``, ``urh_i``, ``oth_i``):
#: Zeek logs ICMP with proto ``icmp`` and no service. Unlisted names also map to ``None``.
NSL_KDD_SERVICE_MAP: dict[str, str | None] = {
    "http": "http", "http_8001": "http", "http_2784": "http", "http_443": "ssl",
    "smtp": "smtp", "ftp": "ftp", "ftp_data": "ftp-data", "domain": "dns", "domain_u": "dns",
    "ssh": "ssh", "telnet": "telnet", "login": "rlogin", "shell": "rsh", "finger": "finger",
    "IRC": "irc", "imap4": "imap", "pop_3": "pop3", "ntp_u": "ntp", "ldap": "ldap",
    "private": None, "other": None, "ecr_i": None, "eco_i": None, "tim_i": None,
    "urp_i": None, "red_i": None, "urh_i": None, "oth_i": None,
}  # fmt: skip
#: KDD ``flag`` values use Zeek's ``conn_state`` names already (SF, S0..S3, REJ, RSTO, RSTR,
#: RSTOS0, SH, OTH); anything else becomes ``None``.
NSL_KDD_FLAGS = frozenset(
    {"SF", "S0", "S1", "S2", "S3", "REJ", "RSTO", "RSTR", "RSTOS0", "SH", "OTH"}
)


def nsl_kdd_service(value: str | None) -> str | None:
    """Zeek's service name for a KDD service (``None`` = Zeek's "-")."""
    if value is None or is_missing(value):
        return None
    return NSL_KDD_SERVICE_MAP.get(value.strip())


def nsl_kdd_flag(value: str | None) -> str | None:
    """Zeek's ``conn_state`` for a KDD ``flag`` (the same names; unknown → ``None``)."""
    if value is None or is_missing(value):
        return None
    flag = value.strip().upper()
    return flag if flag in NSL_KDD_FLAGS else None


def load_nsl_kdd(
    path: str | Path, *, strict: bool = True, stats: LoadStats | None = None
) -> list[LabeledFlow]:
    """Load an NSL-KDD CSV (with a header, or the headerless 42/43-column ``KDDTest+.txt``).

    ``src_bytes`` (also the typo ``src_byts``) / ``dst_bytes`` → ``orig_bytes`` /
    ``resp_bytes``; ``flag`` is already a Zeek ``conn_state`` code (SF, S0, REJ, RSTO, ...)
    and ``service`` is translated to Zeek's name by :data:`NSL_KDD_SERVICE_MAP`.
    ``normal`` → Benign, any other label → Malicious (``detailed_label`` = attack name,
    ``scenario`` = ``attack_family/attack`` when an ``attack_family`` column exists).
    """
    path = Path(path)
    name, stats = path.name, stats if stats is not None else LoadStats()
    with _open_text(path) as handle:
        lines = _csv_rows(handle)
        first_line, first = next(lines, (1, []))
        if first and first[0].strip().lower() == "duration":
            idx, pending = _index(first), []
            if "src_byts" in idx:
                idx.setdefault("src_bytes", idx["src_byts"])
            _require(name, first_line, idx, *NSL_KDD_COLUMNS[:6], "label")
        elif first and len(first) in (42, 43) and first[0].strip().isdigit():
            idx = {c: i for i, c in enumerate(NSL_KDD_COLUMNS[: len(first)])}
            pending = [(first_line, first)]
        else:
            raise DatasetError(f"{name}: line {first_line}: unrecognised NSL-KDD header")
        width = len(first)

        def convert(line_no: int, row: list[str]) -> LabeledFlow | str:
            _check_width(row, width)
            raw_label = row[idx["label"]].strip()
            if is_missing(raw_label):
                return "unknown"
            benign = raw_label.lower() == "normal"
            family = row[idx["attack_family"]].strip() if "attack_family" in idx else ""
            scenario = raw_label if benign or not family else f"{family}/{raw_label}"
            return _item(
                id=f"{name}:L{line_no}",
                flow={
                    "src_ip": PLACEHOLDER_IP,
                    "dst_ip": PLACEHOLDER_IP,
                    "proto": row[idx["protocol_type"]],
                    "service": nsl_kdd_service(row[idx["service"]]),
                    "duration": row[idx["duration"]],
                    "conn_state": nsl_kdd_flag(row[idx["flag"]]),
                    "orig_bytes": row[idx["src_bytes"]],
                    "resp_bytes": row[idx["dst_bytes"]],
                },
                label="Benign" if benign else "Malicious",
                scenario=scenario,
                fallback_group=f"{name}:L{line_no}",
                source=f"nsl-kdd:{name}",
                detailed_label=None if benign else raw_label,
            )

        return _run_rows(name, [*pending, *lines], convert, strict=strict, stats=stats)


# ---------------------------------------------------------------------------- Hugging Face IoT-23
_HF_ALIASES: dict[str, tuple[str, ...]] = {
    **{target: (zeek, zeek.replace(".", "_")) for zeek, target in ZEEK_FIELDS.items()},
    "src_ip": ("id.orig_h", "id_orig_h", "src_ip"),
    "dst_ip": ("id.resp_h", "id_resp_h", "dst_ip"),
}


def _hf_open(name_or_path: str, split: str, cache_dir: str | None, revision: str | None) -> Any:
    """:func:`sv_shared.hub_datasets.open_dataset`, its errors as :class:`DatasetError`."""
    try:
        return open_dataset(name_or_path, split, cache_dir, revision)
    except HubDatasetError as exc:
        raise DatasetError(str(exc)) from exc


def _expand_combined(row: dict[str, Any], combined: str | None) -> dict[str, Any]:
    """Split an IoT-23 ``tunnel_parents   label   detailed-label`` column into its parts."""
    if combined is None:
        return row
    names = combined.split()
    values = _SPACE_RUN.split(str(row.pop(combined) or "").strip())
    if len(values) != len(names):
        values = str(" ".join(values)).split()
    if len(values) != len(names):
        raise _RowError(f"cannot split {combined!r} into {len(names)} values")
    return row | dict(zip(names, values, strict=True))


def load_hf_iot23(
    name_or_path: str = HF_IOT23_ID,
    split: str = "train",
    *,
    strict: bool = True,
    stats: LoadStats | None = None,
    cache_dir: str | None = None,
    revision: str | None = None,
) -> list[LabeledFlow]:
    """Load a preprocessed IoT-23 table via ``datasets`` (Hub id, or local file/directory).

    Columns use Zeek names (``id.orig_p``, ``proto``, ``conn_state``, ..., ``label``; dots may
    be underscores). The ``19kmunz/iot-23-preprocessed`` table drops ``ts``, ``uid`` and the
    IPs: absent columns are tolerated except ``proto`` and ``label``, and absent IPs become
    :data:`PLACEHOLDER_IP`. Local csv/tsv/parquet/json(l)/arrow files are read whole (``split``
    applies to Hub datasets and ``save_to_disk`` dataset dicts). Errors name the 1-based row.
    """
    local = Path(name_or_path).exists()
    label_name = Path(name_or_path).name if local else name_or_path
    stats = stats if stats is not None else LoadStats()
    ds = _hf_open(name_or_path, split, cache_dir, revision)
    columns = set(ds.column_names)
    combined = next((c for c in columns if len(c.split()) > 1 and "label" in c.split()), None)
    if combined:
        columns |= set(combined.split())
    missing = [c for c in ("proto", "label") if c not in columns]
    if missing:
        raise DatasetError(f"{label_name}: missing required column(s): {missing}")
    mapping = {
        target: next((a for a in aliases if a in columns), None)
        for target, aliases in _HF_ALIASES.items()
    }
    detail_col = next((c for c in _DETAIL_NAMES if c in columns), None)

    def convert(row_no: int, row: dict[str, Any]) -> LabeledFlow | str:
        row = _expand_combined(row, combined)
        label = _binary_label(row["label"])
        if label in (None, "Background"):
            return label or "unknown"
        flow = {k: row[c] for k, c in mapping.items() if c is not None}
        flow.setdefault("src_ip", PLACEHOLDER_IP)
        flow.setdefault("dst_ip", PLACEHOLDER_IP)
        detail = row[detail_col] if detail_col else None
        detail = None if is_missing(detail) else str(detail).strip()
        return _item(
            id=f"hf:{label_name}:{split}:{row_no}",
            flow=flow,
            label=label,
            scenario=detail or label,
            fallback_group=f"hf:{label_name}:{row_no}",
            source=f"hf:{label_name}",
            detailed_label=detail,
        )

    return _run_rows(label_name, iter_rows(ds), convert, strict=strict, stats=stats, where="row")


__all__ = [
    "HF_IOT23_ID",
    "NSL_KDD_SERVICE_MAP",
    "PLACEHOLDER_IP",
    "DatasetError",
    "LoadStats",
    "describe_validation_error",
    "load_cic_ids_2017",
    "load_hf_iot23",
    "load_nsl_kdd",
    "load_unsw_nb15",
    "load_zeek_labeled",
    "nsl_kdd_flag",
    "nsl_kdd_service",
]
