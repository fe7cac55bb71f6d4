"""Round selection for expert iteration: score the policy on held-out rows before the first
round and after each, and end the stage on the best-scoring adapter.

An expert-iteration round can make the policy worse (its kept answers are few and noisy: on
E4 the same recipe gained or lost reward over SFT depending on the seed), and nothing in the
round itself says so. A held-out split that neither SFT nor RL trains on says so, and ending
on the best adapter turns a harmful round into a wasted one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class HeldOut:
    """Rows of one environment's held-out split and the scorer of its own reward
    (`rewards.EnvScorer` of the environment loaded on that split)."""

    env_key: str
    rows: list[dict[str, Any]]
    scorer: Any


def held_out_rows(
    rows: Sequence[dict[str, Any]], items: int | None, seed: int
) -> list[dict[str, Any]]:
    """The first `items` of `rows` shuffled by `seed` (all of them when there are fewer, or
    when `items` is None)."""
    picked = list(rows)
    random.Random(seed).shuffle(picked)
    return picked if items is None else picked[:items]


def adapter_snapshot(model: Any) -> dict[str, Any]:
    """A copy of the policy's trainable adapter weights (LoRA), detached from training."""
    from peft import get_peft_model_state_dict

    return {key: value.detach().clone() for key, value in get_peft_model_state_dict(model).items()}


def restore_adapter(model: Any, snapshot: dict[str, Any]) -> None:
    """Put `snapshot`'s adapter weights back into the policy."""
    from peft import set_peft_model_state_dict

    result = set_peft_model_state_dict(model, snapshot)
    unexpected = getattr(result, "unexpected_keys", None)
    if unexpected:
        raise RuntimeError(f"adapter snapshot does not fit the policy: {unexpected[:3]}")


@dataclass
class BestRound:
    """The best-scoring adapter seen so far: round 0 is the stage's start."""

    round: int = -1
    score: float = float("-inf")
    scores: list[float] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None

    def offer(self, round_index: int, score: float, model: Any) -> bool:
        """Record `score` of the policy after `round_index` rounds; keep its adapter when it
        beats every earlier one (a tie keeps the earlier, less-trained one)."""
        self.scores.append(score)
        if score > self.score:
            self.round, self.score = round_index, score
            self.snapshot = adapter_snapshot(model)
            return True
        return False
