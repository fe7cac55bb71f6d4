"""`sv train rl`: GRPO (TRL's GRPOTrainer) on the environments' own rewards.

The recipe's schedule is a list of stages, each `{envs, steps}`: a curriculum goes from one
environment to mixed batches across several; an alternation expands to attacker (E5) and
defender (E6) stages that train the same LoRA policy in turn. Single-turn environments use
TRL's batched generation and the replay scorer (`rewards.py`); a stage with a multi-turn
environment plays whole episodes through verifiers (`rollouts.py`).
"""

from __future__ import annotations

import json
import random
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from rich.console import Console

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import Interrupted, UserError
from security_verifiers.models.hf_checkpoint import (
    load_causal_lm,
    load_tokenizer,
    resolve_checkpoint,
)
from security_verifiers.training import expert
from security_verifiers.training.checkpoints import CheckpointDir, plot_curves
from security_verifiers.training.config import EnvSettings, GRPOSettings, RLRecipe, Stage
from security_verifiers.training.envs import (
    LoopThread,
    TrainingEnv,
    load_training_env,
    sigterm_as_interrupt,
)
from security_verifiers.training.group_holdout import keep_held_out
from security_verifiers.training.model_cache import loadable
from security_verifiers.training.rewards import EnvScorer, RewardBridge
from security_verifiers.training.rollouts import PolicyHandle, make_rollout_func, prompt_key
from security_verifiers.training.round_selection import HeldOut, held_out_rows
from security_verifiers.training.runtime import Runtime, peak_rss_mb, setup_runtime
from security_verifiers.training.sft import new_adapter
from security_verifiers.training.tracker import tracker_link, trainer_kwargs

SELF_TARGET = "self"


def target_env_args(target: str, policy: PolicyHandle, key: str) -> dict[str, Any]:
    """E5's `target_client`/`target_model` for `target`: `self`, a built-in model or MODEL@URL."""
    import openai

    from security_verifiers.models.clients import build_client
    from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest
    from security_verifiers.models.providers.registry import resolve_model
    from security_verifiers.models.spec import BASELINE_BASE_URL
    from security_verifiers.models.transports import PolicyTransport

    if target == SELF_TARGET:

        def answer(request: ChatRequest) -> str:
            return policy.answer(request)

        http = openai.DefaultAsyncHttpx2Client(transport=PolicyTransport(answer, "self"))
        client = openai.AsyncOpenAI(base_url=BASELINE_BASE_URL, api_key="EMPTY", http_client=http)
        return {"target_client": client, "target_model": "self"}
    entry = resolve_env(key)
    baselines: dict[str, ChatPolicy] = {}
    if entry.spec.opponent:  # whose baselines may serve as targets (E5: E6's defenders)
        baselines |= baseline_policies(resolve_env(entry.spec.opponent))
    baselines |= baseline_policies(entry)
    spec = resolve_model(target, baselines=baselines)
    if spec.kind not in ("baseline", "endpoint"):
        raise UserError(
            f"envs.{key}.target: '{target}' must be `self`, a built-in model or an endpoint "
            f"(serve local checkpoints first and pass MODEL@http://127.0.0.1:PORT/v1)"
        )
    return {"target_client": build_client(spec, baselines=baselines), "target_model": spec.model_id}


def load_envs(
    recipe: RLRecipe, policy: PolicyHandle, source: Path | None, start: str
) -> dict[str, TrainingEnv]:
    """The recipe's environments; with `rows: sft_held_out`, only the rows of the groups the
    start checkpoint (at `start`) left out of SFT, then capped at `max_examples`."""
    envs: dict[str, TrainingEnv] = {}
    for key, settings in recipe.envs.items():
        args = dict(settings.env_args)
        if settings.target is not None:
            args |= target_env_args(settings.target, policy, key)
        envs[key] = load_training_env(
            key,
            args,
            reward_weights=settings.reward_weights,
            max_examples=None if settings.rows == "sft_held_out" else settings.max_examples,
            source=source,
        )
        if settings.rows == "sft_held_out":
            keep_held_out(envs[key], start)
            envs[key].rows = envs[key].rows[: settings.max_examples]
    return envs


def held_out_envs(
    recipe: RLRecipe, envs: dict[str, TrainingEnv], source: Path | None
) -> dict[str, TrainingEnv]:
    """Each environment loaded on `expert_iteration.select_split` (round selection), with
    the training environment's arguments and reward weights otherwise."""
    split = recipe.expert_iteration.select_split
    out: dict[str, TrainingEnv] = {}
    for key, settings in recipe.envs.items():
        env = load_training_env(
            key,
            dict(settings.env_args) | {"split": split},
            reward_weights=settings.reward_weights,
            field="expert_iteration.select_split: envs",
            source=source,
        )
        if env.split != split or env.split == envs[key].split:
            where = f"{source}: " if source else ""
            raise UserError(
                f"{where}expert_iteration.select_split: {split}: environment {key} has no "
                f"held-out split of that name (its rows come from split {env.split!r})"
            )
        out[key] = env
    return out


def is_multi_turn(training_env: TrainingEnv) -> bool:
    import verifiers as vf

    return not isinstance(training_env.env, vf.SingleTurnEnv)


def stage_rows(
    stage: Stage, envs: dict[str, TrainingEnv], n: int, seed: int
) -> list[dict[str, Any]]:
    """`n` training rows for a stage: one environment, or a weighted mix of several."""
    rng = random.Random(seed)
    pools = {}
    for key in stage.envs:
        rows = list(envs[key].rows)
        rng.shuffle(rows)
        pools[key] = rows
    weights = [float((stage.mix or {}).get(key, 1.0)) for key in stage.envs]
    cursors = dict.fromkeys(stage.envs, 0)
    out = []
    for _ in range(n):
        key = rng.choices(stage.envs, weights=weights)[0]
        row = pools[key][cursors[key] % len(pools[key])]
        cursors[key] += 1
        out.append({"prompt": row["prompt"], "sv_env": key, "sv_row": json.dumps(row)})
    return out


def vllm_options(settings: GRPOSettings) -> dict[str, Any]:
    """The recipe's vLLM generation options as TRL's GRPOConfig fields."""
    if not settings.use_vllm:
        return {"use_vllm": False}
    out: dict[str, Any] = {"use_vllm": True, "vllm_mode": settings.vllm_mode}
    if settings.vllm_mode == "server":
        if settings.vllm_server_base_url:
            out["vllm_server_base_url"] = settings.vllm_server_base_url
    else:
        out["vllm_gpu_memory_utilization"] = settings.vllm_gpu_memory_utilization
        out["vllm_tensor_parallel_size"] = settings.vllm_tensor_parallel_size
    return out


def check_vllm_machine(settings: GRPOSettings, cuda: bool) -> None:
    """`use_vllm` needs a CUDA GPU and the vllm package: one line naming what is missing."""
    if not settings.use_vllm:
        return
    missing = [what for what, ok in (("a CUDA GPU", cuda),
                                     ("the vllm package", find_spec("vllm") is not None))
               if not ok]  # fmt: skip
    if missing:
        raise UserError(f"grpo.use_vllm: needs {' and '.join(missing)}, which this machine "
                        "lacks; set grpo.use_vllm: false to generate with the policy")  # fmt: skip


def grpo_args(
    settings: GRPOSettings,
    stage_steps: int,
    output_dir: Path,
    weights: list[float],
    runtime: Runtime | None = None,
    tracking: dict[str, Any] | None = None,
):
    """TRL's GRPOConfig; dtype is the recipe's (TRL would otherwise default to bf16).
    `tracking`: the tracker's TrainingArguments fields (tracker.trainer_kwargs)."""
    from trl import GRPOConfig

    runtime = runtime or setup_runtime(None, "float32")
    cuda = runtime.device == "cuda"
    return GRPOConfig(
        output_dir=str(output_dir),
        max_steps=stage_steps,
        per_device_train_batch_size=settings.prompts_per_step * settings.num_generations,
        num_generations=settings.num_generations,
        max_completion_length=settings.max_completion_length,
        temperature=settings.temperature,
        top_p=settings.top_p,
        learning_rate=settings.learning_rate,
        beta=settings.beta,
        loss_type=settings.loss_type,
        scale_rewards=settings.scale_rewards,
        reward_weights=weights,
        logging_steps=settings.logging_steps,
        save_steps=settings.save_steps,
        save_total_limit=1,
        seed=settings.seed,
        data_seed=settings.seed,
        **(tracking or {"report_to": "none"}),
        **vllm_options(settings),
        use_cpu=not cuda,
        bf16=runtime.bf16,
        fp16=runtime.fp16,
        dataloader_pin_memory=cuda,
        disable_tqdm=False,
        log_completions=False,
        activation_checkpointing=settings.activation_checkpointing,
    )


def run_rl(recipe: RLRecipe, console: Console | None = None, source: Path | None = None) -> Path:
    """Train every stage of the recipe's schedule on one LoRA policy; returns the checkpoint."""
    from trl import GRPOTrainer

    from security_verifiers.models.hf_generation import ChatGenerator

    console = console or Console(stderr=True)
    started = time.perf_counter()
    runtime = setup_runtime(recipe.threads, recipe.dtype)
    if runtime.notice:
        console.print(f"[yellow]Note:[/yellow] {runtime.notice}")
    console.print(f"Runtime: {runtime.device}, {runtime.dtype}, {runtime.threads} threads")
    g = recipe.grpo
    if recipe.algorithm == "grpo":
        check_vllm_machine(g, runtime.device == "cuda")
    ref = resolve_checkpoint(recipe.model, checkpoint_root=recipe.output_root)
    loop = LoopThread()
    policy = PolicyHandle(
        temperature=g.temperature, top_p=g.top_p, max_tokens=g.max_completion_length
    )
    envs = load_envs(recipe, policy, source, ref.location)
    for key, settings in recipe.envs.items():
        if settings.rows == "sft_held_out":
            console.print(f"{key}: {len(envs[key].rows)} rows of the template groups SFT left out")
    scorers = {key: EnvScorer(env, loop) for key, env in envs.items()}
    ei = recipe.expert_iteration
    held_out: dict[str, HeldOut] = {}
    if recipe.algorithm == "expert_iteration" and ei.select_split:
        for key, env in held_out_envs(recipe, envs, source).items():
            rows = held_out_rows(env.rows, ei.select_items, ei.seed)
            held_out[key] = HeldOut(key, rows, EnvScorer(env, loop))
    bridge = RewardBridge(scorers)
    schedule = recipe.schedule()

    ckpt = CheckpointDir.create(recipe.output_root, ref.slug, recipe.stage)
    ckpt.write_config(recipe)
    ckpt.write_reward_weights(bridge.weight_table())
    ckpt.write_datasets(
        {
            key: {
                "env_id": env.entry.env_id,
                "split": env.split,
                "content_hash": env.dataset_hash,
                "rows": len(env.rows),
                "rows_from": recipe.envs[key].rows,
                "reward_config": env.reward_config(),
                "prompt_style": env.prompt_style,
            }
            for key, env in envs.items()
        }
    )
    ckpt.mark(
        "running",
        base_model=ref.describe(),
        schedule=[s.model_dump() for s in schedule],
        algorithm=recipe.algorithm,
        runtime=runtime.as_dict(),
        prompt_style={key: env.prompt_style for key, env in envs.items()},
    )
    console.print(f"Checkpoint directory: {ckpt.root}")

    tokenizer = load_tokenizer(loadable(ref))
    base = load_causal_lm(loadable(ref), dtype=runtime.dtype)
    seed = ei.seed if recipe.algorithm == "expert_iteration" else g.seed
    model = new_adapter(base, recipe.lora, seed)
    policy.generator = ChatGenerator(model, tokenizer)

    history: list[dict[str, Any]] = []
    bounds: list[tuple[int, str]] = []
    stage_times: list[dict[str, Any]] = []
    offset = 0
    status, failure = "failed", None
    trainer = None
    try:
        for index, stage in enumerate(schedule):
            stage_started = time.perf_counter()
            console.print(f"[bold]Stage {index + 1}/{len(schedule)}[/bold] {stage.label}: "
                          f"{stage.steps} steps on {', '.join(stage.envs)}")  # fmt: skip
            if recipe.algorithm == "expert_iteration":
                if any(is_multi_turn(envs[key]) for key in stage.envs):
                    raise UserError(
                        f"stage '{stage.label}': expert_iteration supports single-turn "
                        f"environments only; use algorithm: grpo"
                    )
                rows = stage_rows(stage, envs, stage.steps * ei.prompts, ei.seed + index)
                entries, selection = expert.run_stage(
                    model, tokenizer, rows, stage.steps, envs, scorers, ei, runtime,
                    ckpt.trainer_dir / f"stage{index + 1}", console, offset,
                    [held_out[key] for key in stage.envs if key in held_out],
                )  # fmt: skip
                history += [{**e, "stage": stage.label} for e in entries]
                offset += len(entries)
                bounds.append((offset, stage.label))
                seconds = round(time.perf_counter() - stage_started, 1)
                stage_times.append(
                    {"stage": stage.label, "steps": len(entries), "wall_clock_s": seconds}
                    | ({"round_selection": selection} if selection else {})
                )
                continue
            n_rows = max(stage.steps * g.prompts_per_step * 2, 8)
            rows = stage_rows(stage, envs, n_rows, g.seed + index)
            rollout_func = None
            if any(is_multi_turn(envs[key]) for key in stage.envs):
                by_prompt: dict[str, list[tuple[str, dict]]] = {}
                for row in rows:
                    by_prompt.setdefault(prompt_key(row["prompt"]), []).append(
                        (row["sv_env"], json.loads(row["sv_row"]))
                    )
                rollout_func = make_rollout_func(envs, by_prompt, policy, loop)
            from datasets import Dataset

            funcs, weights = bridge.for_envs(stage.envs)
            trainer = GRPOTrainer(
                model=model,
                reward_funcs=funcs,  # type: ignore[arg-type]  # TRL: an invariant list of a union
                args=grpo_args(
                    g,
                    stage.steps,
                    ckpt.trainer_dir / f"stage{index + 1}",
                    weights,
                    runtime,
                    trainer_kwargs(recipe.report_to, recipe.tracker_project, ckpt.root.name),
                ),
                train_dataset=Dataset.from_list(rows),
                processing_class=tokenizer,
                rollout_func=rollout_func,
            )
            if recipe.report_to != "none":
                trainer.add_callback(tracker_link(
                    recipe.report_to, recipe.tracker_project, ckpt.root.name,
                    lambda record: ckpt.mark("running", tracker=record),
                ))  # fmt: skip
            try:
                with sigterm_as_interrupt():
                    trainer.train()
            finally:
                for entry in trainer.state.log_history:
                    if "step" in entry:
                        history.append(
                            {**entry, "step": entry["step"] + offset, "stage": stage.label}
                        )
                offset += trainer.state.global_step
                bounds.append((offset, stage.label))
                seconds = round(time.perf_counter() - stage_started, 1)
                stage_times.append(
                    {
                        "stage": stage.label,
                        "steps": trainer.state.global_step,
                        "wall_clock_s": seconds,
                    }
                )
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
    except BaseException as exc:
        failure = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        final = {"global_step": offset, "stages": stage_times}
        rewards = [e["reward"] for e in history if isinstance(e.get("reward"), (int, float))]
        if rewards:
            k = max(1, len(rewards) // 4)
            final["reward_first_quarter_mean"] = sum(rewards[:k]) / k
            final["reward_last_quarter_mean"] = sum(rewards[-k:]) / k
        ckpt.write_metrics(history, final)
        plot_curves(history, ckpt.root / "curves.png", f"GRPO {ref.slug}", bounds[:-1])
        saved = ckpt.save_model(
            model, tokenizer, ref, merged=recipe.save_merged and status == "complete"
        )
        ckpt.mark(status, steps=offset, saved=saved, stages=stage_times, error=failure,
                  wall_clock_total_s=round(time.perf_counter() - started, 1),
                  peak_rss_mb=round(peak_rss_mb(), 1))  # fmt: skip
    if status == "interrupted":
        console.print(f"[yellow]Stopped; adapter saved in {ckpt.root}[/yellow]")
        raise Interrupted
    done = "GRPO" if recipe.algorithm == "grpo" else "Expert iteration"
    console.print(
        f"[green]{done} done[/green] in {time.perf_counter() - started:.0f} s: {ckpt.root}"
    )
    return ckpt.root


__all__ = ["EnvSettings", "run_rl"]
