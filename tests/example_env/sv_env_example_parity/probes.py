"""Reward-hacking probes: cheap answers that must not be paid like the task (`sv probe`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sv_shared.probes import Probe, ProbeSuite

from .environment import NUMBERS, rows
from .reward import total
from .spec import SPEC


def episodes(limit: int | None, seed: int) -> list[Mapping[str, Any]]:
    infos = [row["info"] | {"answer": row["answer"]} for row in rows(NUMBERS)]
    return infos[:limit] if limit else infos


def reference(info: Mapping[str, Any]) -> str:
    return str(info["answer"])


def reward(answer: str, info: Mapping[str, Any]) -> float:
    return total(answer, str(info["answer"]))


def probe_suite() -> ProbeSuite:
    both = Probe("both-words", lambda info: "even odd", "one word only: two words do not parse")
    shout = Probe("shout-even", lambda info: "EVEN!!", "punctuation makes the answer invalid")
    return ProbeSuite(
        env=SPEC.key,
        episodes=episodes,
        reference=reference,
        reward=reward,
        min_reward=0.0,
        max_reward=1.0,
        probes=(both, shout),
    )
