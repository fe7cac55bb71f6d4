"""Gold answers for SFT (the spec's `sft_renderer`): the one-word answer itself."""

from __future__ import annotations

from typing import Any


def render_gold(row: dict[str, Any], data: Any) -> str:
    return str(row["answer"])
