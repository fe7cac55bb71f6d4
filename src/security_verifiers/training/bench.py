"""`make bench-train`: how much of the machine the training recipes use.

For the SFT stage, the recipe's own SFTTrainer (same data, dtype, threads, LoRA) runs a few
steps; every batch it trains on is recorded, then the same batches go through a plain PyTorch
loop (forward, backward, AdamW step on the same LoRA parameters, same autocast). Trained
tokens/s of both and their ratio (goal: recipe >= 0.8x plain) are reported.

For the RL stage, a GRPO step of the recipe (k completions of one prompt, scored by the
environment's reward) is timed against its plain equivalent on the same prompt: `generate`
of k completions + forward/backward over them. With `--llama`, completions/s of the
llama.cpp server on the base GGUF (k sampled answers to the same prompt, one after another)
and of the expert-iteration sampler (the k answers decoded together) are reported next to
transformers' `generate`.

Also reported: prompt tokens (SmolLM2 tokenizer or the model's), peak RSS (getrusage), the
resolved dtype/threads. Timings depend on the machine's load: compare ratios, not seconds.

    python -m security_verifiers.training.bench --env e1 --steps 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PLAIN_KEYS = ("input_ids", "attention_mask", "labels", "position_ids")


def _autocast(runtime: Any):
    import contextlib

    import torch

    if runtime.bf16:
        return torch.autocast(runtime.device, dtype=torch.bfloat16)
    if runtime.fp16:
        return torch.autocast(runtime.device, dtype=torch.float16)
    return contextlib.nullcontext()


def _tokens(batch: dict[str, Any]) -> int:
    mask = batch.get("attention_mask")
    if mask is not None:
        return int(mask.sum())
    return int(batch["input_ids"].numel())


class _Recorder:
    """Wraps a data collator: keeps every batch the trainer trains on."""

    def __init__(self, collator: Any) -> None:
        self.collator = collator
        self.batches: list[dict[str, Any]] = []

    def __call__(self, features: Any) -> Any:
        batch = self.collator(features)
        self.batches.append({k: v for k, v in batch.items() if k in PLAIN_KEYS})
        return batch


def _sync() -> None:
    """Wait for queued GPU work, so that a timer reads the work itself, not its launch."""
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _step_timer():
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        def __init__(self) -> None:
            self.times: list[float] = []
            self._t = 0.0

        def on_step_begin(self, args, state, control, **kwargs):
            _sync()
            self._t = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            _sync()
            self.times.append(time.perf_counter() - self._t)

    return StepTimer()


def _measured(values: Sequence[float], warmup: int) -> Sequence[float]:
    """The measurements after the first `warmup` ones, keeping at least the last one."""
    return values[min(warmup, len(values) - 1) :] if values else values


def warmup_steps(requested: int | None, device: str) -> int:
    """Steps left out of the timings: `--warmup`, else 1 on a CPU and 2 on an accelerator
    (on an H100 the second step still took 2.6 s against ~0.65 s from the third on)."""
    if requested is not None:
        return requested
    return 1 if device == "cpu" else 2


def plain_sft_steps(model: Any, batches: list[dict[str, Any]], runtime: Any, lr: float) -> list:
    """Forward + backward + AdamW over `batches` with plain PyTorch; seconds per batch."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr)
    device = params[0].device  # the collator's batches are on the CPU; the trainer moved them
    model.train()
    times = []
    for batch in batches:
        _sync()
        start = time.perf_counter()
        with _autocast(runtime):
            loss = model(**{k: v.to(device) for k, v in batch.items()}).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        _sync()
        times.append(time.perf_counter() - start)
    return times


def bench_sft(args: argparse.Namespace, runtime: Any, out: dict[str, Any]) -> Any:
    from security_verifiers.models.hf_checkpoint import resolve_checkpoint
    from security_verifiers.training.config import LoraSettings, SFTData, SFTRecipe, SFTTrain
    from security_verifiers.training.envs import LoopThread, load_training_env
    from security_verifiers.training.rewards import EnvScorer
    from security_verifiers.training.sft import build_sft_trainer
    from security_verifiers.training.sft_data import build_sft_examples

    env_args = {"split": "train", "prompt_style": args.prompt_style}
    n = args.batch_size * args.steps
    recipe = SFTRecipe(
        model=args.model,
        dtype=runtime.dtype,
        threads=runtime.threads,
        data=SFTData(env=args.env, env_args=env_args, max_examples=n, calibrate=True),
        lora=LoraSettings(r=16, alpha=32, dropout=0.0),
        train=SFTTrain(
            max_steps=args.steps,
            batch_size=args.batch_size,
            max_length=args.max_length,
            warmup_ratio=0.0,
            logging_steps=1,
            save_steps=10**9,
            learning_rate=1e-4,
        ),
    )
    training_env = load_training_env(args.env, env_args, max_examples=max(n * 4, 64))
    examples, _ = build_sft_examples(
        recipe.data, training_env, EnvScorer(training_env, LoopThread())
    )
    ref = resolve_checkpoint(args.model)
    with tempfile.TemporaryDirectory(prefix="sv-bench-train-") as tmp:
        tokenizer, trainer = build_sft_trainer(recipe, ref, examples, Path(tmp), runtime)
        recorder = _Recorder(trainer.data_collator)
        trainer.data_collator = recorder
        timer = _step_timer()
        trainer.add_callback(timer)
        trainer.train()
    batches = recorder.batches[: len(timer.times)]
    plain = plain_sft_steps(trainer.model, batches, runtime, 1e-4)
    tokens = [_tokens(b) for b in batches]
    trainer_tps = sum(_measured(tokens, args.warmup)) / sum(_measured(timer.times, args.warmup))
    plain_tps = sum(_measured(tokens, args.warmup)) / sum(_measured(plain, args.warmup))
    prompt_tokens = [
        len(tokenizer.apply_chat_template(e["prompt"], add_generation_prompt=True, tokenize=True,
                                          return_dict=True)["input_ids"])
        for e in examples
    ]  # fmt: skip
    out["sft"] = {
        "examples": len(examples),
        "batch_size": args.batch_size,
        "steps": len(timer.times),
        "prompt_tokens_mean": round(statistics.mean(prompt_tokens), 1),
        "tokens_per_batch": tokens,
        "trainer_step_s": [round(t, 3) for t in timer.times],
        "plain_step_s": [round(t, 3) for t in plain],
        "trainer_tokens_per_s": round(trainer_tps, 1),
        "plain_tokens_per_s": round(plain_tps, 1),
        "ratio_vs_plain": round(trainer_tps / plain_tps, 3),
    }
    return ref, tokenizer, trainer.model


def bench_rl(args: argparse.Namespace, runtime: Any, out: dict[str, Any]) -> None:
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer

    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.training.config import GRPOSettings, LoraSettings, Stage
    from security_verifiers.training.envs import LoopThread, load_training_env
    from security_verifiers.training.model_cache import loadable
    from security_verifiers.training.rewards import EnvScorer, RewardBridge
    from security_verifiers.training.rl import grpo_args, stage_rows
    from security_verifiers.training.sft import new_adapter

    k, length = args.k, args.completion_tokens
    env_args = {"split": "train", "prompt_style": args.prompt_style}
    training_env = load_training_env(args.env, env_args, max_examples=64)
    envs = {args.env: training_env}
    bridge = RewardBridge({args.env: EnvScorer(training_env, LoopThread())})
    settings = GRPOSettings(
        num_generations=k, prompts_per_step=1, max_completion_length=length, save_steps=10**9
    )
    rows = stage_rows(Stage(envs=[args.env], steps=args.steps), envs, max(args.steps, 8), 42)
    ref = loadable(resolve_checkpoint(args.model))
    tokenizer = load_tokenizer(ref)
    base = load_causal_lm(ref, dtype=runtime.dtype)
    model = new_adapter(base, LoraSettings(), settings.seed)
    funcs, weights = bridge.for_envs([args.env])
    with tempfile.TemporaryDirectory(prefix="sv-bench-rl-") as tmp:
        trainer = GRPOTrainer(
            model=model,
            reward_funcs=funcs,  # type: ignore[arg-type]  # TRL: an invariant list of a union
            args=grpo_args(settings, args.steps, Path(tmp), weights, runtime),
            train_dataset=Dataset.from_list(rows),
            processing_class=tokenizer,
        )
        timer = _step_timer()
        trainer.add_callback(timer)
        trainer.train()
    # the plain equivalent on the first prompt: generate k, then forward + backward over them
    prompt = rows[0]["prompt"]
    ids = tokenizer.apply_chat_template(
        prompt, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt"
    )["input_ids"].to(next(model.parameters()).device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-5)
    plain, generate_s = [], []
    for _ in range(args.steps):
        _sync()
        start = time.perf_counter()
        model.eval()
        with torch.no_grad(), _autocast(runtime):
            seqs = model.generate(
                input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True,
                max_new_tokens=length, min_new_tokens=length, num_return_sequences=k,
                pad_token_id=tokenizer.pad_token_id, top_k=0,
            )  # fmt: skip
        _sync()
        generate_s.append(time.perf_counter() - start)
        model.train()
        with _autocast(runtime):
            logits = model(input_ids=seqs).logits[:, ids.shape[1] - 1 : -1].float()
            logp = torch.log_softmax(logits, -1).gather(-1, seqs[:, ids.shape[1] :, None])
            loss = -logp.mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        _sync()
        plain.append(time.perf_counter() - start)
    grpo_s = statistics.mean(_measured(timer.times, args.warmup))
    plain_s = statistics.mean(_measured(plain, args.warmup))
    out["rl"] = {
        "algorithm": "grpo",
        "completions_per_step": k,
        "max_completion_tokens": length,
        "prompt_tokens": int(ids.shape[1]),
        "trainer_step_s": [round(t, 3) for t in timer.times],
        "plain_step_s": [round(t, 3) for t in plain],
        "trainer_completions_per_s": round(k / grpo_s, 3),
        "plain_completions_per_s": round(k / plain_s, 3),
        "ratio_vs_plain": round(plain_s / grpo_s, 3),
        "transformers_generate_completions_per_s": round(
            k / statistics.mean(_measured(generate_s, args.warmup)), 3
        ),
    }
    if args.llama:
        prompt_ids = [int(t) for t in ids[0]]
        out["rl"]["llama_cpp"] = bench_llama(args, prompt, k, length)
        out["rl"]["llama_cpp"] |= bench_llama_batched(args, prompt_ids, k, length,
                                                      tokenizer.eos_token_id)  # fmt: skip


def bench_llama_batched(
    args: argparse.Namespace, ids: list[int], k: int, length: int, eos: int
) -> dict[str, Any]:
    """k sampled completions of the prompt `ids` decoded together in one llama.cpp context
    (`llama_batch.BatchedSampler`, the expert-iteration sampler) on the base GGUF."""
    from security_verifiers.models.hf_checkpoint import resolve_checkpoint
    from security_verifiers.training.llama_batch import BatchedSampler
    from security_verifiers.training.runtime import default_threads

    ref = resolve_checkpoint(args.model)
    if ref.kind != "gguf":
        return {}
    n_ctx = len(ids) + k * length
    with BatchedSampler(ref.location, max_seqs=k, n_ctx=n_ctx, threads=default_threads()) as s:
        s.sample(ids, k, temperature=1.0, max_tokens=length, stop=eos, seed=0)  # warm, cached
        start = time.perf_counter()
        outs = s.sample(ids, k, temperature=1.0, max_tokens=length, stop=eos, seed=1)
        seconds = time.perf_counter() - start
    return {
        "batched_completions_per_s": round(k / seconds, 3),
        "batched_completion_tokens_per_s": round(sum(map(len, outs)) / seconds, 1),
    }


def bench_llama(args: argparse.Namespace, prompt: Any, k: int, length: int) -> dict[str, Any]:
    """k sampled completions of `prompt` from the llama.cpp server on the base GGUF."""
    import httpx2

    from security_verifiers.models.hf_checkpoint import resolve_checkpoint
    from security_verifiers.models.local_server import LlamaCppServer
    from security_verifiers.training.runtime import default_threads

    ref = resolve_checkpoint(args.model)
    if ref.kind != "gguf":
        return {"skipped": f"{args.model} is not a GGUF model"}
    server = LlamaCppServer(gguf=Path(ref.location), alias="bench", threads=default_threads())
    server.start()
    try:
        body = {"model": "bench", "messages": prompt, "max_tokens": length, "temperature": 1.0}
        with httpx2.Client(timeout=600) as client:
            client.post(f"{server.base_url}/chat/completions", json=body).raise_for_status()
            start = time.perf_counter()
            tokens = 0
            for i in range(k):
                reply = client.post(
                    f"{server.base_url}/chat/completions", json=body | {"seed": i}
                ).json()
                tokens += int((reply.get("usage") or {}).get("completion_tokens") or 0)
            seconds = time.perf_counter() - start
    finally:
        server.stop()
    return {
        "completions_per_s": round(k / seconds, 3),
        "completion_tokens_per_s": round(tokens / seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    from security_verifiers.environments import entries_with

    keys = [entry.key for entry in entries_with("report")]  # classification environments
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default=next(iter(keys), None), choices=keys,
                        help="a classification environment (default: the first)")  # fmt: skip
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--prompt-style", default="compact", choices=["default", "compact"])
    parser.add_argument("--steps", type=int, default=3, help="steps timed per stage")
    parser.add_argument(
        "--warmup", type=int, default=None,
        help="first steps left out of the timings (default: 1 on a CPU, 2 on a GPU)",
    )  # fmt: skip
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-length", type=int, default=1024)
    parser.add_argument("--k", type=int, default=4, help="RL completions per prompt")
    parser.add_argument("--completion-tokens", type=int, default=32)
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--skip-rl", action="store_true")
    parser.add_argument("--llama", action="store_true", help="also time the llama.cpp server")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)

    import os

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from security_verifiers.training.runtime import peak_rss_mb, setup_runtime

    if args.warmup is not None and args.warmup < 0:
        parser.error(f"--warmup {args.warmup}: must be 0 or more")
    runtime = setup_runtime(args.threads, args.dtype)
    args.warmup = warmup_steps(args.warmup, runtime.device)
    out: dict[str, Any] = {"runtime": runtime.as_dict(), "env": args.env,
                           "prompt_style": args.prompt_style, "model": args.model,
                           "warmup_steps": args.warmup}  # fmt: skip
    bench_sft(args, runtime, out)
    out["peak_rss_mb_after_sft"] = round(peak_rss_mb(), 1)
    print(json.dumps({"sft": out["sft"]}), file=sys.stderr, flush=True)  # early, if RL is slow
    if not args.skip_rl:
        bench_rl(args, runtime, out)
    out["peak_rss_mb"] = round(peak_rss_mb(), 1)
    text = json.dumps(out, indent=2)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
