"""`sv train sft`: supervised fine-tuning with TRL's SFTTrainer and a PEFT LoRA adapter."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from security_verifiers.errors import Interrupted
from security_verifiers.models.hf_checkpoint import (
    load_causal_lm,
    load_tokenizer,
    resolve_checkpoint,
)
from security_verifiers.training.batching import label_balanced_order
from security_verifiers.training.checkpoints import CheckpointDir, plot_curves
from security_verifiers.training.config import LoraSettings, SFTRecipe
from security_verifiers.training.envs import LoopThread, load_training_env, sigterm_as_interrupt
from security_verifiers.training.group_holdout import HELD_OUT_KEY, hold_out_groups
from security_verifiers.training.model_cache import loadable
from security_verifiers.training.rewards import EnvScorer
from security_verifiers.training.runtime import (
    Runtime,
    current_rss_mb,
    peak_rss_mb,
    release_free_memory,
    setup_runtime,
)
from security_verifiers.training.sft_data import build_sft_examples
from security_verifiers.training.tracker import tracker_link, trainer_kwargs


def adapted_layers(settings: LoraSettings, num_layers: int) -> list[int] | None:
    """The block indices `lora.layers` adapts (the top N), or None for every block."""
    if settings.layers is None or settings.layers >= num_layers:
        return None
    return list(range(num_layers - settings.layers, num_layers))


def linear_module_names(model: Any) -> list[str]:
    """The names of the Linear layers inside the transformer blocks (what `all-linear` means)."""
    import torch

    output = model.get_output_embeddings()
    return sorted({
        name.rsplit(".", 1)[-1]
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and module is not output
    })  # fmt: skip


def lora_config(settings: LoraSettings, model: Any) -> Any:
    """PEFT's LoRA settings for `model` (its block count decides `lora.layers`)."""
    from peft import LoraConfig

    layers = adapted_layers(settings, model.config.num_hidden_layers)
    targets = settings.target_modules
    if layers and targets == "all-linear":  # PEFT takes a block subset only with names
        targets = linear_module_names(model)
    return LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        layers_to_transform=layers,
        layers_pattern="layers" if layers else None,
        task_type="CAUSAL_LM",
    )


def new_adapter(base: Any, settings: LoraSettings, seed: int) -> Any:
    """`base` wrapped with a fresh LoRA adapter whose A matrices are drawn from `seed`.

    PEFT draws them from torch's global generator, whose starting seed differs from process
    to process: unseeded, the same recipe trained different weights in every run (the B
    matrices start at zero, so the first samples agreed and only the training diverged)."""
    from peft import get_peft_model
    from transformers import set_seed

    set_seed(seed)
    return get_peft_model(base, lora_config(settings, base))


def on_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def run_sft(recipe: SFTRecipe, console: Console | None = None) -> Path:
    """Build the SFT data, train the LoRA adapter, and write a checkpoint; returns its path."""
    console = console or Console(stderr=True)
    started = time.perf_counter()
    runtime = setup_runtime(recipe.threads, recipe.dtype)
    if runtime.notice:
        console.print(f"[yellow]Note:[/yellow] {runtime.notice}")
    console.print(f"Runtime: {runtime.device}, {runtime.dtype}, {runtime.threads} threads")
    ref = resolve_checkpoint(recipe.model, checkpoint_root=recipe.output_root)
    data = recipe.data
    training_env = load_training_env(data.env, data.env_args, field="data.env")
    split_rows = len(training_env.rows)
    held_out = hold_out_groups(training_env, data.rl_groups, data.seed)
    scorer = EnvScorer(training_env, LoopThread())
    examples, summary = build_sft_examples(data, training_env, scorer)
    if held_out is not None:
        summary[HELD_OUT_KEY] = held_out
        console.print(f"Left to RL: {len(held_out['groups'])} template groups "
                      f"({held_out['rows']} rows) of {training_env.key}")  # fmt: skip
    console.print(
        f"SFT data: {summary['n_examples']} examples {summary['by_source']} "
        f"from {training_env.entry.env_id} ({training_env.split} split)"
    )

    ckpt = CheckpointDir.create(recipe.output_root, ref.slug, recipe.stage)
    ckpt.write_config(recipe)
    ckpt.write_reward_weights(
        {training_env.key: dict(scorer.components), "used_for": "verifying SFT answers"}
    )
    ckpt.write_datasets(
        {
            training_env.key: {
                "env_id": training_env.entry.env_id,
                "split": training_env.split,
                "content_hash": training_env.dataset_hash,
                "rows": split_rows,
                "prompt_style": training_env.prompt_style,
            },
            "sft_examples": summary,
        }
    )
    with (ckpt.root / "sft_data.jsonl").open("w") as handle:
        import json

        for item in examples:
            handle.write(json.dumps(item) + "\n")
    ckpt.mark(
        "running",
        base_model=ref.describe(),
        max_steps=recipe.train.max_steps,
        runtime=runtime.as_dict(),
        prompt_style=training_env.prompt_style,
    )
    console.print(f"Checkpoint directory: {ckpt.root}")

    try:
        tokenizer, trainer = build_sft_trainer(recipe, ref, examples, ckpt.trainer_dir, runtime)
    except BaseException:
        ckpt.mark("failed")
        raise
    ckpt.mark("running", max_steps=trainer.args.max_steps)  # `train.epochs` sets the count
    if recipe.report_to != "none":
        trainer.add_callback(tracker_link(
            recipe.report_to, recipe.tracker_project, ckpt.root.name,
            lambda record: ckpt.mark("running", tracker=record),
        ))  # fmt: skip
    status, result, failure = "failed", None, None
    try:
        with sigterm_as_interrupt():
            result = trainer.train()
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
    except BaseException as exc:
        failure = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        history = list(trainer.state.log_history)
        final = dict(result.metrics) if result is not None else {}
        final["global_step"] = trainer.state.global_step
        ckpt.write_metrics(history, final)
        plot_curves(history, ckpt.root / "curves.png", f"SFT {ref.slug} on {training_env.key}")
        saved = ckpt.save_model(
            trainer.model, tokenizer, ref, merged=recipe.save_merged and status == "complete"
        )
        ckpt.mark(
            status,
            steps=trainer.state.global_step,
            saved=saved,
            error=failure,
            wall_clock_total_s=round(time.perf_counter() - started, 1),
            peak_rss_mb=round(peak_rss_mb(), 1),
        )
    if status == "interrupted":
        console.print(f"[yellow]Stopped; adapter saved in {ckpt.root}[/yellow]")
        raise Interrupted
    console.print(f"[green]SFT done[/green] in {time.perf_counter() - started:.0f} s: {ckpt.root}")
    return ckpt.root


def sampling_strategy(train: Any) -> str:
    """The Trainer's sampler: in order for label-balanced examples (already interleaved)."""
    if train.label_balanced:
        return "sequential"
    return "group_by_length" if train.group_by_length else "random"


def sft_args(recipe: SFTRecipe, runtime: Runtime, output_dir: Path, n_examples: int) -> Any:
    """TRL's SFTConfig for the recipe: dtype, threads and batching set explicitly (TRL's own
    defaults — bf16 on, activation checkpointing on — never apply silently)."""
    from trl import SFTConfig

    train = recipe.train
    cuda = runtime.device == "cuda"
    steps = train.max_steps
    if train.epochs is not None:
        per_step = train.batch_size * train.grad_accum
        steps = max(1, round(train.epochs * n_examples / per_step))
    return SFTConfig(
        output_dir=str(output_dir),
        max_steps=steps,
        per_device_train_batch_size=train.batch_size,
        gradient_accumulation_steps=train.grad_accum,
        learning_rate=train.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=train.warmup_ratio,
        adam_beta2=train.adam_beta2,
        logging_steps=train.logging_steps,
        save_steps=train.save_steps,
        save_total_limit=1,
        max_length=train.max_length,
        completion_only_loss=train.completion_only_loss,
        activation_checkpointing=train.activation_checkpointing,
        train_sampling_strategy=sampling_strategy(train),
        packing=train.packing,
        pad_to_multiple_of=train.pad_to_multiple_of,
        seed=train.seed,
        data_seed=train.seed,
        **trainer_kwargs(recipe.report_to, recipe.tracker_project, Path(output_dir).parent.name),
        use_cpu=not cuda,
        bf16=runtime.bf16,
        fp16=runtime.fp16,
        dataloader_pin_memory=cuda,
        disable_tqdm=False,
    )


def build_sft_trainer(
    recipe: SFTRecipe,
    ref: Any,
    examples: list[dict],
    output_dir: Path,
    runtime: Runtime | None = None,
    tokenizer: Any = None,
    model: Any = None,
    balance_key: Callable[[dict], str | None] | None = None,
):
    """The tokenizer and an SFTTrainer with a fresh LoRA adapter on the loaded model (or on
    `model`, e.g. an RL policy that already carries its adapter). With `balance_key` (and
    `train.label_balanced`) batches hold equal shares of that key's values instead of the
    answers' label proportions. An example with `train_decision: False` trains its answer
    except the decision token (decision_tokens.py)."""
    from datasets import Dataset
    from trl import SFTTrainer

    from security_verifiers.training.decision_tokens import (
        answer_prefix_ids,
        confidence_tokens,
        keep_decisions_where,
    )
    from security_verifiers.training.prefix_sharing import prefix_sharing_trainer

    runtime = runtime or setup_runtime(recipe.threads, recipe.dtype)
    tokenizer = tokenizer or load_tokenizer(loadable(ref))
    tokenizer.padding_side = "right"
    peft_config = None
    if model is None:
        model = load_causal_lm(loadable(ref), dtype=runtime.dtype)
        peft_config = lora_config(recipe.lora, model)
    args = sft_args(recipe, runtime, output_dir, len(examples))
    if recipe.train.label_balanced:
        if balance_key:
            examples = label_balanced_order(
                examples, recipe.train.seed, key=balance_key, equal_shares=True
            )
        else:
            examples = label_balanced_order(examples, recipe.train.seed)
    partial = any(e.get("train_decision") is False for e in examples)
    dataset = Dataset.from_list(
        [
            {"prompt": e["prompt"], "completion": e["completion"]}
            | ({"train_decision": e.get("train_decision", True)} if partial else {})
            for e in examples
        ]
    )
    train = recipe.train
    trainer_class: type = SFTTrainer
    if train.share_prompt_prefix or train.decision_weight != 1.0 or train.confidence_weight != 1.0:
        trainer_class = prefix_sharing_trainer(
            SFTTrainer,
            prefix_ids=answer_prefix_ids(tokenizer),
            decision_weight=train.decision_weight,
            share_prefix=train.share_prompt_prefix,
            confidence_ids=confidence_tokens(tokenizer) if train.confidence_weight != 1.0 else None,
            confidence_weight=train.confidence_weight,
        )
    trainer = trainer_class(
        model=model,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    if partial:
        trainer.train_dataset = keep_decisions_where(
            trainer.train_dataset, "train_decision", answer_prefix_ids(tokenizer)
        )
    release_every = recipe.train.release_memory_every if runtime.device == "cpu" else 0
    trainer.add_callback(memory_callback(release_every))
    return tokenizer, trainer


def memory_callback(release_every: int) -> Any:
    """A trainer callback that logs resident memory (`rss_mb`, `peak_rss_mb`) with every log
    entry and, every `release_every` steps (0: never), returns the heap's free pages to the
    OS."""
    from transformers import TrainerCallback

    class Memory(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if release_every and state.global_step % release_every == 0:
                release_free_memory()

        def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            rss = current_rss_mb()
            if state.log_history and rss is not None:
                state.log_history[-1].update(
                    rss_mb=round(rss, 1), peak_rss_mb=round(peak_rss_mb(), 1)
                )

    return Memory()
