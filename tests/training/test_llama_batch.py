"""`llama_batch.BatchedSampler`: k answers decoded together in one llama.cpp context, on the
real SmolLM2 GGUF the project installs."""

from __future__ import annotations

import numpy as np
import pytest

from security_verifiers.training.llama_batch import BatchedSampler, common_prefix, draw

SYSTEM = "You triage emails. Answer with one JSON object: label and confidence."


@pytest.fixture(scope="module")
def setup():
    pytest.importorskip("llama_cpp")
    from llama_cpp import Llama

    from security_verifiers.models.hf_checkpoint import resolve_checkpoint

    gguf = resolve_checkpoint("smollm2-135m").location
    vocab = Llama(gguf, vocab_only=True, verbose=False)

    def ids(user: str) -> list[int]:
        text = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                "<|im_start|>assistant\n")  # fmt: skip
        return vocab.tokenize(text.encode(), add_bos=False, special=True)

    eos = vocab.tokenize(b"<|im_end|>", add_bos=False, special=True)[0]
    return gguf, ids, eos


def reference_logits(gguf: str, ids: list[int], answer: list[int]) -> list[np.ndarray]:
    """llama-cpp-python's own one-sequence logits after the prompt and after each answer token
    but the last."""
    from llama_cpp import Llama

    llm = Llama(gguf, n_ctx=512, n_threads=2, verbose=False)
    out = []
    try:
        for chunk in [ids] + [[t] for t in answer[:-1]]:
            llm.eval(chunk)
            out.append(np.array(llm.eval_logits[-1]) if llm.eval_logits else None)
            out[-1] = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).copy()
    finally:
        llm.close()
    return out


def test_draw_and_common_prefix():
    rng = np.random.default_rng(0)
    logits = np.array([0.0, np.log(3.0), -50.0], dtype=np.float32)
    assert draw(logits, 0.0, rng) == 1
    picks = [draw(logits, 1.0, rng) for _ in range(4000)]
    assert 0.72 < picks.count(1) / 4000 < 0.78 and 2 not in picks
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and common_prefix([], [1]) == 0


def test_every_sequence_sees_the_prompt_also_through_a_reused_prefix(setup):
    """Teacher-forced: k sequences fed the same answer after a shared prompt get llama.cpp's
    one-sequence logits at every step, also when the prompt came back through the cached
    prefix of an earlier prompt. To rounding: batches take other kernels, and this 4-bit model
    rounds coarsely (up to ~1 logit here; ~0.05 on an f16 export). A sequence cut off from the
    prompt is off by ~20 (checked last)."""
    gguf, ids, eos = setup
    first, second = ids("Subject: invoice overdue, click here"), ids("Subject: lunch on friday?")
    assert 10 < common_prefix(first, second) < len(second)
    with BatchedSampler(gguf, max_seqs=4, n_ctx=512, threads=2) as sampler:
        answer = sampler.sample(first, 1, temperature=0.0, max_tokens=8, stop=eos)[0]
        expected = reference_logits(gguf, first, answer)
        sampler.sample(second, 3, temperature=1.0, max_tokens=8, stop=eos)
        got = [sampler._evaluate_prompt(first).copy()]
        for n, token in enumerate(answer[:-1]):
            sampler._decode([(token, len(first) + n, (s,), True) for s in range(4)])
            rows = [sampler._logits(i).copy() for i in range(4)]
            assert max(np.abs(r - rows[0]).max() for r in rows) < 3.0
            got.append(rows[2])
        sampler._lc.llama_memory_seq_rm(sampler._memory, -1, len(first), -1)
        sampler._lc.llama_memory_seq_rm(sampler._memory, 3, -1, -1)  # seq 3 loses the prompt
        sampler._decode([(answer[0], len(first), (s,), True) for s in range(4)])
        cut_off = sampler._logits(3).copy()
    assert len(answer) == 8
    for want, have in zip(expected, got, strict=True):
        assert np.abs(want - have).max() < 3.0, np.abs(want - have).max()
    assert np.abs(cut_off - expected[1]).max() > 10.0


def test_a_prompt_longer_than_a_batch_is_evaluated_in_chunks(setup):
    gguf, ids, eos = setup
    prompt = ids("Subject: quarterly report. " * 8)
    assert len(prompt) > 3 * 16
    expected = reference_logits(gguf, prompt, [0])[0]
    with BatchedSampler(gguf, max_seqs=2, n_ctx=512, threads=2, n_batch=16) as sampler:
        assert sampler.n_batch == 16
        got = sampler._evaluate_prompt(prompt)
        assert np.abs(got - expected).max() < 3.0
        answers = sampler.sample(prompt, 2, temperature=1.0, max_tokens=6, stop=eos, seed=1)
    assert len(answers) == 2 and all(len(a) <= 6 for a in answers)


def test_seeds_lengths_and_limits(setup):
    gguf, ids, eos = setup
    prompt = ids("Subject: your account is locked")
    with BatchedSampler(gguf, max_seqs=6, n_ctx=256, threads=2) as sampler:
        one = sampler.sample(prompt, 6, temperature=1.0, max_tokens=10, stop=eos, seed=3)
        same = sampler.sample(prompt, 6, temperature=1.0, max_tokens=10, stop=eos, seed=3)
        other = sampler.sample(prompt, 6, temperature=1.0, max_tokens=10, stop=eos, seed=4)
        assert one == same and one != other and len(set(map(tuple, one))) > 1
        assert all(len(x) <= 10 and eos not in x for x in one + other)
        assert sampler.sample(prompt, 2, temperature=1.0, max_tokens=0, stop=eos) == [[], []]
        with pytest.raises(ValueError, match=r"outside 1\.\.6"):
            sampler.sample(prompt, 7, temperature=1.0, max_tokens=4, stop=eos)
        with pytest.raises(ValueError, match="exceed the 256-token context"):
            sampler.sample(prompt * 10, 2, temperature=1.0, max_tokens=4, stop=eos)
        # a refused call leaves the sampler usable
        assert sampler.sample(prompt, 6, temperature=1.0, max_tokens=10, stop=eos, seed=3) == one
    with pytest.raises(ValueError, match=r"llama\.cpp's limit"):
        BatchedSampler(gguf, max_seqs=0, n_ctx=256, threads=1)


def test_bench_reports_the_batched_samplers_throughput(setup):
    """`make bench-train ARGS=--llama` puts the expert-iteration sampler next to the server."""
    import argparse

    from security_verifiers.training.bench import bench_llama_batched

    _, ids, eos = setup
    out = bench_llama_batched(argparse.Namespace(model="smollm2-135m"), ids("Hello"), 3, 6, eos)
    assert out["batched_completions_per_s"] > 0 and out["batched_completion_tokens_per_s"] >= 0
