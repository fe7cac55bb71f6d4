"""E1's sim-to-real task (`sv sim2real`): the learned baseline's model
(:mod:`sv_env_network_logs.learned`) on real flows.

Real sets go through the environment's own loaders, so NSL-KDD arrives already translated to
Zeek's vocabulary: ``service`` via ``loaders.NSL_KDD_SERVICE_MAP`` (KDD names with no Zeek
analyzer, and ICMP pseudo-services, become "-") and ``flag`` as ``conn_state`` (SF, S0..S3,
REJ, RSTO, RSTR, RSTOS0, SH, OTH are Zeek's names already). Only fields the real set records
are used for the fit.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.learned import fit, recorded_fields
from sv_shared.sim2real import EnvTask, RealSet

FORMATS = ("zeek", "nsl-kdd", "cic-ids-2017", "unsw-nb15", "jsonl")
STRATOSPHERE = "E1_network_logs/stratosphere_zeek/011-zeek-mixed_conn.log.labeled.sample500"
NSL_KDD = "E1_network_logs/nsl_kdd/KDDTest+_sample500.csv"


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
    model_name="HistGradientBoostingClassifier on Zeek conn fields",
    positive="Malicious",
    formats=FORMATS,
    train_test=train_test,
    default_real=default_real,
    load_real=load_real,
    fit=fit,
    label=lambda item: item.label,
)
