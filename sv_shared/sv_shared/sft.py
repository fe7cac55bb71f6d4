"""Gold-answer renderers for SFT: what an environment's `sft_renderer` hook names.

A renderer turns one training row into the chat reply its gold answer is (the environment's
answer JSON). The harness passes its SFT data options as `GoldAnswerOptions` and may have
decided a row's label and confidence already (calibration): `gold_decision` reads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

Row = dict[str, Any]

LABEL_KEY = "_sv_label"
"""Row key of the label the harness decided for the gold answer (calibration: maybe Abstain)."""
CONFIDENCE_KEY = "_sv_confidence"
"""Row key of the confidence the harness decided for the gold answer."""


class GoldAnswerOptions(Protocol):
    """The SFT data options a renderer reads (the harness's `SFTData`)."""

    @property
    def confidence(self) -> float: ...

    @property
    def rationale(self) -> bool: ...

    @property
    def evidence_order(self) -> str: ...

    @property
    def evidence_max(self) -> int: ...


Renderer = Callable[[Row, GoldAnswerOptions], str]
RowsPass = Callable[[list[Row], GoldAnswerOptions], list[Row]]


@dataclass(frozen=True)
class GoldRenderer:
    """A renderer that first looks at all the rows it will render (`prepare` returns them,
    e.g. with what they need from the others added); call it like a `Renderer`."""

    render: Renderer
    prepare: RowsPass | None = None

    def __call__(self, row: Row, data: GoldAnswerOptions) -> str:
        return self.render(row, data)

    def prepared(self, rows: list[Row], data: GoldAnswerOptions) -> list[Row]:
        return self.prepare(rows, data) if self.prepare is not None else rows


def prepare_rows(renderer: Renderer, rows: list[Row], data: GoldAnswerOptions) -> list[Row]:
    """`rows` as `renderer` wants them: prepared by a `GoldRenderer`, else unchanged."""
    return renderer.prepared(rows, data) if isinstance(renderer, GoldRenderer) else rows


def row_info(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's `info` as a dict (datasets may store it as a JSON string)."""
    info = row.get("info") or {}
    return json.loads(info) if isinstance(info, str) else dict(info)


def gold_decision(row: Mapping[str, Any], data: GoldAnswerOptions) -> tuple[str, float]:
    """(label, confidence): the gold label and `data.confidence`, or the decision the harness
    stored in the row (`LABEL_KEY`, `CONFIDENCE_KEY`)."""
    return str(row.get(LABEL_KEY) or row["answer"]), float(row.get(CONFIDENCE_KEY, data.confidence))


__all__ = [
    "CONFIDENCE_KEY",
    "LABEL_KEY",
    "GoldAnswerOptions",
    "GoldRenderer",
    "Renderer",
    "Row",
    "RowsPass",
    "gold_decision",
    "prepare_rows",
    "row_info",
]
