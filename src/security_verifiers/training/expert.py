"""Expert iteration (rejection-sampling fine-tuning), the RL alternative to GRPO.

Each round: take `prompts` training prompts, sample `k` answers per prompt from the current
policy (transformers, batched `num_return_sequences=k`), score every answer with the
environment's own reward (the replay scorer GRPO uses too), keep the answers that beat their
group's mean (or each group's best), and run `sft_steps` SFT steps on the kept answers. Cheaper
per update than GRPO on CPU (no reference log-probs, generation in one batch per prompt) and
never trains on an answer the reward did not prefer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from security_verifiers.training.config import ExpertIteration, SFTRecipe, SFTTrain
from security_verifiers.training.envs import TrainingEnv
from security_verifiers.training.rewards import EnvScorer
from security_verifiers.training.runtime import Runtime


def sample_answers(
    model: Any,
    tokenizer: Any,
    prompt: Sequence[dict[str, Any]],
    k: int,
    *,
    temperature: float,
    max_tokens: int,
    seed: int | None = None,
) -> list[str]:
    """`k` sampled answers to one chat prompt (one batched generate call)."""
    import torch

    from security_verifiers.models.hf_generation import plain_messages

    encoded = tokenizer.apply_chat_template(
        plain_messages(prompt), add_generation_prompt=True, tokenize=True, return_dict=True
    )
    device = next(model.parameters()).device
    ids = torch.tensor([list(encoded["input_ids"])], device=device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            out = model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                temperature=temperature,
                top_p=1.0,
                top_k=0,
                max_new_tokens=max_tokens,
                num_return_sequences=k,
                pad_token_id=tokenizer.pad_token_id,
                eos_token_id=tokenizer.eos_token_id,
            )
    finally:
        model.train(was_training)
    return [tokenizer.decode(seq[ids.shape[1] :], skip_special_tokens=True) for seq in out]


def select(rewards: Sequence[float], keep: str, min_reward: float) -> list[int]:
    """Indices of the samples to keep from one group of rewards."""
    if not rewards:
        return []
    mean = sum(rewards) / len(rewards)
    if keep == "best":
        best = max(range(len(rewards)), key=lambda i: rewards[i])
        chosen = [best] if rewards[best] > mean or len(set(rewards)) == 1 else []
    else:
        chosen = [i for i, r in enumerate(rewards) if r > mean]
    return [i for i in chosen if rewards[i] >= min_reward]


def run_round(
    model: Any,
    tokenizer: Any,
    rows: Sequence[dict[str, Any]],
    envs: dict[str, TrainingEnv],
    scorers: dict[str, EnvScorer],
    settings: ExpertIteration,
    runtime: Runtime,
    output_dir: Path,
    round_index: int,
) -> dict[str, Any]:
    """One round: sample, score, select, SFT. Returns the round's log entry."""
    from security_verifiers.training.sft import build_sft_trainer

    started = time.perf_counter()
    kept: list[dict[str, Any]] = []
    all_rewards: list[float] = []
    n_samples = 0
    for i, row in enumerate(rows):
        env_key = row["sv_env"]
        full = json.loads(row["sv_row"])
        texts = sample_answers(
            model,
            tokenizer,
            full["prompt"],
            settings.k,
            temperature=settings.temperature,
            max_tokens=settings.max_completion_length,
            seed=settings.seed + 1000 * round_index + i,
        )
        n_samples += len(texts)
        scores = scorers[env_key].score([full] * len(texts), texts)
        rewards = [s["reward"] for s in scores]
        all_rewards += rewards
        for j in select(rewards, settings.keep, settings.min_reward):
            kept.append(
                {
                    "prompt": list(full["prompt"]),
                    "completion": [{"role": "assistant", "content": texts[j]}],
                }
            )
    sample_s = time.perf_counter() - started
    entry: dict[str, Any] = {
        "step": round_index + 1,
        "reward": sum(all_rewards) / max(1, len(all_rewards)),
        "samples": n_samples,
        "kept": len(kept),
        "sample_s": round(sample_s, 2),
        "completions_per_s": round(n_samples / sample_s, 3) if sample_s > 0 else None,
    }
    if kept:
        recipe = SFTRecipe(
            dtype=runtime.dtype,
            threads=runtime.threads,
            train=SFTTrain(
                max_steps=settings.sft_steps,
                learning_rate=settings.learning_rate,
                batch_size=min(settings.batch_size, len(kept)),
                max_length=settings.max_length,
                warmup_ratio=0.0,
                logging_steps=1,
                save_steps=10**9,
                seed=settings.seed + round_index,
            ),
        )
        _, trainer = build_sft_trainer(
            recipe, None, kept, output_dir / f"round{round_index + 1}", runtime, tokenizer, model
        )
        trainer.train()
        losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
        if losses:
            entry["loss"] = float(losses[-1])
        tokenizer.padding_side = "left"
    entry["round_s"] = round(time.perf_counter() - started, 2)
    return entry


def run_stage(
    model: Any,
    tokenizer: Any,
    rows: Sequence[dict[str, Any]],
    steps: int,
    envs: dict[str, TrainingEnv],
    scorers: dict[str, EnvScorer],
    settings: ExpertIteration,
    runtime: Runtime,
    output_dir: Path,
    console: Console,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """`steps` rounds over consecutive slices of `rows`; returns the log entries."""
    history = []
    per_round = settings.prompts
    for r in range(steps):
        chunk = [rows[(r * per_round + i) % len(rows)] for i in range(per_round)]
        entry = run_round(
            model, tokenizer, chunk, envs, scorers, settings, runtime, output_dir, offset + r
        )
        console.print(
            f"round {offset + r + 1}: reward {entry['reward']:.3f}, kept {entry['kept']}/"
            f"{entry['samples']}, {entry['round_s']:.0f} s"
        )
        history.append(entry)
    return history
