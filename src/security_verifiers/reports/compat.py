"""Whether two runs may be compared example by example, and if not, why."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from security_verifiers.reports.runs import Run


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _split(run: Run) -> Any:
    return {
        "env_args": run.metadata.get("env_args") or {},
        "split": (run.metadata.get("dataset") or {}).get("split"),
    }


IDENTITY_FIELDS: tuple[tuple[str, Callable[[Run], Any]], ...] = (
    ("environment", lambda r: r.env_id),
    ("dataset hash", lambda r: r.metadata.get("dataset_hash")),
    ("split (env_args)", _split),
    ("seed", lambda r: r.metadata.get("seed")),
    ("reward config", lambda r: r.metadata.get("reward_config")),
    ("target", lambda r: r.metadata.get("target")),
)
"""What must be equal for a paired comparison (the E5 target is part of the task)."""


def incompatibilities(a: Run, b: Run) -> list[str]:
    """Names of the identity fields on which `a` and `b` differ (empty when comparable)."""
    return [name for name, get in IDENTITY_FIELDS if _canonical(get(a)) != _canonical(get(b))]
