"""E1: gradient boosting on the Zeek conn fields a flow shows (no addresses, uid or ts).

Real sets go through the environment's own loaders, so NSL-KDD arrives already translated to
Zeek's vocabulary: ``service`` via ``loaders.NSL_KDD_SERVICE_MAP`` (KDD names with no Zeek
analyzer, and ICMP pseudo-services, become "-") and ``flag`` as ``conn_state`` (SF, S0..S3,
REJ, RSTO, RSTR, RSTOS0, SH, OTH are Zeek's names already). Only fields the real set records
are used for the fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import OrdinalEncoder

from security_verifiers.sim2real.base import EnvTask, RealSet
from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.flows import LabeledFlow

CATEGORICAL = ("proto", "service", "conn_state", "history")
NUMERIC = (
    "src_port", "dst_port", "duration", "orig_bytes", "resp_bytes", "orig_pkts", "resp_pkts",
    "orig_ip_bytes", "resp_ip_bytes", "local_orig", "local_resp",
)  # fmt: skip
FIELDS = CATEGORICAL + NUMERIC
FORMATS = ("zeek", "nsl-kdd", "cic-ids-2017", "unsw-nb15", "jsonl")
STRATOSPHERE = "E1_network_logs/stratosphere_zeek/011-zeek-mixed_conn.log.labeled.sample500"
NSL_KDD = "E1_network_logs/nsl_kdd/KDDTest+_sample500.csv"


def recorded_fields(items: Sequence[LabeledFlow]) -> tuple[str, ...]:
    """Feature fields set on at least one row (label-blind: what the source records)."""
    return tuple(f for f in FIELDS if any(getattr(i.flow, f) is not None for i in items))


def _column(items: Sequence[LabeledFlow], name: str) -> list[object]:
    return [getattr(item.flow, name) for item in items]


@dataclass
class FlowModel:
    """Ordinal-encoded categoricals + raw numerics (missing = NaN) into HistGradientBoosting."""

    fields: tuple[str, ...]
    encoder: OrdinalEncoder
    clf: HistGradientBoostingClassifier

    def matrix(self, items: Sequence[LabeledFlow]) -> np.ndarray:
        cats = [f for f in self.fields if f in CATEGORICAL]
        nums = [f for f in self.fields if f in NUMERIC]
        parts = []
        if cats:
            raw = np.array([[v or "" for v in _column(items, f)] for f in cats], dtype=object).T
            codes = self.encoder.transform(raw)
            codes[raw == ""] = np.nan
            parts.append(codes)
        if nums:
            raw = [[np.nan if v is None else float(v) for v in _column(items, f)] for f in nums]
            parts.append(np.array(raw, dtype=float).T)
        return np.hstack(parts)

    def proba(self, items: Sequence[LabeledFlow]) -> np.ndarray:
        return self.clf.predict_proba(self.matrix(items))[:, 1]


def fit(train: list[LabeledFlow], seed: int, fields: tuple[str, ...] | None) -> FlowModel:
    """Fit on ``fields`` (default: all) of the synthetic train flows."""
    use = tuple(f for f in FIELDS if f in (fields or FIELDS))
    cats = [f for f in use if f in CATEGORICAL]
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan)
    if cats:
        encoder.fit(np.array([[v or "" for v in _column(train, f)] for f in cats], dtype=object).T)
    mask = [f in CATEGORICAL for f in use] if cats else None
    clf = HistGradientBoostingClassifier(categorical_features=mask, random_state=seed)
    model = FlowModel(use, encoder, clf)
    y = np.array([item.label == "Malicious" for item in train], dtype=int)
    clf.fit(model.matrix(train), y)
    return model


def train_test() -> tuple[list[LabeledFlow], list[LabeledFlow]]:
    """The environment's default synthetic dataset: train and test splits."""
    return load_flows("synthetic", split="train")[0], load_flows("synthetic", split="test")[0]


def load_real(path: Path, fmt: str) -> RealSet:
    """Real flows through the environment's own loaders (Background rows excluded)."""
    items, info = load_flows(fmt, path=str(path), split="all")
    notes = [f"excluded {info.excluded}"] if info.excluded else []
    if info.skipped:
        notes.append(f"skipped {info.skipped} malformed rows")
    return RealSet(f"{fmt}:{path.name}", str(path), items, recorded_fields(items), notes)


def default_real(root: Path) -> list[RealSet]:
    """Stratosphere 011 (Zeek) and NSL-KDD samples from the shared realdata folder."""
    stratosphere = replace(load_real(root / STRATOSPHERE, "zeek"), name="stratosphere-011 (zeek)")
    kdd = replace(load_real(root / NSL_KDD, "nsl-kdd"), name="nsl-kdd test sample")
    kdd.notes.append(
        "NSL-KDD records only proto/service/duration/flag/bytes; the loader maps its service "
        "names to Zeek's (domain_u -> dns, ftp_data -> ftp-data, http_443 -> ssl, private / "
        "other / ICMP pseudo-services -> '-'; see NSL_KDD_SERVICE_MAP) and keeps flag as "
        "conn_state (the same names)"
    )
    return [stratosphere, kdd]


TASK = EnvTask(
    key="e1",
    model_name="HistGradientBoostingClassifier on Zeek conn fields",
    positive="Malicious",
    formats=FORMATS,
    train_test=train_test,
    default_real=default_real,
    load_real=load_real,
    fit=fit,
    label=lambda item: item.label,
)
