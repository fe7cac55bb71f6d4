"""`algorithm: expert_iteration` end to end on the tiny model: sample, score, select, SFT."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER
from security_verifiers.training.config import RLRecipe, load_recipe

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115


def run_tiny_expert_iteration(
    model_dir: Path, tmp_path: Path, rounds: int, **settings: Any
) -> Path:
    """Expert iteration on E1's compact train prompts with the tiny model; returns the
    checkpoint. `settings` override the `expert_iteration` block."""
    from security_verifiers.training.rl import run_rl

    path = tmp_path / "ei.yaml"
    path.write_text(yaml.safe_dump({
        "model": str(model_dir), "output_root": str(tmp_path / "ckpt"),
        "algorithm": "expert_iteration", "dtype": "float32", "threads": 1,
        "envs": {"e1": {"env_args": {"split": "train", "prompt_style": "compact"},
                        "max_examples": 8}},
        "stages": [{"envs": ["e1"], "steps": rounds}],
        "expert_iteration": {"k": 3, "prompts": 2, "max_completion_length": 6,
                             "sft_steps": 1, "batch_size": 2, "min_reward": -10.0,
                             **settings},
        "lora": {"r": 4, "alpha": 8}, "save_merged": False,
    }))  # fmt: skip
    return run_rl(load_recipe(path, RLRecipe), QUIET, source=path)


def test_expert_iteration_writes_a_complete_checkpoint(tiny_model_dir: Path, tmp_path: Path):
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=2)
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    assert meta["status"] == "complete" and meta["algorithm"] == "expert_iteration"
    assert meta["runtime"]["dtype"] == "float32" and meta["runtime"]["threads"] == 1
    assert meta["prompt_style"] == {"e1": "compact"}
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    assert [e["step"] for e in history] == [1, 2]
    assert all(e["samples"] == 6 and 0 <= e["kept"] <= 6 for e in history)
    datasets = json.loads((root / "datasets.json").read_text())
    assert datasets["e1"]["prompt_style"] == "compact"


def test_expert_iteration_accumulates_micro_batches(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`expert_iteration.grad_accum` reaches each round's SFT trainer: every optimizer step
    trains on batch_size x grad_accum kept answers."""
    from security_verifiers.training import sft

    seen: list[tuple[int, int]] = []
    original = sft.build_sft_trainer

    def recording(recipe, *args, **kwargs):
        tokenizer, trainer = original(recipe, *args, **kwargs)
        seen.append((trainer.args.per_device_train_batch_size,
                     trainer.args.gradient_accumulation_steps))  # fmt: skip
        return tokenizer, trainer

    monkeypatch.setattr(sft, "build_sft_trainer", recording)
    run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, grad_accum=2, keep="best")
    assert seen == [(2, 2)]


def test_activation_checkpointing_reaches_each_round(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`expert_iteration.activation_checkpointing` reaches each round's SFT trainer, the round
    trains with the shared prompt prefix under it, and the round logs its memory."""
    from security_verifiers.training import prefix_sharing, sft

    flags: list[bool] = []
    prefixes: list[int] = []
    original_build, original_loss = sft.build_sft_trainer, prefix_sharing.completion_loss

    def recording_build(recipe, *args, **kwargs):
        tokenizer, trainer = original_build(recipe, *args, **kwargs)
        flags.append(trainer.args.activation_checkpointing)
        return tokenizer, trainer

    def recording_loss(model, inputs, *args, **kwargs):
        loss, stats = original_loss(model, inputs, *args, **kwargs)
        layers = prefix_sharing.checkpointed_layers(model.get_decoder())
        prefixes.append(stats.shared_prefix if layers else -1)
        return loss, stats

    monkeypatch.setattr(sft, "build_sft_trainer", recording_build)
    monkeypatch.setattr(prefix_sharing, "completion_loss", recording_loss)
    root = run_tiny_expert_iteration(
        tiny_model_dir, tmp_path, rounds=1, keep="best", activation_checkpointing=True
    )
    assert flags == [True]
    assert prefixes and all(p > 0 for p in prefixes)  # checkpointed, prefix shared
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["rss_mb_before_sft"] > 0 and entry["peak_rss_mb"] >= entry["rss_mb_before_sft"]


def group_answer(label: str) -> str:
    return json.dumps({"label": label, "confidence": 0.9, "rationale": "r"})


def record_trained_examples(monkeypatch: pytest.MonkeyPatch) -> list[list[dict]]:
    """Patch the rounds' SFT trainer builder to record each round's training examples."""
    from security_verifiers.training import sft

    trained: list[list[dict]] = []
    original = sft.build_sft_trainer

    def recording(recipe, ref, examples, *args, **kwargs):
        trained.append(list(examples))
        return original(recipe, ref, examples, *args, **kwargs)

    monkeypatch.setattr(sft, "build_sft_trainer", recording)
    return trained


def test_a_round_trains_on_kept_answers_with_group_confidences(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Every group is 3 x Malicious + 1 x Benign at confidence 0.9; whichever is right is kept
    and trains saying 0.75 (Malicious) or 0.5 (Benign, 1/4 clipped), never 0.9."""
    from security_verifiers.training import expert

    group = [group_answer("Malicious")] * 3 + [group_answer("Benign")]

    @contextmanager
    def fixed_sampler(*args, **kwargs):
        yield lambda prompts, k, **kw: [list(group) for _ in prompts]

    trained = record_trained_examples(monkeypatch)
    monkeypatch.setattr(expert, "_sampler", fixed_sampler)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, k=4, prompts=3,
                                     confidence="group", min_reward=0.0)  # fmt: skip
    (kept,) = trained
    assert kept
    for item in kept:
        stated = json.loads(item["completion"][-1]["content"])
        assert stated["label"] == item["gold"]
        assert stated["confidence"] == {"Malicious": 0.75, "Benign": 0.5}[item["gold"]]
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["kept_confidence"] < 0.9


def test_sampled_confidence_is_the_default(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from security_verifiers.training import expert

    @contextmanager
    def fixed_sampler(*args, **kwargs):
        yield lambda prompts, k, **kw: [
            [group_answer("Malicious")] * 3 + [group_answer("Benign")] for _ in prompts
        ]

    monkeypatch.setattr(expert, "_sampler", fixed_sampler)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, k=4, prompts=3,
                                     min_reward=0.0)  # fmt: skip
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["kept_confidence"] == 0.9
    assert 0 < entry["peak_rss_mb_sampled"] <= entry["peak_rss_mb"]  # which phase set the peak


@pytest.mark.parametrize("decision_from", ["mixed", "all"])
def test_groups_that_agree_on_the_label_do_not_train_it_under_mixed(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decision_from: str
):
    """Every group says Malicious at varying confidences, so answers are kept for their
    calibration. Under `decision_from: mixed` none of them trains the label token (the rest of
    each answer still trains); under `all` each does."""
    from security_verifiers.training import expert, sft
    from security_verifiers.training.decision_tokens import answer_prefix_ids, decision_mask

    agreed = [
        json.dumps({"label": "Malicious", "confidence": c, "rationale": "r"})
        for c in (0.9, 0.6, 0.8, 0.5)
    ]

    @contextmanager
    def fixed_sampler(*args, **kwargs):
        yield lambda prompts, k, **kw: [list(agreed) for _ in prompts]

    found: list[tuple[int, int]] = []
    original = sft.build_sft_trainer

    def recording(recipe, *args, **kwargs):
        import torch

        tokenizer, trainer = original(recipe, *args, **kwargs)
        prefix = answer_prefix_ids(tokenizer)
        for row in trainer.train_dataset:
            ids, labels = torch.tensor([row["input_ids"]]), torch.tensor([row["labels"]])
            trained = int((labels != -100).sum())
            found.append((int(decision_mask(ids, labels, prefix).sum()), trained))
        return tokenizer, trainer

    monkeypatch.setattr(expert, "_sampler", fixed_sampler)
    monkeypatch.setattr(sft, "build_sft_trainer", recording)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, k=4, prompts=3,
                                     decision_from=decision_from)  # fmt: skip
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["kept"] > 0 and found
    assert set(entry["kept_groups"]) <= {"Benign/agreed", "Malicious/agreed"}
    assert all(trained > 10 for _, trained in found)  # the rest of the answer trains
    if decision_from == "mixed":
        assert entry["decision_trained"] == {}
        assert all(decisions == 0 for decisions, _ in found)
    else:
        assert sum(entry["decision_trained"].values()) == entry["kept"]
        assert all(decisions == 1 for decisions, _ in found)


@pytest.mark.parametrize("scope", ["round", "stage"])
def test_a_stage_scoped_optimizer_runs_one_schedule_through_the_rounds(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: str
):
    """`optimizer_scope: stage`: every round's trainer steps the same AdamW (its step count
    runs on) down one cosine schedule over rounds x sft_steps; `round`: each round restarts
    at the full learning rate."""
    from security_verifiers.training import expert

    attached: list[expert.StageOptimizer] = []
    original = expert.StageOptimizer.attach

    def recording(self, trainer):
        original(self, trainer)
        attached.append(self)

    monkeypatch.setattr(expert.StageOptimizer, "attach", recording)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=3, keep="best",
                                     sft_steps=2, optimizer_scope=scope)  # fmt: skip
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    first_rates = [entry["learning_rate"][0] for entry in history]
    if scope == "round":
        assert not attached
        assert first_rates[0] == first_rates[1] == first_rates[2]
        return
    assert len(attached) == 3 and len({id(s) for s in attached}) == 1
    shared = attached[0]
    assert shared.steps_taken == 6
    assert all(int(state["step"]) == 6 for state in shared.optimizer.state.values())
    assert first_rates[0] > first_rates[1] > first_rates[2]
    assert history[-1]["learning_rate"][1] < 0.1 * first_rates[0]  # step 6 of 6: cos(5/6 pi)


def test_the_confidence_weight_reaches_each_rounds_loss(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from security_verifiers.training import prefix_sharing

    weights: list[tuple[float, bool]] = []
    original = prefix_sharing.completion_loss

    def recording(model, inputs, *args, **kwargs):
        weights.append((kwargs["confidence_weight"], kwargs["confidence_ids"] is not None))
        return original(model, inputs, *args, **kwargs)

    monkeypatch.setattr(prefix_sharing, "completion_loss", recording)
    run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, keep="best",
                              confidence_weight=4.0)  # fmt: skip
    assert weights and all(w == (4.0, True) for w in weights)


def test_pruned_answers_are_the_ones_selected_and_trained(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`prune_fields` hands each group (answers, rewards, fields, scorer) to `prune_group`
    before selection; what it returns is what is selected, trained and counted."""
    from security_verifiers.training import expert

    @contextmanager
    def fixed_sampler(*args, **kwargs):
        yield lambda prompts, k, **kw: [
            [group_answer("Malicious")] * 3 + [group_answer("Benign")] for _ in prompts
        ]

    calls: list[tuple] = []

    def fake_prune(texts, rewards, fields, score):
        calls.append((list(texts), list(fields), score(list(texts[:1]))))
        edited = [t.replace('"r"', '"pruned"') for t in texts[:1]] + list(texts[1:])
        return edited, [10.0, *rewards[1:]], 1

    trained = record_trained_examples(monkeypatch)
    monkeypatch.setattr(expert, "_sampler", fixed_sampler)
    monkeypatch.setattr(expert, "prune_group", fake_prune)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, k=4, prompts=3,
                                     keep="best", prune_fields=["evidence"])  # fmt: skip
    assert len(calls) == 3 and all(fields == ["evidence"] for _, fields, _ in calls)
    assert all(len(texts) == 4 and len(scored) == 1 for texts, _, scored in calls)
    (kept,) = trained
    assert len(kept) == 3  # each group's best is the pruned answer
    assert all('"pruned"' in item["completion"][-1]["content"] for item in kept)
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["pruned"] == 3


def test_the_transformers_sampler_decodes_several_prompts_in_one_call(tiny_model_dir: Path):
    """Prompts of different lengths are left-padded into one generate call and come back as
    k answers per prompt, in order; near-greedy decoding gives each prompt the answers it gets
    alone (the padding is masked and does not shift positions)."""
    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.training.expert import sample_answers

    ref = resolve_checkpoint(str(tiny_model_dir))
    model = load_causal_lm(ref, dtype="float32")
    tokenizer = load_tokenizer(ref)
    prompts = [
        [{"role": "user", "content": "one short prompt"}],
        [{"role": "user", "content": "a much longer prompt " * 6}],
    ]
    kw = {"temperature": 1e-6, "max_tokens": 5, "seed": 0}
    together = sample_answers(model, tokenizer, prompts, 2, **kw)
    alone = [sample_answers(model, tokenizer, [prompt], 2, **kw)[0] for prompt in prompts]
    assert [len(group) for group in together] == [2, 2]
    assert together == alone


def test_rounds_sample_prompts_in_batches_of_sample_prompts(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from security_verifiers.training import expert

    calls: list[tuple[int, list[int]]] = []

    def recording(prompts, k, *, seeds, **kw):
        calls.append((len(prompts), list(seeds)))
        return [[group_answer("Malicious")] * 3 + [group_answer("Benign")] for _ in prompts]

    @contextmanager
    def fixed_sampler(*args, **kwargs):
        yield recording

    monkeypatch.setattr(expert, "_sampler", fixed_sampler)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, k=4, prompts=3,
                                     sample_prompts=2, seed=5)  # fmt: skip
    assert calls == [(2, [5, 6]), (1, [7])]  # every prompt keeps its own seed
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["samples"] == 12


def test_sample_prompts_defaults_to_one_on_a_cpu_and_more_on_an_accelerator():
    from security_verifiers.training.config import ExpertIteration
    from security_verifiers.training.expert import (
        ACCELERATOR_SAMPLE_PROMPTS,
        per_prompt,
        sample_prompts,
    )

    assert sample_prompts(ExpertIteration(), "cpu") == 1
    assert sample_prompts(ExpertIteration(), "cuda") == ACCELERATOR_SAMPLE_PROMPTS > 1
    assert sample_prompts(ExpertIteration(sample_prompts=4), "cpu") == 4
    groups = per_prompt(lambda prompt, k, *, seed, **kw: [f"{prompt}:{seed}"] * k)
    assert groups(["a", "b"], 2, seeds=[1, 2], temperature=1.0) == [["a:1"] * 2, ["b:2"] * 2]
