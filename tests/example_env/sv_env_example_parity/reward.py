"""The reward: one word, checked against the number's parity."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

ANSWERS = ("even", "odd")


@dataclass(frozen=True)
class ParityWeights:
    """Weights of the reward components (the spec's `reward_weights` hook)."""

    correct: float = 1.0
    format: float = 0.0

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float] | None) -> ParityWeights:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(mapping or {}) - names)
        if unknown:
            raise ValueError(f"unknown reward weight(s) {unknown}; expected {sorted(names)}")
        return cls(**dict(mapping or {}))


def answer_word(text: str) -> str | None:
    """The answer if it is exactly one of the allowed words (case and spaces ignored)."""
    word = text.strip().lower()
    return word if word in ANSWERS else None


def correct(text: str, gold: str) -> float:
    return 1.0 if answer_word(text) == gold else 0.0


def well_formed(text: str) -> float:
    return 1.0 if answer_word(text) is not None else 0.0


def total(text: str, gold: str, weights: ParityWeights = ParityWeights()) -> float:
    """The weighted reward of a final answer (what a rollout earns)."""
    return weights.correct * correct(text, gold) + weights.format * well_formed(text)
