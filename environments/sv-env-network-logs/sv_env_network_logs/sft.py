"""E1's gold answers for SFT (the `sft_renderer` hook of its spec)."""

from __future__ import annotations

import json
from typing import Any

from sv_shared.sft import GoldAnswerOptions, Row, gold_decision, row_info

from .reward import ABSTAIN


def scenario_rationale(row: Row) -> str:
    """A one-line rationale from the generator scenario the row came from ("" if none)."""
    scenario = str(row_info(row).get("scenario") or "")
    kind, _, name = scenario.partition("/")
    name = (name or kind).replace("_", " ").strip()
    if not name:
        return ""
    if kind == "attack":
        return f"Flow pattern is consistent with {name} activity."
    return f"Flow looks like ordinary {name} traffic."


def render_gold(row: Row, data: GoldAnswerOptions) -> str:
    """`{"label", "confidence", "rationale"}` for the gold label (rationale with
    `data.rationale`)."""
    label, confidence = gold_decision(row, data)
    answer: dict[str, Any] = {"label": label, "confidence": confidence}
    if data.rationale:
        answer["rationale"] = (
            "The record alone does not separate benign from malicious traffic."
            if label == ABSTAIN
            else scenario_rationale(row)
        )
    return json.dumps(answer)
