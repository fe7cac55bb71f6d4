"""The metrics a regression gate watches per environment (its `EnvSpec.gate_metrics`), and
which way is better; an environment the registry does not know is gated on `reward_mean`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError
from sv_shared.spec import REWARD, GateMetric

CoreMetric = GateMetric
"""One gated number: `reward_mean` (top level of summary.json) or a key of its `metrics`."""


def core_metrics(env: str) -> tuple[CoreMetric, ...]:
    """The core metrics of an environment given as `e1`, `network-logs` or its package id."""
    try:
        return resolve_env(env).spec.gate_metrics
    except UserError:  # an environment this harness does not list: reward only
        return (REWARD,)


def metric_value(summary: Mapping[str, Any], key: str) -> float | None:
    """A finite number from a summary (`reward_mean` at top level, others under `metrics`)."""
    source = summary if key == "reward_mean" else summary.get("metrics") or {}
    value = source.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None
