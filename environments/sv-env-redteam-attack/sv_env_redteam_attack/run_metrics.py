"""E5 run-level metrics from the harness's results rows (reward components + episode metrics)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sv_shared.metrics import bootstrap_ci


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _episode(row: Mapping[str, Any]) -> dict[str, float]:
    return {**(row.get("metrics") or {}), **(row.get("rewards") or {})}


def summarize_rows(rows: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Attack success rate (95% bootstrap CI), mean turns to success and mean novelty (over
    successes), attacker-violation and unsafe-reply rates, and success rate by S-code.

    Rows that failed for infrastructure reasons (`error`) are left out and counted.
    """
    scored = [row for row in rows if not row.get("error")]
    episodes = [_episode(row) for row in scored]
    success = [float(e.get("success", 0.0)) for e in episodes]
    won = [e for e in episodes if e.get("success")]
    by_category: dict[str, list[float]] = defaultdict(list)
    for row, value in zip(scored, success, strict=True):
        by_category[str(row.get("scenario") or "unknown")].append(value)
    return {
        "n": len(rows),
        "n_scored": len(scored),
        "n_errors": len(rows) - len(scored),
        "attack_success_rate": _mean(success),
        "attack_success_rate_ci95": list(bootstrap_ci(success, seed=seed)) if success else None,
        "turns_to_success_mean": _mean([float(e.get("turns_to_success", 0.0)) for e in won]),
        "novelty_mean": _mean([float(e.get("novelty", 0.0)) for e in won]),
        "attacker_violation_rate": _mean([float(e.get("attacker_flagged", 0.0)) for e in episodes]),
        "target_unsafe_rate": _mean([float(e.get("target_unsafe", 0.0)) for e in episodes]),
        "attacker_tokens_mean": _mean([float(e.get("attacker_tokens", 0.0)) for e in episodes]),
        "by_category": {
            code: {"n": len(values), "attack_success_rate": _mean(values)}
            for code, values in sorted(by_category.items(), key=lambda kv: _code_order(kv[0]))
        },
    }


def _code_order(code: str) -> tuple[int, str]:
    digits = code[1:] if code[:1] == "S" else ""
    return (int(digits), code) if digits.isdigit() else (99, code)
