"""Multi-turn GRPO rollouts: whole verifiers episodes played by the policy being trained.

For environments where the model talks more than once (E5 attacker vs. target, E6 scripted
attacks, tool-using E2/E3), TRL's `rollout_func` hook runs `env.run_rollout` — the evaluation's
own episode loop and scoring — with an in-process client that answers with the current policy
(`ChatGenerator` over the trainer's model). The episode is then tokenised with the chat
template: the completion is everything after the prompt, and `env_mask` marks the policy's own
tokens (1) apart from the environment's turns (0), so only the policy's tokens are trained.
Sampling log-probabilities are not needed without vLLM and are returned as zeros.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from security_verifiers.models.hf_generation import ChatGenerator, plain_messages
from security_verifiers.models.openai_protocol import ChatRequest
from security_verifiers.training.envs import LoopThread, TrainingEnv
from security_verifiers.training.rewards import REPLAY_MODEL, chat_client


@dataclass
class PolicyHandle:
    """The policy being trained, reachable by clients built before the trainer exists
    (E5's `target: self`)."""

    generator: ChatGenerator | None = None
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 64

    def answer(self, request: ChatRequest) -> str:
        if self.generator is None:
            raise RuntimeError("the policy is not loaded yet")
        return self.generator.generate(
            request.messages,
            temperature=self.temperature if request.temperature is None else request.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=request.seed,
        ).text


def prompt_key(prompt: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(plain_messages(prompt), sort_keys=True)


def _ids(tokenizer: Any, messages: list[dict[str, str]], generation_prompt: bool) -> list[int]:
    encoded = tokenizer.apply_chat_template(
        messages, add_generation_prompt=generation_prompt, tokenize=True, return_dict=True
    )
    return list(encoded["input_ids"])


def tokenize_episode(
    tokenizer: Any, prompt: Sequence[Mapping[str, Any]], completion: Sequence[Mapping[str, Any]]
) -> tuple[list[int], list[int], list[int]]:
    """(prompt_ids, completion_ids, env_mask) of an episode rendered with the chat template."""
    prompt_msgs = plain_messages(prompt)
    turns = plain_messages(completion)
    prompt_ids = _ids(tokenizer, prompt_msgs, True)
    completion_ids: list[int] = []
    mask: list[int] = []
    done = prompt_ids
    for i, turn in enumerate(turns):
        is_policy = turn["role"] == "assistant"
        upto = _ids(tokenizer, prompt_msgs + turns[: i + 1], False)
        # the header of an assistant turn comes from the generation prompt: not the policy's
        head = _ids(tokenizer, prompt_msgs + turns[:i], True) if is_policy and i else done
        if upto[: len(done)] != done or head[: len(done)] != done:
            raise ValueError("the chat template does not render conversations prefix-consistently")
        header = head[len(done) :] if is_policy and i else []
        body = upto[len(done) + len(header) :]
        completion_ids += header + body
        mask += [0] * len(header) + [1 if is_policy else 0] * len(body)
        done = upto
    return prompt_ids, completion_ids, mask


def make_rollout_func(
    envs: Mapping[str, TrainingEnv],
    rows_by_prompt: Mapping[str, list[tuple[str, dict[str, Any]]]],
    policy: PolicyHandle,
    loop: LoopThread,
) -> Callable[[list[Any], Any], dict[str, list[Any]]]:
    """The `rollout_func` for GRPOTrainer: one full episode per (already repeated) prompt."""
    client = chat_client(policy.answer)

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        if policy.generator is None:
            raise RuntimeError("the policy is not loaded yet")
        tokenizer = policy.generator.tokenizer
        model = trainer.model
        was_training = model.training
        model.eval()
        out: dict[str, list[Any]] = {
            "prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
            "sv_scores": [],
        }  # fmt: skip
        try:
            for prompt in prompts:
                env_key, row = rows_by_prompt[prompt_key(prompt)][0]
                env = envs[env_key].env
                sampling = {"temperature": policy.temperature, "max_tokens": policy.max_tokens}
                output = loop.run(env.run_rollout(row, client, REPLAY_MODEL, sampling))
                completion = output.get("completion") or []
                p_ids, c_ids, mask = tokenize_episode(tokenizer, prompt, completion)
                if not c_ids:  # an empty episode still needs one token to score
                    c_ids, mask = [tokenizer.eos_token_id], [0]
                out["prompt_ids"].append(p_ids)
                out["completion_ids"].append(c_ids)
                out["logprobs"].append([0.0] * len(c_ids))
                out["env_mask"].append(mask)
                metrics = {k: float(v) for k, v in (output.get("metrics") or {}).items()}
                out["sv_scores"].append({"reward": float(output.get("reward") or 0.0),
                                         "metrics": metrics})  # fmt: skip
        finally:
            model.train(was_training)
        return out

    return rollout
