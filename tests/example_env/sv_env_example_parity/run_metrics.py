"""Run metrics from scored rows: the one function summaries and reports both use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sv_shared.run_metrics import RunMetrics


def _correct(row: Mapping[str, Any]) -> float:
    return float((row.get("metrics") or {}).get("reward_correct") or 0.0)


def summarize_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"accuracy": sum(map(_correct, rows)) / len(rows) if rows else 0.0}


RUN_METRICS = RunMetrics(
    lambda _env_args, _payoffs: summarize_rows,
    {"accuracy": "answers naming the number's parity / all scored examples."},
    {"accuracy": _correct},
)
