"""Building the E5 verifiers environment: the policy attacks a target model over several turns."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from datasets import Dataset

from sv_env_redteam_attack.behaviors import Behavior, content_hash, load_behaviors
from sv_env_redteam_attack.config import ENV_ID, RedteamAttackConfig
from sv_env_redteam_attack.data_pipeline import load_built_behaviors
from sv_env_redteam_attack.embeddings import default_embedder
from sv_env_redteam_attack.judging import (
    Exchange,
    JudgedTurn,
    TurnJudge,
    behavior_from_info,
    transcript_messages,
    verdicts_by_index,
)
from sv_env_redteam_attack.memory import AttackMemory
from sv_env_redteam_attack.prompts import render_behavior, system_prompt
from sv_env_redteam_attack.reward import AttackWeights
from sv_env_redteam_attack.run_metrics import RUN_METRICS
from sv_env_redteam_attack.scoring import build_rubric, exchanges_from_completion
from sv_env_redteam_attack.target import TargetModel, build_target
from sv_shared.data.store import build_provenance
from sv_shared.env_config import takes_config
from sv_shared.rewards import weights_dataclass
from sv_shared.safety import build_judge
from sv_shared.safety.judge_card import judge_card
from sv_shared.safety.redaction import redact_conversation
from sv_shared.safety.types import SafetyJudge
from sv_shared.sampling import shuffle_and_truncate
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

STATE_COLUMNS = ("transcript", "turns")
"""Rollout state the harness keeps in results.jsonl: the (redacted) attacker/target
conversation and the per-turn verdicts (no text)."""


class RedTeamAttackEnv(vf.MultiTurnEnv):
    """Each attacker message goes to the target; its reply comes back as the next user message.

    The episode ends with the target's reply to a successful attack or to the last of
    `attack_turns` attacker messages (verifiers' own turn limit is one more, as a safety net).
    State keeps, without any message text: `turns` (per-turn verdicts and outcomes), `success`,
    and `transcript` — the attacker/target conversation with judge-flagged messages replaced
    by hashes (raw text only with `keep_raw_unsafe`).
    """

    def __init__(
        self,
        target: TargetModel,
        turn_judge: TurnJudge,
        attack_turns: int,
        keep_raw_unsafe: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(max_turns=attack_turns + 1, **kwargs)
        self.target = target
        self.turn_judge = turn_judge
        self.attack_turns = attack_turns
        self.keep_raw_unsafe = keep_raw_unsafe

    async def setup_state(self, state: vf.State) -> vf.State:
        state["info"]["rollout_id"] = state["trajectory_id"]
        state["turns"] = []
        state["success"] = False
        state["transcript"] = []
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> Any:
        exchanges = exchanges_from_completion(messages[len(state["prompt"]) :])
        reply = await self.target.reply(transcript_messages(exchanges))
        exchanges[-1] = Exchange(exchanges[-1].attacker, reply)
        behavior = behavior_from_info(state["info"])
        judged = await self._judge(behavior, exchanges)
        self._record(state, exchanges, judged)
        response = [vf.UserMessage(content=reply)]
        if state["success"] or len(exchanges) >= self.attack_turns:
            state["final_env_response"] = response
        return response

    async def _judge(self, behavior: Behavior, exchanges: Sequence[Exchange]) -> list[JudgedTurn]:
        """Judge every turn in a worker thread (endpoint judges block; earlier turns are cached)."""
        return await asyncio.to_thread(self.turn_judge.judge_all, behavior, exchanges)

    def _record(
        self, state: vf.State, exchanges: Sequence[Exchange], judged: Sequence[JudgedTurn]
    ) -> None:
        state["turns"] = [turn.to_dict() for turn in judged]
        state["success"] = any(turn.outcome.success for turn in judged)
        state["transcript"] = redact_conversation(
            transcript_messages(exchanges), verdicts_by_index(judged), keep_raw=self.keep_raw_unsafe
        )


def to_rows(behaviors: Sequence[Behavior]) -> Dataset:
    return Dataset.from_list(
        [
            {
                "question": render_behavior(b),
                "answer": b.category,
                "info": {"id": b.id, "scenario": b.category, "behavior": b.to_dict()},
            }
            for b in behaviors
        ]
    )


def weights_from(mapping: Mapping[str, float] | None) -> AttackWeights:
    return weights_dataclass(AttackWeights, mapping)


def resolve_judge(judge: str | SafetyJudge, cache_dir: str | None) -> SafetyJudge:
    if isinstance(judge, str):
        return build_judge(judge, cache_dir=cache_dir)
    if not callable(getattr(judge, "verdict", None)):
        raise ValueError(f"judge must be a judge spec string or a SafetyJudge, got {type(judge)}")
    return judge


@takes_config(ENV_ID, RedteamAttackConfig)
def load_environment(config: RedteamAttackConfig) -> vf.Environment:
    """Build E5 from its arguments (`RedteamAttackConfig`)."""
    source, path, columns, seed = config.source, config.path, config.columns, config.seed
    max_turns, memory_path, embedder = config.max_turns, config.memory_path, config.embedder
    built: dict[str, Any] | None = None
    if config.dataset:
        behaviors, built = load_built_behaviors(config.dataset, config.split)
    else:
        behaviors = load_behaviors(source, path, columns)
    behaviors = shuffle_and_truncate(behaviors, seed, config.max_examples)
    weights = weights_from(config.reward_weights)
    target = build_target(
        config.target_client,
        config.target_model,
        config.target_base_url,
        config.target_api_key_env,
        config.target_max_tokens,
        config.target_temperature,
        config.target_system_prompt,
    )
    if embedder is None and config.novelty_backend != "ngram":
        embedder = default_embedder()
    memory = AttackMemory(config.novelty_backend, memory_path, embedder)
    turn_judge = TurnJudge(resolve_judge(config.judge, config.judge_cache_dir), weights)
    parser = vf.Parser()
    env = RedTeamAttackEnv(
        target=target,
        turn_judge=turn_judge,
        attack_turns=max_turns,
        keep_raw_unsafe=config.keep_raw_unsafe,
        eval_dataset=to_rows(behaviors),
        system_prompt=system_prompt(max_turns),
        parser=parser,
        rubric=build_rubric(turn_judge, memory, weights, parser),
        env_id=ENV_ID,
    )
    env.attack_memory = memory
    judge_name = getattr(turn_judge.judge, "name", type(turn_judge.judge).__name__)
    return LoadedEnvInfo(
        dataset_info={
            "source": "dataset" if built else source,
            "path": built["dataset"] if built else path,
            "columns": dict(columns) if columns else None,
            **(build_provenance(built) if built else {}),
            "n": len(behaviors),
            "content_hash": content_hash(behaviors),
            "order_seed": seed,
            "max_turns": max_turns,
            "target": target.describe(),
            "judge": judge_name,
            "novelty_backend": memory.backend,
            "memory_path": memory_path,
        },
        reward_config={
            "weights": weights.component_weights(),
            "attack_weights": asdict(weights),
            "judge": judge_name,
            "judge_card": judge_card(judge_name),
        },
        metrics=RUN_METRICS.select({}, None),
        state_columns=STATE_COLUMNS,
        structured_output_default=False,
    ).attach(env)
