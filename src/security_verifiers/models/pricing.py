"""List prices (USD per million tokens) so a run can record what it cost.

Each provider keeps its own table (in its module, `Provider.price`); `PRICES_AS_OF` says when
they were taken from the providers' pricing pages. A dated snapshot id (`gpt-5-mini-2025-08-07`,
`claude-sonnet-4-5-20250929`) or a `-latest` alias gets its family's price; any other suffix
does not (`claude-opus-4-7` is not `claude-opus-4`).
`--price-in/--price-out` override the tables. Reasoning tokens are billed as output tokens and
are already part of the completion tokens every provider reports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from security_verifiers.models.capabilities import normalise_model_id

PRICES_AS_OF = "2025-11"
"""When the tables were read off the providers' pricing pages (standard tier, no batch or
cache discounts, prompts under 200k tokens)."""

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest|preview(-\d{2}-\d{4})?)$")


def list_price(
    table: Mapping[str, tuple[float, float]], model_id: str
) -> tuple[float, float] | None:
    """The price of `model_id` in `table`: its own entry, or its family's when the id is that
    family plus a snapshot date / `-latest` / `-preview` suffix; None when unknown."""
    name = normalise_model_id(model_id)
    if name in table:
        return table[name]
    for family in sorted(table, key=len, reverse=True):
        if name.startswith(family) and _SNAPSHOT.fullmatch(name[len(family) :]):
            return table[family]
    return None


def cost_usd(
    input_tokens: int,
    output_tokens: int,
    price: tuple[float, float] | None = None,
    *,
    free: bool = False,
) -> float | None:
    """Cost of the run at `price` (input, output USD per million tokens); 0 for built-in
    models, None when no price is known."""
    if free:
        return 0.0
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 6)
