"""Built-in models: `policy(prompt_text, seed) -> reply` (the spec's `baseline_policies`)."""

from __future__ import annotations

from collections.abc import Callable

Policy = Callable[[str, int | None], str]


def number_in(prompt: str) -> int:
    return int(prompt.split("Is ", 1)[1].split()[0])


def compute(prompt: str, seed: int | None = None) -> str:
    """Reads the number and computes the answer (an oracle: it stands in for a label reader)."""
    return "even" if number_in(prompt) % 2 == 0 else "odd"


def baseline_policies() -> dict[str, Policy]:
    return {"always-even": lambda prompt, seed=None: "even", "compute": compute}
