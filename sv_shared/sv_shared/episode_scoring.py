"""Score an episode once, serve every reward component from that one result.

Verifiers calls each reward function of a rubric separately. Environments whose scoring is
expensive (applying a patch, scanning, running tests) wrap one scoring function in a
`MemoizedScorer` and expose each component as a rubric function reading from it.

A scoring function that raises must not pass for a model's failure (verifiers would quietly
score it 0): the scorer logs the exception and reports the `scoring_error` metric, which the
evaluation harness turns into an errored (retryable) rollout.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import verifiers as vf

ScoreFn = Callable[[Any, Mapping[str, Any]], Mapping[str, float]]
KeyFn = Callable[[Any, Mapping[str, Any]], Hashable]
SCORING_ERROR = "scoring_error"
"""Metric set to 1.0 when the episode's scoring function raised."""

log = logging.getLogger(__name__)


class MemoizedScorer:
    """`score(completion, info)` computed once per `key(completion, info)` (LRU-bounded)."""

    def __init__(self, score: ScoreFn, key: KeyFn, memo_size: int = 4096) -> None:
        self._score = score
        self._key = key
        self._memo: OrderedDict[Hashable, Mapping[str, float]] = OrderedDict()
        self._memo_size = memo_size

    def __call__(self, completion: Any, info: Mapping[str, Any]) -> Mapping[str, float]:
        key = self._key(completion, info)
        if key in self._memo:
            self._memo.move_to_end(key)
        else:
            self._memo[key] = self._score_safely(completion, info)
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        return self._memo[key]

    def _score_safely(self, completion: Any, info: Mapping[str, Any]) -> Mapping[str, float]:
        try:
            return self._score(completion, info)
        except Exception:
            log.exception("scoring failed for episode %s", info.get("id"))
            return {SCORING_ERROR: 1.0}


def component_rubric(
    scorer: MemoizedScorer,
    names: Sequence[str],
    weights: Mapping[str, float],
    parser: vf.Parser,
) -> vf.Rubric:
    """A rubric with one function per name; names absent from `weights` weigh 0 (metrics).

    Every component reads 0 and `scoring_error` reads 1 when scoring raised.
    """

    def component(name: str) -> Callable[..., float]:
        def reward(completion: Any, info: Mapping[str, Any], **_: Any) -> float:
            return float(scorer(completion, info).get(name, 0.0))

        reward.__name__ = name
        return reward

    all_names = (*names, SCORING_ERROR)
    return vf.Rubric(
        funcs=[component(n) for n in all_names],
        weights=[float(weights.get(n, 0.0)) for n in all_names],
        parser=parser,
    )
