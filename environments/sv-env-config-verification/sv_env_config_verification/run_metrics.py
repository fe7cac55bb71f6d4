"""E2 run-level metrics from the harness's results rows (parsed answers + episode metrics)."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from sv_env_config_verification.reward import EpisodeRecord, audit_metrics
from sv_shared.run_metrics import RunMetrics


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def summarize_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Detection precision/recall/F1 (overall and by severity), clean-config pass rate, false
    positives on clean configs, patch success rate, introduced violations, tool use."""
    records, vulnerable, applied, tool_calls = [], [], [], []
    for row in rows:
        oracle = json.loads(row.get("gold") or "[]")
        parsed = row.get("parsed")
        reported = [v["id"] for v in parsed["violations"]] if parsed else None
        records.append(EpisodeRecord(reported=reported, oracle=oracle))
        episode = {**(row.get("metrics") or {}), **(row.get("rewards") or {})}
        if oracle:
            vulnerable.append(float(episode.get("patch_fixed_all", 0.0)))
        if episode.get("patch_applied"):
            applied.append(float(episode.get("new_violations", 0.0)))
        tool_calls.append(float(episode.get("total_tool_calls", 0.0)))
    detection = audit_metrics(records)
    invalid = sum(1 for row in rows if row.get("parsed") is None)
    out: dict[str, Any] = {
        "n": len(rows),
        "invalid_rate": invalid / len(rows) if rows else None,
        "detection_precision": detection.get("micro_precision"),
        "detection_recall": detection.get("micro_recall"),
        "detection_f1": detection.get("micro_f1"),
        "clean_pass_rate": detection.get("clean_pass_rate"),
        "false_positives_on_clean": detection.get("clean_false_positives_per_config"),
        "patch_success_rate": _mean(vulnerable),
        "new_violations_mean": _mean(applied),
        "patches_applied": len(applied),
        "tool_calls_mean": _mean(tool_calls),
    }
    out.update({k: v for k, v in detection.items() if k.split("_")[0] in ("low", "med", "high")})
    return out


DEFINITIONS: dict[str, str] = {
    "detection_precision": "reported violations that the oracle also finds / reported "
    "violations (micro, E2).",
    "detection_recall": "oracle violations the model reported / oracle violations (micro, E2).",
    "detection_f1": "harmonic mean of detection precision and recall (E2).",
    "clean_pass_rate": "clean configurations (no oracle violation) with no reported violation "
    "(E2).",
    "false_positives_on_clean": "reported violations per clean configuration (E2, lower is "
    "better).",
    "patch_success_rate": "vulnerable configurations whose patch fixed every oracle violation "
    "/ vulnerable configurations (E2).",
    "new_violations_mean": "violations introduced per applied patch (E2, lower is better).",
    "tool_calls_mean": "tool calls per episode (E2).",
}

RUN_METRICS = RunMetrics(lambda _env_args, _payoffs: summarize_rows, DEFINITIONS)
"""`summarize_rows` whatever the env args; the E2-specific metric definitions."""
