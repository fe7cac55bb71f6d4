"""The metrics a regression gate watches per environment, and which way is better."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError


@dataclass(frozen=True)
class CoreMetric:
    """One gated number: `reward_mean` (top level of summary.json) or a key of its `metrics`."""

    key: str
    higher_is_better: bool = True

    @property
    def arrow(self) -> str:
        return "↑" if self.higher_is_better else "↓"


REWARD = CoreMetric("reward_mean")
_CLASSIFICATION = (REWARD, CoreMetric("accuracy"), CoreMetric("f1"), CoreMetric("brier", False))

CORE_METRICS: dict[str, tuple[CoreMetric, ...]] = {
    "sv-env-network-logs": _CLASSIFICATION,
    "sv-env-config-verification": (
        REWARD,
        CoreMetric("detection_f1"),
        CoreMetric("patch_success_rate"),
    ),
    "sv-env-code-vulnerability": (REWARD, CoreMetric("repair_rate")),
    "sv-env-phishing-detection": _CLASSIFICATION,
    "sv-env-redteam-attack": (REWARD, CoreMetric("attack_success_rate")),
    "sv-env-redteam-defense": (
        REWARD,
        CoreMetric("harmful_compliance_rate", False),
        CoreMetric("over_refusal_rate", False),
    ),
}
"""Per environment id; an environment not listed is gated on `reward_mean` alone."""


def core_metrics(env: str) -> tuple[CoreMetric, ...]:
    """The core metrics of an environment given as `e1`, `network-logs` or its package id."""
    try:
        env_id = resolve_env(env).env_id
    except UserError:  # an environment this harness does not list: reward only
        env_id = env
    return CORE_METRICS.get(env_id, (REWARD,))


def metric_value(summary: Mapping[str, Any], key: str) -> float | None:
    """A finite number from a summary (`reward_mean` at top level, others under `metrics`)."""
    source = summary if key == "reward_mean" else summary.get("metrics") or {}
    value = source.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None
