"""E1's generator for curricula (the `fresh_rows` hook of its spec): flows, by scenario."""

from __future__ import annotations

from pathlib import Path

from sv_shared.curriculum import FreshRows

from .dataset import write_jsonl
from .flows import LabeledFlow
from .generator import generate_flows


def _generate(size: int, seed: int) -> list[LabeledFlow]:
    return generate_flows(size, seed=seed)


def _scenario(flow: LabeledFlow) -> str:
    return flow.scenario


def _label(flow: LabeledFlow) -> str:
    return flow.label


def _file_env_args(path: Path) -> dict[str, str]:
    return {"source": "jsonl", "path": str(path), "split": "all"}


FRESH_ROWS = FreshRows(_generate, _scenario, _label, write_jsonl, _file_env_args)
