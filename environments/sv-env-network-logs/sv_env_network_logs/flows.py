"""The one canonical network-flow schema (modelled on Zeek ``conn.log``).

Every loader and the synthetic generator produce :class:`LabeledFlow` items, so the
rest of the environment only ever sees one shape of data.

Normalisation rules (applied before type validation, so any source can be fed in):

* Missing markers become ``None``: Zeek ``-`` / ``(empty)``, blank CSV cells, ``NaN``,
  ``inf`` / ``Infinity`` (any sign), ``None`` / ``null``.
* Ports must be integers in 0..65535 (hex strings such as ``0x0035`` are accepted).
* Counts (bytes, packets) must be non-negative integers; ``12.0`` is accepted, ``1.5`` is not.
* IP addresses must parse with :mod:`ipaddress` (IPv4 or IPv6) and are stored in their
  canonical compressed form.
* ``proto`` is lower-cased; IANA numbers 1/6/17/58 map to icmp/tcp/udp/icmp and other numbers
  to ``unknown_transport`` (Zeek's own token). Non-numeric names other than tcp/udp/icmp are
  kept (UNSW-NB15 has e.g. ``arp``, ``ospf``).
* Free-text token fields (uid, service, conn_state, history, proto) may not contain
  whitespace, control characters or backticks, and are at most 128 characters: they are shown
  to the model verbatim, so this keeps data from breaking out of the rendered block.
"""

from __future__ import annotations

import ipaddress
import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

Label = Literal["Benign", "Malicious"]
LABELS: tuple[Label, Label] = ("Benign", "Malicious")

MISSING_TOKENS = frozenset(
    {
        "",
        "-",
        "(empty)",
        "nan",
        "inf",
        "+inf",
        "-inf",
        "infinity",
        "+infinity",
        "-infinity",
        "none",
        "null",
    }
)

PORT_FIELDS = ("src_port", "dst_port")
COUNT_FIELDS = (
    "orig_bytes",
    "resp_bytes",
    "orig_pkts",
    "resp_pkts",
    "orig_ip_bytes",
    "resp_ip_bytes",
)
FLOAT_FIELDS = ("ts", "duration")
BOOL_FIELDS = ("local_orig", "local_resp")
TOKEN_FIELDS = ("uid", "service", "conn_state", "history")
IP_FIELDS = ("src_ip", "dst_ip")

IP_PROTO_NAMES = {1: "icmp", 6: "tcp", 17: "udp", 58: "icmp"}
_TOKEN_RE = re.compile(r"^[^\s`\x00-\x1f\x7f]{1,128}$")
_TRUE = frozenset({"t", "true", "1", "yes", "y"})
_FALSE = frozenset({"f", "false", "0", "no", "n"})


def is_missing(value: Any) -> bool:
    """True for ``None``, NaN/inf floats and the textual missing markers."""
    if value is None:
        return True
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return value.strip().lower() in MISSING_TOKENS
    return False


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, str) else f"'{value}'"


def parse_int(value: Any, field: str, *, allow_hex: bool = False) -> int | None:
    """Parse an integer-valued field; missing markers give ``None``."""
    if is_missing(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field} {_show(value)} is not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise ValueError(f"{field} {_show(value)} is not an integer")
    if isinstance(value, str):
        text = value.strip()
        try:
            if allow_hex and text.lower().startswith("0x"):
                return int(text, 16)
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{field} {_show(value)} is not an integer") from None
        if number.is_integer():
            return int(number)
        raise ValueError(f"{field} {_show(value)} is not an integer")
    raise ValueError(f"{field} {_show(value)} is not an integer")


def parse_port(value: Any, field: str) -> int | None:
    """Parse a port number (0..65535)."""
    try:
        port = parse_int(value, field, allow_hex=True)
    except ValueError:
        raise ValueError(f"{field} {_show(value)} is not a valid port") from None
    if port is not None and not 0 <= port <= 65535:
        raise ValueError(f"{field} {_show(value)} is not a valid port")
    return port


def parse_count(value: Any, field: str) -> int | None:
    """Parse a non-negative count."""
    count = parse_int(value, field)
    if count is not None and count < 0:
        raise ValueError(f"{field} {_show(value)} is negative")
    return count


def parse_float(value: Any, field: str) -> float | None:
    """Parse a finite float; missing markers and NaN/inf give ``None``."""
    if is_missing(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field} {_show(value)} is not a number")
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise ValueError(f"{field} {_show(value)} is not a number") from None
    return number if math.isfinite(number) else None


def parse_bool(value: Any, field: str) -> bool | None:
    """Parse Zeek ``T``/``F`` and common boolean spellings."""
    if is_missing(value):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ValueError(f"{field} {_show(value)} is not a boolean")


def parse_ip(value: Any, field: str) -> str:
    """Parse a required IPv4/IPv6 address into canonical form."""
    if is_missing(value):
        raise ValueError(f"{field} is required")
    try:
        return str(ipaddress.ip_address(str(value).strip()))
    except ValueError:
        raise ValueError(f"{field} {_show(value)} is not a valid IP address") from None


def parse_token(value: Any, field: str) -> str | None:
    """Parse a short whitespace-free token (uid, service, history, ...)."""
    if is_missing(value):
        return None
    text = str(value).strip()
    if not _TOKEN_RE.match(text):
        raise ValueError(f"{field} {_show(value)} is not a valid token")
    return text


def parse_proto(value: Any, field: str = "proto") -> str:
    """Normalise a transport protocol name or IANA number."""
    if is_missing(value):
        raise ValueError(f"{field} is required")
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = parse_int(value, field)
        return IP_PROTO_NAMES.get(number, "unknown_transport")  # type: ignore[arg-type]
    text = str(value).strip().lower()
    if text.isdigit():
        return IP_PROTO_NAMES.get(int(text), "unknown_transport")
    token = parse_token(text, field)
    if token is None:
        raise ValueError(f"{field} is required")
    return token


def normalize_flow_fields(data: dict[str, Any]) -> dict[str, Any]:
    """Apply every field parser to a raw mapping; raises ``ValueError`` naming the field."""
    out = dict(data)
    for name in PORT_FIELDS:
        if name in out:
            out[name] = parse_port(out[name], name)
    for name in COUNT_FIELDS:
        if name in out:
            out[name] = parse_count(out[name], name)
    for name in FLOAT_FIELDS:
        if name in out:
            out[name] = parse_float(out[name], name)
    if out.get("duration") is not None and out["duration"] < 0:
        raise ValueError(f"duration {out['duration']!r} is negative")
    for name in BOOL_FIELDS:
        if name in out:
            out[name] = parse_bool(out[name], name)
    for name in TOKEN_FIELDS:
        if name in out:
            out[name] = parse_token(out[name], name)
    for name in IP_FIELDS:
        out[name] = parse_ip(out.get(name), name)
    out["proto"] = parse_proto(out.get("proto"))
    return out


class Flow(BaseModel):
    """One connection record in Zeek ``conn.log`` terms (``src`` = originator)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ts: float | None = None
    uid: str | None = None
    src_ip: str
    src_port: int | None = None
    dst_ip: str
    dst_port: int | None = None
    proto: str
    service: str | None = None
    duration: float | None = None
    orig_bytes: int | None = None
    resp_bytes: int | None = None
    conn_state: str | None = None
    history: str | None = None
    orig_pkts: int | None = None
    resp_pkts: int | None = None
    orig_ip_bytes: int | None = None
    resp_ip_bytes: int | None = None
    local_orig: bool | None = None
    local_resp: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return normalize_flow_fields(data)
        return data


def _required_text(value: Any, field: str) -> str:
    if is_missing(value) or not str(value).strip():
        raise ValueError(f"{field} is required")
    return str(value).strip()


class LabeledFlow(BaseModel):
    """A flow with its ground truth and provenance (never shown to the model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    flow: Flow
    label: Label
    scenario: str
    group: str
    source: str
    detailed_label: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for name in ("id", "scenario", "group", "source"):
            out[name] = _required_text(out.get(name), name)
        label = out.get("label")
        if isinstance(label, str) and label.strip().lower() in ("benign", "malicious"):
            out["label"] = label.strip().capitalize()
        detail = out.get("detailed_label")
        out["detailed_label"] = None if is_missing(detail) else str(detail).strip()
        return out
