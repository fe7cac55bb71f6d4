"""E4's gold answers for SFT (the `sft_renderer` hook of its spec): label, confidence, and for
phishing the indicators the extractor confirmed on the email."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from sv_shared.sft import GoldAnswerOptions, GoldRenderer, Row, gold_decision, row_info

from .records import PHISHING

EVIDENCE_KEY = "_sv_evidence"
"""Row key of the evidence list `order_evidence` chose (frequency order)."""


def indicator_counts(rows: Sequence[Row]) -> Counter[str]:
    """How often each indicator fires on the rows whose gold label is Phishing."""
    return Counter(
        str(name)
        for row in rows
        if row.get("answer") == PHISHING
        for name in set(row_info(row).get("indicators") or [])
    )


def gold_evidence(row: Row, data: GoldAnswerOptions, counts: Counter[str] | None) -> list[str]:
    """The row's confirmed indicators in `data.evidence_order` (by `counts` for frequency,
    ties by name), at most `data.evidence_max`."""
    names = sorted(str(name) for name in row_info(row).get("indicators") or [])
    if data.evidence_order == "frequency" and counts is not None:
        names.sort(key=lambda name: -counts[name])  # stable: ties stay alphabetical
    return names[: data.evidence_max]


def order_evidence(rows: list[Row], data: GoldAnswerOptions) -> list[Row]:
    """With `evidence_order: frequency`, copies of `rows` with their evidence ordered by how
    often each indicator fires on the rows' phishing emails; else `rows`."""
    if data.evidence_order != "frequency":
        return rows
    counts = indicator_counts(rows)
    return [{**row, EVIDENCE_KEY: gold_evidence(row, data, counts)} for row in rows]


def _render(row: Row, data: GoldAnswerOptions) -> str:
    label, confidence = gold_decision(row, data)
    evidence = row.get(EVIDENCE_KEY) or gold_evidence(row, data, None)
    evidence = list(evidence) if label == PHISHING else []
    return json.dumps({"label": label, "confidence": confidence, "evidence": evidence})


render_gold = GoldRenderer(_render, prepare=order_evidence)
"""Label, confidence, and (for phishing) the confirmed indicators (`order_evidence` first)."""
