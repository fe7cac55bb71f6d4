"""Expert iteration (rejection-sampling fine-tuning), the RL alternative to GRPO.

Each round: take `prompts` training prompts, sample `k` answers per prompt from the current
policy, score every answer with the environment's own reward (the replay scorer GRPO uses too),
keep the answers that beat their group's mean (or each group's best), and run `sft_steps` SFT
steps on the kept answers (with `decision_from: mixed`, the label token only from groups whose
answers disagreed on the label). Cheaper per update than GRPO on CPU (no reference log-probs) and
never trains on an answer the reward did not prefer. With `confidence: group` a kept answer
states the share of its group that gave its label instead of its sampled confidence: a
per-answer calibration score cannot teach the policy how often it is right, a group of k
answers to the same prompt can.

Samplers (`expert_iteration.sampler`): `llama` (`auto` picks it for SmolLM2 policies on a CPU)
exports the policy (LoRA merged into a copy) to GGUF at the start of each round and samples
in-process with llama.cpp, several times faster on a CPU; `transformers` samples from the
training model itself (batched `num_return_sequences=k`; `auto` on a GPU). Both feed the
tokenizer's chat-template ids.
"""

from __future__ import annotations

import json
import queue
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.training.batching import answer_label, answer_object
from security_verifiers.training.config import ExpertIteration, SFTRecipe, SFTTrain
from security_verifiers.training.envs import TrainingEnv
from security_verifiers.training.list_pruning import prune_group
from security_verifiers.training.rewards import EnvScorer
from security_verifiers.training.round_selection import BestRound, HeldOut, restore_adapter
from security_verifiers.training.runtime import (
    Runtime,
    current_rss_mb,
    peak_rss_mb,
    release_free_memory,
)

Sampler = Callable[..., list[str]]
"""`sampler(prompt, k, *, temperature, max_tokens, seed) -> k answers`."""
GroupSampler = Callable[..., list[list[str]]]
"""`sampler(prompts, k, *, temperature, max_tokens, seeds) -> k answers per prompt`."""

CPU_SAMPLE_PROMPTS = 1
"""Prompts per transformers `generate` call on a CPU, where a left-padded batch computes its
padding too; the llama sampler is the fast CPU path."""
ACCELERATOR_SAMPLE_PROMPTS = 16
"""Prompts per transformers `generate` call on an accelerator: one prompt's k answers leave
most of a GPU idle (one expert-iteration round did not finish in 120 s on an H100)."""


def prompt_ids(tokenizer: Any, prompt: Sequence[dict[str, Any]]) -> list[int]:
    """The chat prompt's token ids, with the generation prompt appended (the same ids the
    `hf:` server generates from)."""
    from security_verifiers.models.hf_generation import chat_prompt_ids

    return chat_prompt_ids(tokenizer, prompt)


def left_padded(
    rows: Sequence[Sequence[int]], pad_id: int
) -> tuple[list[list[int]], list[list[int]]]:
    """Token rows left-padded to the longest, and their attention masks."""
    width = max(len(row) for row in rows)
    ids = [[pad_id] * (width - len(row)) + list(row) for row in rows]
    mask = [[0] * (width - len(row)) + [1] * len(row) for row in rows]
    return ids, mask


def sample_answers(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Sequence[dict[str, Any]]],
    k: int,
    *,
    temperature: float,
    max_tokens: int,
    seed: int | None = None,
) -> list[list[str]]:
    """`k` sampled answers to each chat prompt, all decoded in one generate call (the prompts
    left-padded; `num_return_sequences=k`). Temperature 0 decodes greedily."""
    import torch

    device = next(model.parameters()).device
    pad_id = (
        tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    )
    rows, mask = left_padded([prompt_ids(tokenizer, prompt) for prompt in prompts], pad_id)
    ids = torch.tensor(rows, device=device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            decoding: dict[str, Any] = (
                {"do_sample": True, "temperature": temperature, "top_p": 1.0, "top_k": 0}
                if temperature > 0
                else {"do_sample": False}
            )
            out = model.generate(
                input_ids=ids,
                attention_mask=torch.tensor(mask, device=device),
                **decoding,
                max_new_tokens=max_tokens,
                num_return_sequences=k,
                pad_token_id=pad_id,
                eos_token_id=tokenizer.eos_token_id,
            )
    finally:
        model.train(was_training)
    texts = [tokenizer.decode(seq[ids.shape[1] :], skip_special_tokens=True) for seq in out]
    return [texts[i * k : (i + 1) * k] for i in range(len(prompts))]  # k per prompt, in order


def sample_prompts(settings: ExpertIteration, device: str) -> int:
    """Prompts per transformers generate call: the setting, or the device's default."""
    if settings.sample_prompts is not None:
        return settings.sample_prompts
    return CPU_SAMPLE_PROMPTS if device == "cpu" else ACCELERATOR_SAMPLE_PROMPTS


def per_prompt(sample: Sampler) -> GroupSampler:
    """A sampler of one prompt's answers used for several prompts, one after the other."""

    def sample_groups(
        prompts: Sequence[Sequence[dict[str, Any]]], k: int, *, seeds: Sequence[int], **kw: Any
    ) -> list[list[str]]:
        return [
            sample(prompt, k, seed=seed, **kw) for prompt, seed in zip(prompts, seeds, strict=True)
        ]

    return sample_groups


@contextmanager
def llama_samplers(
    model: Any,
    tokenizer: Any,
    threads: int,
    n_ctx: int,
    max_k: int = 8,
    max_answer: int = 64,
    copies: int = 1,
) -> Iterator[list[Sampler]]:
    """The current policy exported to GGUF (in a temporary directory) and loaded in `copies`
    llama.cpp contexts that share the `threads` (at least one each); in each, the k answers to
    a prompt are decoded together (`llama_batch.BatchedSampler`). Samples with temperature
    only, like `sample_answers`, and stops at the tokenizer's EOS. `n_ctx` bounds one prompt
    plus one answer; a context's cache holds the prompt once and up to `max_k` answers of up
    to `max_answer` tokens. A context serves one call at a time; different contexts may run
    in different Python threads (llama.cpp runs without the GIL)."""
    from security_verifiers.training.export_gguf import export_model
    from security_verifiers.training.llama_batch import BatchedSampler

    with tempfile.TemporaryDirectory(prefix="sv-policy-") as tmp, ExitStack() as stack:
        path = export_model(model, Path(tmp) / "policy.gguf")
        per_copy = max(1, threads // copies)
        samplers = [
            stack.enter_context(BatchedSampler(path, max_seqs=max_k, threads=per_copy,
                                               n_ctx=n_ctx + (max_k - 1) * max_answer))
            for _ in range(copies)
        ]  # fmt: skip
        yield [_bound_sampler(sampler, tokenizer, n_ctx) for sampler in samplers]


def _bound_sampler(sampler: Any, tokenizer: Any, n_ctx: int) -> Sampler:
    """`sampler` (a `BatchedSampler`) answering chat prompts with decoded text."""

    def sample(
        prompt: Sequence[dict[str, Any]],
        k: int,
        *,
        temperature: float,
        max_tokens: int,
        seed: int | None = None,
    ) -> list[str]:
        ids = prompt_ids(tokenizer, prompt)
        if len(ids) + max_tokens > n_ctx:
            raise UserError(
                f"a {len(ids)}-token prompt does not fit the sampler's context "
                f"({n_ctx}); raise expert_iteration.max_length"
            )
        outs = sampler.sample(
            ids, k, temperature=temperature, max_tokens=max_tokens,
            stop=tokenizer.eos_token_id, seed=seed or 0,
        )  # fmt: skip
        return [tokenizer.decode(out, skip_special_tokens=True) for out in outs]

    return sample


@contextmanager
def llama_sampler(
    model: Any, tokenizer: Any, threads: int, n_ctx: int, max_k: int = 8, max_answer: int = 64
) -> Iterator[Sampler]:
    """`llama_samplers` with one context on all `threads`."""
    with llama_samplers(model, tokenizer, threads, n_ctx, max_k, max_answer) as (sample,):
        yield sample


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


def answer_labels(texts: Sequence[str]) -> list[str | None]:
    """Each answer's label (as a string), None where it has none."""
    labels = [(answer_object(text) or {}).get("label") for text in texts]
    return [None if label is None else str(label) for label in labels]


def label_agreement(texts: Sequence[str]) -> list[int | None]:
    """Per answer, how many of the group's answers gave its label (itself included); None
    where an answer has no label."""
    labels = answer_labels(texts)
    counts = Counter(label for label in labels if label is not None)
    return [None if label is None else counts[label] for label in labels]


def labels_differ(texts: Sequence[str]) -> bool:
    """Whether the group's labelled answers gave more than one label."""
    return len({label for label in answer_labels(texts) if label is not None}) > 1


def stated_confidence(
    agree: int, size: int, cap: float, prior: float = 0.0, pooled: float = 0.5
) -> float:
    """The confidence a kept answer trains with: its label's share of the group, with `prior`
    pseudo-answers at the `pooled` share added (a Beta prior; 0 = the raw share), clipped to
    [0.5, cap] and rounded to 2 decimals."""
    share = (agree + prior * pooled) / (size + prior)
    return round(min(cap, max(0.5, share)), 2)


def group_confidences(texts: Sequence[str], cap: float) -> list[float | None]:
    """Per answer, the share of the group's answers that gave the same label, clipped to
    [0.5, cap] and rounded to 2 decimals; None where an answer has no label. Unparsed
    answers count in the group's size."""
    return [
        None if agree is None else stated_confidence(agree, len(texts), cap)
        for agree in label_agreement(texts)
    ]


def rewrite_group_confidences(kept: list[dict[str, Any]], cap: float, prior: float) -> None:
    """Set each kept answer's confidence from its `agreement` (label count, group size),
    shrunk toward the round's pooled share of the kept answers by `prior` pseudo-answers."""
    counted = [item["agreement"] for item in kept if item.get("agreement")]
    pooled = sum(a for a, _ in counted) / sum(n for _, n in counted) if counted else 0.5
    for item in kept:
        agreement = item.pop("agreement", None)
        if agreement:
            message = item["completion"][-1]
            agree, size = agreement
            confidence = stated_confidence(agree, size, cap, prior, pooled)
            message["content"] = with_confidence(message["content"], confidence)


def with_confidence(text: str, confidence: float) -> str:
    """The answer with its `confidence` field set (unchanged if it is not a JSON object with
    that field)."""
    answer = answer_object(text)
    if answer is None or "confidence" not in answer:
        return text
    answer["confidence"] = confidence
    return json.dumps(answer, ensure_ascii=False)


def mean_confidence(kept: Sequence[dict[str, Any]]) -> float | None:
    """The mean `confidence` of the kept answers that state a numeric one."""
    values = []
    for item in kept:
        value = (answer_object(item["completion"][-1]["content"]) or {}).get("confidence")
        if isinstance(value, int | float) and not isinstance(value, bool):
            values.append(float(value))
    return round(sum(values) / len(values), 4) if values else None


def resolve_sampler(model: Any, sampler: str) -> str:
    """`llama` or `transformers`. `auto` is llama only for a policy on the CPU that can be
    exported to GGUF, with llama-cpp-python installed: a GPU samples faster from the model
    itself than llama.cpp's CPU build does."""
    if sampler == "transformers":
        return sampler
    if sampler == "auto" and next(model.parameters()).device.type != "cpu":
        return "transformers"
    import importlib.util

    from security_verifiers.training.export_gguf import export_problem

    problem = None
    if importlib.util.find_spec("llama_cpp") is None:
        problem = "llama-cpp-python is not installed (pip install -e '.[local]')"
    problem = problem or export_problem(model.config)
    if problem and sampler == "llama":
        raise UserError(f"expert_iteration.sampler: llama: {problem}")
    return "transformers" if problem else "llama"


@contextmanager
def _sampler(
    model: Any, tokenizer: Any, settings: ExpertIteration, runtime: Runtime
) -> Iterator[GroupSampler]:
    if settings.sampler == "llama":
        n_ctx = max(2048, settings.max_length + settings.max_completion_length)
        threads = settings.llama_threads or runtime.threads
        with llama_sampler(model, tokenizer, threads, n_ctx, max_k=settings.k,
                           max_answer=settings.max_completion_length) as sample:  # fmt: skip
            yield per_prompt(sample)
    else:

        def sample_groups(
            prompts: Sequence[Sequence[dict[str, Any]]], k: int, *, seeds: Sequence[int],
            **kw: Any,
        ) -> list[list[str]]:  # fmt: skip
            return sample_answers(model, tokenizer, prompts, k, seed=seeds[0], **kw)

        yield sample_groups


class StageOptimizer:
    """One optimizer and learning-rate schedule shared by the SFT steps of a stage's rounds
    (`optimizer_scope: stage`). Each round builds its own trainer; the first creates the
    optimizer and a schedule over the stage's `total_steps` as the Trainer would (its
    optimizer class and arguments), and later rounds reuse both, moment estimates and the
    schedule's position included."""

    def __init__(self, total_steps: int) -> None:
        self.total_steps = total_steps
        self.optimizer: Any = None
        self.scheduler: Any = None

    def attach(self, trainer: Any) -> None:
        """Give `trainer` the stage's optimizer and schedule (created on the first call)."""
        if self.optimizer is None:
            from transformers import get_scheduler

            # the schedule is built here, not by `create_scheduler`: `train()` drops a schedule
            # the trainer made itself and makes one for the round's own steps
            self.optimizer = trainer.create_optimizer()
            args = trainer.args
            self.scheduler = get_scheduler(
                args.lr_scheduler_type,
                optimizer=self.optimizer,
                num_warmup_steps=args.get_warmup_steps(self.total_steps),
                num_training_steps=self.total_steps,
                scheduler_specific_kwargs=args.lr_scheduler_kwargs,
            )
        trainer.optimizer, trainer.lr_scheduler = self.optimizer, self.scheduler

    @property
    def steps_taken(self) -> int:
        """Optimizer steps the schedule has seen so far."""
        return 0 if self.scheduler is None else int(self.scheduler.last_epoch)


def _scores(scorer: EnvScorer, row: dict[str, Any]) -> Callable[[list[str]], list[float]]:
    """Rewards of answers to `row`'s prompt, in order."""
    return lambda texts: [s["reward"] for s in scorer.score([row] * len(texts), texts)]


def held_out_workers(settings: ExpertIteration, runtime: Runtime) -> int:
    """llama.cpp contexts that answer the held-out rows side by side: `select_workers`, or
    one per llama thread; 1 with the transformers sampler."""
    if settings.sampler != "llama":
        return 1
    return settings.select_workers or settings.llama_threads or runtime.threads


def greedy_answers(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Sequence[dict[str, Any]]],
    settings: ExpertIteration,
    runtime: Runtime,
) -> list[str]:
    """The policy's greedy answer to each prompt (as evaluation decodes), in order; with
    several `held_out_workers`, each llama.cpp context takes the next unanswered prompt."""
    decoding: dict[str, Any] = {"temperature": 0.0, "max_tokens": settings.max_completion_length}
    workers = held_out_workers(settings, runtime)
    if workers == 1:
        answers: list[str] = []
        per_call = sample_prompts(settings, runtime.device)
        with _sampler(model, tokenizer, settings, runtime) as sample_groups:
            for start in range(0, len(prompts), per_call):
                chunk = prompts[start : start + per_call]
                groups = sample_groups(chunk, 1, seeds=[0] * len(chunk), **decoding)
                answers += [texts[0] for texts in groups]
        return answers
    n_ctx = max(2048, settings.max_length + settings.max_completion_length)
    threads = settings.llama_threads or runtime.threads
    with llama_samplers(model, tokenizer, threads, n_ctx, max_k=settings.k,
                        max_answer=settings.max_completion_length,
                        copies=workers) as samplers:  # fmt: skip
        idle: queue.SimpleQueue[Sampler] = queue.SimpleQueue()
        for sample in samplers:
            idle.put(sample)

        def answer(prompt: Sequence[dict[str, Any]]) -> str:
            sample = idle.get()
            try:
                return sample(prompt, 1, seed=0, **decoding)[0]
            finally:
                idle.put(sample)

        with ThreadPoolExecutor(workers, thread_name_prefix="sv-held-out") as pool:
            return list(pool.map(answer, prompts))


def held_out_reward(
    model: Any,
    tokenizer: Any,
    held_out: Sequence[HeldOut],
    settings: ExpertIteration,
    runtime: Runtime,
) -> float:
    """Mean reward of the policy's greedy answers to the held-out rows, each scored by its
    part's scorer."""
    pairs = [(part, row) for part in held_out for row in part.rows]
    prompts = [row["prompt"] for _, row in pairs]
    answers = greedy_answers(model, tokenizer, prompts, settings, runtime)
    rewards: list[float] = []
    for (part, row), text in zip(pairs, answers, strict=True):
        rewards += _scores(part.scorer, row)([text])
    return sum(rewards) / max(1, len(rewards))


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
    optimizer: StageOptimizer | None = None,
) -> dict[str, Any]:
    """One round: sample, score, select, SFT. Returns the round's log entry. With `optimizer`
    the SFT steps use (and on the first round create) the stage's optimizer and schedule."""
    from security_verifiers.training.sft import build_sft_trainer

    started = time.perf_counter()
    kept: list[dict[str, Any]] = []
    groups: Counter[str] = Counter()  # groups with a kept answer, by gold label and agreement
    all_rewards: list[float] = []
    n_samples = pruned = 0
    export_s = 0.0
    per_call = sample_prompts(settings, runtime.device)
    with _sampler(model, tokenizer, settings, runtime) as sample:
        export_s = time.perf_counter() - started
        fulls = [json.loads(row["sv_row"]) for row in rows]
        sampled: list[list[str]] = []
        for start in range(0, len(rows), per_call):
            sampled += sample(
                [full["prompt"] for full in fulls[start : start + per_call]],
                settings.k,
                temperature=settings.temperature,
                max_tokens=settings.max_completion_length,
                seeds=[settings.seed + 1000 * round_index + i
                       for i in range(start, min(len(rows), start + per_call))],
            )  # fmt: skip
        for row, full, texts in zip(rows, fulls, sampled, strict=True):
            env_key = row["sv_env"]
            n_samples += len(texts)
            score = _scores(scorers[env_key], full)
            rewards = score(texts)
            all_rewards += rewards
            if settings.prune_fields:
                texts, rewards, changed = prune_group(texts, rewards, settings.prune_fields, score)
                pruned += changed
            chosen = select(rewards, settings.keep, settings.min_reward)
            agree = label_agreement(texts) if settings.confidence == "group" else []
            mixed = labels_differ(texts)
            if chosen:
                groups[f"{full.get('answer')}/{'mixed' if mixed else 'agreed'}"] += 1
            for j in chosen:
                item = {
                    "prompt": list(full["prompt"]),
                    "completion": [{"role": "assistant", "content": texts[j]}],
                    "gold": full.get("answer"),
                    "train_decision": mixed or settings.decision_from == "all",
                }
                if agree and agree[j]:
                    item["agreement"] = (agree[j], len(texts))  # removed before training
                kept.append(item)
    if settings.confidence == "group":
        rewrite_group_confidences(kept, settings.confidence_cap, settings.confidence_prior)
    sample_s = time.perf_counter() - started - export_s
    if runtime.device == "cpu":
        release_free_memory()  # the export's and sampler's freed pages, before the SFT steps
    entry: dict[str, Any] = {
        "step": round_index + 1,
        "reward": sum(all_rewards) / max(1, len(all_rewards)),
        "samples": n_samples,
        "kept": len(kept),
        "kept_labels": dict(Counter(answer_label(item) or "unparsed" for item in kept)),
        "kept_gold": dict(Counter(str(item["gold"]) for item in kept)),
        "kept_groups": dict(sorted(groups.items())),
        "decision_trained": dict(
            Counter(str(item["gold"]) for item in kept if item["train_decision"])
        ),
        "kept_confidence": mean_confidence(kept),
        **({"pruned": pruned} if settings.prune_fields else {}),
        "sampler": settings.sampler,
        "export_s": round(export_s, 2),
        "sample_s": round(sample_s, 2),
        "completions_per_s": round(n_samples / sample_s, 3) if sample_s > 0 else None,
        "peak_rss_mb_sampled": round(peak_rss_mb(), 1),  # the process's peak so far
        "rss_mb_before_sft": rss if (rss := current_rss_mb()) is None else round(rss, 1),
    }
    if kept:
        recipe = SFTRecipe(
            dtype=runtime.dtype,
            threads=runtime.threads,
            train=SFTTrain(
                max_steps=settings.sft_steps,
                learning_rate=settings.learning_rate,
                batch_size=min(settings.batch_size, len(kept)),
                grad_accum=settings.grad_accum,
                pad_to_multiple_of=settings.pad_to_multiple_of,
                decision_weight=settings.decision_weight,
                confidence_weight=settings.confidence_weight,
                activation_checkpointing=settings.activation_checkpointing,
                max_length=settings.max_length,
                warmup_ratio=0.0,
                logging_steps=1,
                save_steps=10**9,
                label_balanced=settings.label_balanced,
                release_memory_every=1,
                seed=settings.seed + round_index,
            ),
        )
        _, trainer = build_sft_trainer(
            recipe,
            None,
            kept,
            output_dir / f"round{round_index + 1}",
            runtime,
            tokenizer,
            model,
            balance_key=lambda item: item.get("gold"),
        )
        if optimizer is not None:
            optimizer.attach(trainer)
        trainer.train()
        losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
        if losses:
            entry["loss"] = float(losses[-1])
        rates = [e["learning_rate"] for e in trainer.state.log_history if "learning_rate" in e]
        if rates:
            entry["learning_rate"] = [float(rates[0]), float(rates[-1])]  # first, last step
        tokenizer.padding_side = "left"
        del trainer
    if runtime.device == "cpu":
        release_free_memory()  # the round's export, sampling and SFT leave a fragmented heap
    entry["round_s"] = round(time.perf_counter() - started, 2)
    entry["peak_rss_mb"] = round(peak_rss_mb(), 1)
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
    held_out: Sequence[HeldOut] = (),
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """`steps` rounds over consecutive slices of `rows`; returns the log entries and, with
    `held_out` rows, the round selection (the stage then ends on its best adapter)."""
    settings = settings.model_copy(update={"sampler": resolve_sampler(model, settings.sampler)})
    if settings.sampler == "transformers":
        console.print("Sampling with transformers")
    history = []
    per_round = settings.prompts
    optimizer = (
        StageOptimizer(steps * settings.sft_steps) if settings.optimizer_scope == "stage" else None
    )
    best = BestRound() if held_out else None
    scored = list(range(steps + 1)) if settings.select_rounds == "all" else [0, steps]

    def score_policy(rounds_done: int) -> float:
        assert best is not None
        started = time.perf_counter()
        score = held_out_reward(model, tokenizer, held_out, settings, runtime)
        kept = best.offer(rounds_done, score, model)
        console.print(f"held-out reward after {rounds_done} rounds: {score:.3f}"
                      f"{' (best so far)' if kept else ''}, "
                      f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        return score

    if best is not None:
        score_policy(0)
    for r in range(steps):
        chunk = [rows[(r * per_round + i) % len(rows)] for i in range(per_round)]
        entry = run_round(
            model,
            tokenizer,
            chunk,
            envs,
            scorers,
            settings,
            runtime,
            output_dir,
            offset + r,
            optimizer,
        )
        console.print(
            f"round {offset + r + 1}: reward {entry['reward']:.3f}, kept {entry['kept']}/"
            f"{entry['samples']} {entry['kept_labels']}, {entry['round_s']:.0f} s"
            + (f", {entry['pruned']} pruned" if "pruned" in entry else "")
        )
        if best is not None and r + 1 in scored:
            entry["held_out_reward"] = score_policy(r + 1)
        history.append(entry)
    if best is None:
        return history, None
    if best.round < steps and best.snapshot is not None:
        restore_adapter(model, best.snapshot)
    console.print(f"Round selection: the stage ends on round {best.round} of {steps} "
                  f"(held-out reward {best.score:.3f})")  # fmt: skip
    selection = {
        "selected_round": best.round,
        "rounds": steps,
        "scored_rounds": scored,
        "held_out_rewards": [round(x, 4) for x in best.scores],
        "held_out_items": sum(len(part.rows) for part in held_out),
    }
    return history, selection
