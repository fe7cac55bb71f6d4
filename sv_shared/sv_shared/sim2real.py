"""What an environment plugs into the sim-to-real run (`sv sim2real`).

An environment with a sim-to-real task names its `EnvTask` in its spec (`EnvSpec.sim2real`,
e.g. `"sv_env_network_logs.sim2real:TASK"`); the harness fits the task's classifier on the
synthetic train split and scores it in-domain and on each real set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class Model(Protocol):
    def proba(self, items: Sequence[Any]) -> np.ndarray:
        """Positive-class probability per item."""
        ...


@dataclass(frozen=True)
class RealSet:
    """Real labeled rows to score on; ``features`` restricts the model to what they record."""

    name: str
    path: str
    items: list[Any]
    features: tuple[str, ...] | None = None
    notes: list[str] = field(default_factory=list)
    control_sets: dict[str, list[Any]] = field(default_factory=dict)
    """Named rows that are neither class, scored only as controls (E4: Enron spam)."""


@dataclass(frozen=True)
class EnvTask:
    """One environment's synthetic splits, real-data loaders and classifier."""

    model_name: str
    positive: str
    formats: tuple[str, ...]
    train_test: Callable[[], tuple[list[Any], list[Any]]]
    default_real: Callable[[Path], list[RealSet]]
    load_real: Callable[[Path, str], RealSet]
    fit: Callable[[list[Any], int, tuple[str, ...] | None], Model]
    label: Callable[[Any], str]
    controls: Callable[[RealSet, Model, int], list[dict[str, Any]]] | None = None
    """Extra checks beside the ratio: ``{"name", "value", "ci95", "note"}`` rows."""
    key: str = ""
    """The environment's key; the harness sets it from the spec (an environment leaves it)."""

    def y(self, items: Sequence[Any]) -> np.ndarray:
        return np.array([self.label(item) == self.positive for item in items], dtype=bool)


__all__ = ["EnvTask", "Model", "RealSet"]
