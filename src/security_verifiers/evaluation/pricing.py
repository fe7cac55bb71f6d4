"""Known list prices (USD per million tokens) so a run can record what it cost."""

from __future__ import annotations

PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


def cost_usd(
    model_id: str,
    input_tokens: int,
    output_tokens: int,
    price: tuple[float, float] | None = None,
    *,
    free: bool = False,
) -> float | None:
    """Cost of the run, 0 for built-in models, None when no price is known."""
    if free:
        return 0.0
    price = price or PRICES_USD_PER_MTOK.get(model_id)
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 6)
