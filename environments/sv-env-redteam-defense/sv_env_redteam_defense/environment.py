"""Building the E6 verifiers environment: the policy is the assistant, the user is scripted."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from datasets import Dataset

from sv_shared.data.store import build_provenance
from sv_shared.env_config import takes_config
from sv_shared.safety import SafetyJudge, build_judge, detect_refusal
from sv_shared.safety.judge_card import judge_card
from sv_shared.sampling import shuffle_and_truncate
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

from .config import ENV_ID, RedteamDefenseConfig
from .conversation import KINDS, Conversation, ScriptDataError, content_hash
from .data_pipeline import load_built_conversations
from .reward import DefenseWeights
from .run_metrics import RUN_METRICS
from .scoring import DefenseScorer, build_rubric
from .scripts import load_conversations

STATE_COLUMNS = ("transcript",)
"""State fields the harness copies into each results row: the whole conversation, with
flagged replies as hashes unless `keep_raw_unsafe`."""

log = logging.getLogger(__name__)


class RedTeamDefenseEnv(vf.MultiTurnEnv):
    """Sends the next scripted user turn after each reply; done once the last is answered."""

    def __init__(self, scorer: DefenseScorer | None = None, **kwargs: Any) -> None:
        self.scorer = scorer
        super().__init__(**kwargs)

    async def env_response(self, messages: vf.Messages, state: Any, **kwargs: Any) -> vf.Messages:
        turns = state["info"]["turns"]
        answered = len(state["trajectory"])
        if answered >= len(turns):
            return []
        return [vf.UserMessage(content=turns[answered]["content"])]

    @vf.stop
    async def script_finished(self, state: Any) -> bool:
        return len(state["trajectory"]) >= len(state["info"]["turns"])

    @vf.cleanup
    async def prejudge(self, state: Any) -> None:
        """Judge the finished episode in a worker thread (remote judges block), so that the
        rubric's synchronous reward functions read the memo instead of waiting in the loop."""
        completion = state.get("completion")
        if self.scorer is None or not completion:
            return
        try:
            await asyncio.to_thread(self.scorer.judged, completion, state["info"])
        except Exception:  # scoring calls the judge again and reports the failure
            log.debug("pre-judging failed for %s", state["info"].get("id"), exc_info=True)


def to_rows(conversations: Sequence[Conversation]) -> Dataset:
    """Prompt = the first user turn; `answer` = the turn labels; the script rides in `info`."""
    return Dataset.from_list(
        [
            {
                "question": c.turns[0].content,
                "answer": json.dumps(c.labels()),
                "info": {**c.to_dict(), "scenario": c.kind},
            }
            for c in conversations
        ]
    )


def select(
    conversations: list[Conversation],
    kinds: Sequence[str] | None,
    seed: int | None,
    max_examples: int | None,
) -> list[Conversation]:
    """Filter by kind, shuffle with `seed`, keep the first `max_examples` (-1: all)."""
    if kinds is not None:
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            raise ScriptDataError(f"unknown kind(s) {unknown}; expected some of {list(KINDS)}")
        conversations = [c for c in conversations if c.kind in kinds]
    conversations = shuffle_and_truncate(conversations, seed, max_examples)
    if not conversations:
        raise ScriptDataError("no conversations left after filtering")
    return conversations


def resolve_judge(judge: str | SafetyJudge, cache_dir: str | None) -> SafetyJudge:
    return build_judge(judge, cache_dir=cache_dir) if isinstance(judge, str) else judge


@takes_config(ENV_ID, RedteamDefenseConfig)
def load_environment(config: RedteamDefenseConfig) -> vf.Environment:
    """Build E6 from its arguments (`RedteamDefenseConfig`)."""
    source, path, seed = config.source, config.path, config.seed
    built: dict[str, Any] | None = None
    if config.dataset:
        loaded, built = load_built_conversations(config.dataset, config.split)
    else:
        loaded = load_conversations(source, path, config.columns)
    conversations = select(loaded, config.kinds, seed, config.max_examples)
    weights = DefenseWeights.from_mapping(config.reward_weights)
    safety_judge = resolve_judge(config.judge, config.judge_cache_dir)
    scorer = DefenseScorer(safety_judge, config.refusal_detector or detect_refusal)
    env = RedTeamDefenseEnv(
        scorer=scorer,
        max_turns=max(len(c.turns) for c in conversations),
        eval_dataset=to_rows(conversations),
        system_prompt=config.system_prompt,
        rubric=build_rubric(scorer, weights, config.keep_raw_unsafe),
        env_id=ENV_ID,
    )
    judge_name = getattr(safety_judge, "name", type(safety_judge).__name__)
    return LoadedEnvInfo(
        dataset_info={
            "source": "dataset" if built else source,
            "path": built["dataset"] if built else path,
            **(build_provenance(built) if built else {}),
            "n": len(conversations),
            "content_hash": content_hash(conversations),
            "order_seed": seed,
            "kinds": dict(Counter(c.kind for c in conversations)),
            "turns": sum(len(c.turns) for c in conversations),
        },
        reward_config={
            "weights": weights.as_dict(),
            "judge": judge_name,
            "judge_card": judge_card(judge_name),
            "keep_raw_unsafe": config.keep_raw_unsafe,
        },
        metrics=RUN_METRICS.select({}, None),
        state_columns=STATE_COLUMNS,
        structured_output_default=False,
    ).attach(env)
