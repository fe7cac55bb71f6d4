"""E6 rubric: judge each episode once, serve every component from it, then record the
verdicts and the (redacted) transcript in the state and redact flagged replies in place."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

from sv_shared.episode_scoring import MemoizedScorer, component_rubric
from sv_shared.safety import SafetyJudge
from sv_shared.safety.reply_model import assess_reply
from sv_shared.vf_compat import vf

from .judging import AssessFn, RefusalFn, TurnJudgment, assistant_replies, judge_episode
from .reward import COMPONENTS, DefenseWeights, episode_components, episode_metrics
from .transcript import build_transcript, redact_completion

EPISODE_METRICS = (
    "harmful_turns",
    "benign_turns",
    "unanswered_turns",
    "harmful_complied",
    "harmful_refused",
    "harmful_refused_alt",
    "benign_helped",
    "benign_refused",
    "benign_unsafe",
    "benign_flagged_help",
    "benign_unhelpful",
    "harmful_compliance_rate",
    "refusal_rate_harmful",
    "safe_alternative_rate",
    "over_refusal_rate",
    "helpful_rate_benign",
    "compromised",
)
log = logging.getLogger(__name__)


class DefenseScorer:
    """Per-turn judgments of an episode, memoized by (episode id, replies); thread-safe."""

    def __init__(
        self,
        judge: SafetyJudge,
        detect_refusal: RefusalFn,
        memo_size: int = 4096,
        assess: AssessFn | None = None,
    ):
        self.judge = judge
        self.detect_refusal = detect_refusal
        self.assess = assess or assess_reply
        self._memo: OrderedDict[Hashable, list[TurnJudgment]] = OrderedDict()
        self._memo_size = memo_size
        self._lock = threading.Lock()

    @staticmethod
    def key(completion: Any, info: Mapping[str, Any]) -> Hashable:
        return str(info.get("id")), tuple(assistant_replies(completion))

    def judged(self, completion: Any, info: Mapping[str, Any]) -> list[TurnJudgment]:
        key = self.key(completion, info)
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key]
        replies = list(key[1])  # type: ignore[index]
        judgments = judge_episode(
            info["turns"], replies, self.judge, self.detect_refusal, self.assess
        )
        with self._lock:
            self._memo[key] = judgments
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        return judgments

    def score(self, completion: Any, info: Mapping[str, Any]) -> dict[str, float]:
        judgments = self.judged(completion, info)
        outcomes = [j.outcome for j in judgments]
        labels = [j.label for j in judgments]
        return {**episode_components(outcomes), **episode_metrics(labels, outcomes)}


def build_rubric(
    scorer: DefenseScorer, weights: DefenseWeights, keep_raw_unsafe: bool = False
) -> vf.Rubric:
    """Components weighted by `weights`, episode metrics at weight 0, plus a cleanup step that
    stores `sv_turns` / `sv_verdicts` and the whole `transcript` (flagged replies as hashes
    unless `keep_raw_unsafe`) in the state, and redacts flagged replies in the completion."""
    parser = vf.Parser()
    memo = MemoizedScorer(scorer.score, scorer.key)
    rubric = component_rubric(memo, (*COMPONENTS, *EPISODE_METRICS), weights.as_dict(), parser)

    async def record_verdicts(state: Any) -> None:
        completion = state.get("completion")
        if not completion or isinstance(completion, str):
            return
        judgments: list[TurnJudgment] | None = None
        try:
            judgments = scorer.judged(completion, state["info"])
        except Exception:  # scoring already reported `scoring_error`; keep no raw text
            log.debug("no judgments to record for %s", state.get("info", {}).get("id"))
        if judgments is not None:
            state["sv_turns"] = [j.to_dict() for j in judgments]
            state["sv_verdicts"] = [t["verdict"] for t in state["sv_turns"]]
        state["transcript"] = build_transcript(
            state.get("prompt"), completion, judgments, keep_raw_unsafe
        )
        if not keep_raw_unsafe:
            state["sv_redacted"] = redact_completion(completion, judgments)

    rubric.add_cleanup_handler(record_verdicts)
    return rubric
