"""Expert iteration with `sampler: llama`: the policy is exported to GGUF each round and sampled
in llama.cpp (on the real SmolLM2: export needs a llama GGUF base)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER
from security_verifiers.training.config import RLRecipe, load_recipe

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115


def test_one_round_with_the_llama_sampler(tmp_path: Path):
    pytest.importorskip("llama_cpp")
    pytest.importorskip("trl", reason="the training extra is not installed (make setup)")
    from security_verifiers.training.rl import run_rl

    path = tmp_path / "ei.yaml"
    path.write_text(yaml.safe_dump({
        "model": "smollm2-135m", "output_root": str(tmp_path / "ckpt"),
        "algorithm": "expert_iteration", "dtype": "float32", "threads": 2,
        "envs": {"e1": {"env_args": {"split": "train", "prompt_style": "compact"},
                        "max_examples": 4}},
        "stages": [{"envs": ["e1"], "steps": 1}],
        "expert_iteration": {"sampler": "llama", "k": 3, "prompts": 2,
                             "max_completion_length": 6, "sft_steps": 1, "batch_size": 2,
                             "min_reward": -10.0},
        "lora": {"r": 4, "alpha": 8}, "save_merged": False,
    }))  # fmt: skip
    root = run_rl(load_recipe(path, RLRecipe), QUIET, source=path)
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    assert meta["status"] == "complete"
    (entry,) = json.loads((root / "metrics.json").read_text())["log_history"]
    assert entry["sampler"] == "llama" and entry["samples"] == 6 and entry["export_s"] > 0


@pytest.fixture(scope="module")
def smollm2() -> tuple[str, object, object]:
    """The shipped SmolLM2's GGUF path, its weights in transformers and its tokenizer."""
    pytest.importorskip("llama_cpp")
    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.training.model_cache import loadable

    ref = resolve_checkpoint("smollm2-135m")
    return ref.location, load_causal_lm(loadable(ref)), load_tokenizer(loadable(ref))


def test_llama_sampler_tokens_and_seeds(smollm2):
    """The GGUF's tokenizer renders the chat prompt into transformers' ids (the sampler feeds
    those ids directly), and a seed fixes the k answers."""
    from llama_cpp import Llama

    from security_verifiers.training.expert import llama_sampler, prompt_ids

    location, model, tokenizer = smollm2
    prompt = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Hi"}]
    text = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
    ids = prompt_ids(tokenizer, prompt)
    vocab = Llama(location, vocab_only=True, verbose=False)
    assert vocab.tokenize(text.encode(), add_bos=False, special=True) == ids
    with llama_sampler(model, tokenizer, threads=2, n_ctx=256) as sample:
        first = sample(prompt, 3, temperature=1.0, max_tokens=8, seed=7)
        again = sample(prompt, 3, temperature=1.0, max_tokens=8, seed=7)
    assert len(first) == 3 and first == again and len(set(first)) > 1


def test_held_out_workers_answer_as_one_context_does(smollm2):
    """Greedy held-out answers from two llama.cpp contexts side by side (one thread each) are
    the answers of one context on both threads, in the prompts' order."""
    from security_verifiers.training.config import ExpertIteration
    from security_verifiers.training.expert import greedy_answers, held_out_workers
    from security_verifiers.training.runtime import Runtime

    _, model, tokenizer = smollm2
    runtime = Runtime(device="cpu", dtype="float32", requested_dtype="float32", threads=2,
                      cpu_bf16=False)  # fmt: skip
    prompts = [[{"role": "user", "content": f"Name a colour and the number {n}."}]
               for n in range(7)]  # fmt: skip
    settings = ExpertIteration(sampler="llama", k=4, max_completion_length=10, max_length=128)
    assert held_out_workers(settings, runtime) == 2
    parallel = greedy_answers(model, tokenizer, prompts, settings, runtime)
    one = settings.model_copy(update={"select_workers": 1})
    assert held_out_workers(one, runtime) == 1
    assert parallel == greedy_answers(model, tokenizer, prompts, one, runtime)
    assert len(parallel) == 7 and len(set(parallel)) > 1
    transformers = settings.model_copy(update={"sampler": "transformers"})
    assert held_out_workers(transformers, runtime) == 1


class _Policy:
    """Just what `resolve_sampler` reads: the config and the parameters' device."""

    def __init__(self, device: str) -> None:
        import torch

        self.config = object()
        self.weight = torch.empty(1, device=device)

    def parameters(self):
        yield self.weight


@pytest.mark.parametrize(
    ("device", "has_llama", "asked", "expected"),
    [
        ("cpu", True, "auto", "llama"),
        ("meta", True, "auto", "transformers"),  # any accelerator: sample from the model itself
        ("cpu", False, "auto", "transformers"),  # no llama-cpp-python installed
        ("cpu", False, "transformers", "transformers"),
        ("meta", True, "llama", "llama"),  # asked for explicitly
    ],
)
def test_auto_sampler_is_llama_only_on_a_cpu_with_llama_cpp(
    monkeypatch: pytest.MonkeyPatch, device: str, has_llama: bool, asked: str, expected: str
):
    import importlib.util

    from security_verifiers.training import expert, export_gguf

    monkeypatch.setattr(export_gguf, "export_problem", lambda config: None)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            (real_find_spec("json") if has_llama else None)
            if name == "llama_cpp"
            else real_find_spec(name, *a)
        ),
    )
    assert expert.resolve_sampler(_Policy(device), asked) == expected


def test_llama_sampler_without_llama_cpp_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch):
    import importlib.util

    from security_verifiers.errors import UserError
    from security_verifiers.training import expert, export_gguf

    monkeypatch.setattr(export_gguf, "export_problem", lambda config: None)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real_find_spec(name, *a),
    )
    with pytest.raises(UserError, match=r"sampler: llama: llama-cpp-python is not installed"):
        expert.resolve_sampler(_Policy("cpu"), "llama")
