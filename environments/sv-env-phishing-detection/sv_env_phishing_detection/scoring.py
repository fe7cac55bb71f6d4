"""E4 rubric: every reward component and episode metric from one scoring of each answer."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sv_shared.episode_scoring import MemoizedScorer, component_rubric
from sv_shared.rewards import Payoffs
from sv_shared.vf_compat import vf

from .answer import TriageParser
from .reward import COMPONENTS, TriageWeights, triage_components

EPISODE_METRICS = (
    "evidence_items",
    "evidence_verified",
    "evidence_supporting",
    "evidence_quotes",
    "evidence_indicators",
)
"""Per-episode counts; `evidence_supporting`: items that show a confirmed indicator."""


def score_answer(
    completion: Any,
    answer: str,
    info: Mapping[str, Any],
    parser: TriageParser,
    payoffs: Payoffs,
    catalogue: Collection[str],
) -> dict[str, float]:
    """Components plus evidence counts for one completion on one email."""
    result = parser.parse_completion(completion)
    parts = triage_components(result, answer, info["text"], info["indicators"], catalogue, payoffs)
    checks = parts.pop("checks")
    return {
        **{name: float(parts[name]) for name in COMPONENTS},
        "evidence_items": float(len(checks)),
        "evidence_verified": float(sum(c.verified for c in checks)),
        "evidence_supporting": float(sum(bool(c.supports) for c in checks)),
        "evidence_quotes": float(sum(c.item.kind == "quote" for c in checks)),
        "evidence_indicators": float(sum(c.item.kind == "indicator" for c in checks)),
    }


def build_rubric(
    parser: TriageParser, payoffs: Payoffs, weights: TriageWeights, catalogue: Collection[str]
) -> vf.Rubric:
    def score(completion: Any, info: Mapping[str, Any]) -> dict[str, float]:
        return score_answer(completion, info["gold"], info, parser, payoffs, catalogue)

    def key(completion: Any, info: Mapping[str, Any]) -> tuple[str, str]:
        text = completion if isinstance(completion, str) else repr(completion)
        return str(info.get("id")), text

    scorer = MemoizedScorer(score, key)
    return component_rubric(scorer, (*COMPONENTS, *EPISODE_METRICS), weights.as_dict(), parser)
