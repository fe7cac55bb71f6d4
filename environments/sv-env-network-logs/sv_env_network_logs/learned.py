"""The learned E1 baseline: gradient boosting on the Zeek conn fields a flow shows.

Addresses, uid and ts are not features. The model is fit on the default synthetic *train*
split only (deterministic: fixed seed, pinned scikit-learn), once per process; the sim-to-real
run (`sv sim2real e1`) fits the same model, restricted to the fields a real set records.
`python -m sv_env_network_logs.learned_card` prints the fit card (train hash, dev and test reward).

As an `sv eval` baseline (``learned``) it answers the label with the best expected reward
under the environment's payoffs (a missed attack costs 2, a false alarm 1, abstaining 0):
Malicious when P(malicious) > 1/2, Benign when it is < 1/3, Abstain in between.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import OrdinalEncoder

from sv_env_network_logs.dataset import load_flows
from sv_env_network_logs.flows import Flow, LabeledFlow
from sv_env_network_logs.reward import ABSTAIN, build_payoffs
from sv_shared.rewards import best_decision

SEED = 0
CATEGORICAL = ("proto", "service", "conn_state", "history")
NUMERIC = (
    "src_port", "dst_port", "duration", "orig_bytes", "resp_bytes", "orig_pkts", "resp_pkts",
    "orig_ip_bytes", "resp_ip_bytes", "local_orig", "local_resp",
)  # fmt: skip
FIELDS = CATEGORICAL + NUMERIC


def recorded_fields(items: Sequence[LabeledFlow]) -> tuple[str, ...]:
    """Feature fields set on at least one row (label-blind: what the source records)."""
    return tuple(f for f in FIELDS if any(getattr(_flow(i), f) is not None for i in items))


def _flow(item: LabeledFlow | Flow) -> Flow:
    return item.flow if isinstance(item, LabeledFlow) else item


def _column(items: Sequence[LabeledFlow | Flow], name: str) -> list[object]:
    return [getattr(_flow(item), name) for item in items]


@dataclass
class FlowModel:
    """Ordinal-encoded categoricals + raw numerics (missing = NaN) into HistGradientBoosting."""

    fields: tuple[str, ...]
    encoder: OrdinalEncoder
    clf: HistGradientBoostingClassifier

    def matrix(self, items: Sequence[LabeledFlow | Flow]) -> np.ndarray:
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

    def proba(self, items: Sequence[LabeledFlow | Flow]) -> np.ndarray:
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


@lru_cache(maxsize=1)
def default_model() -> FlowModel:
    """The baseline's model: all fields, fit on the default synthetic train split."""
    return fit(load_flows("synthetic", split="train")[0], SEED, None)


def decide(p_malicious: float) -> tuple[str, float]:
    """(label, confidence) with the best expected reward under the default payoffs."""
    return best_decision(p_malicious, build_payoffs(), "Malicious", "Benign", ABSTAIN)


def predict(flow: Flow) -> tuple[str, float, float]:
    """(label, confidence, P(malicious)) for one flow."""
    p = float(default_model().proba([flow])[0])
    return (*decide(p), p)
