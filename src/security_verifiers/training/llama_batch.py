"""k samples of one prompt, decoded together in llama.cpp.

Expert iteration draws k answers per prompt. Drawn one after another, each answer pays its own
decode steps, and on a CPU a one-token decode step of a small model costs nearly as much as an
eight-token one (the step reads every weight once either way). Here the prompt is evaluated once
for all k sequences (a unified KV cache lets them share its cells) and each decode step advances
every unfinished sequence in one batch.

Consecutive prompts that start alike (the system prompt) keep their common prefix in the cache:
only the tokens after it are evaluated.

Sampling is temperature only (no top-k/top-p/min-p, no repeat penalty), in NumPy on the logits
llama.cpp returns, with one generator per call seeded by `seed`.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


class LlamaBatchError(RuntimeError):
    """llama.cpp refused to load the model, create the context or decode a batch."""


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """The number of leading tokens `a` and `b` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def draw(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """One token from `softmax(logits / temperature)`; the arg-max when `temperature` is 0."""
    if temperature <= 0:
        return int(np.argmax(logits))
    z = logits.astype(np.float64) / temperature
    z -= z.max()
    p = np.exp(z)
    p /= p.sum()
    return int(rng.choice(p.shape[0], p=p))


class BatchedSampler:
    """A GGUF model in a llama.cpp context with `max_seqs` sequences sharing one KV cache."""

    def __init__(self, path: Path | str, *, max_seqs: int, n_ctx: int, threads: int,
                 n_batch: int = 512) -> None:  # fmt: skip
        import llama_cpp as lc

        self._lc = lc
        limit = lc.llama_max_parallel_sequences()
        if not 1 <= max_seqs <= limit:
            raise ValueError(f"max_seqs = {max_seqs} is outside 1..{limit} (llama.cpp's limit)")
        self.max_seqs = max_seqs
        self.n_ctx = n_ctx
        self.n_batch = max(n_batch, max_seqs)
        self._model = self._ctx = None
        self._batch: Any = None  # a llama_batch (ctypes struct) once the context exists
        logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # llama.cpp's load log
        lc.llama_backend_init()
        self._model = lc.llama_model_load_from_file(
            str(path).encode(), lc.llama_model_default_params()
        )
        if not self._model:
            raise LlamaBatchError(f"llama.cpp could not load {path}")
        params = lc.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = self.n_batch
        params.n_seq_max = max_seqs
        params.kv_unified = True  # the k sequences share the prompt's cells
        params.n_threads = params.n_threads_batch = threads
        # as llama-cpp-python's `Llama` (the eval server): the same numbers as evaluation
        params.flash_attn_type = lc.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self._ctx = lc.llama_init_from_model(self._model, params)
        if not self._ctx:
            self.close()
            raise LlamaBatchError(f"llama.cpp could not create a {n_ctx}-token context")
        self._memory = lc.llama_get_memory(self._ctx)
        self.n_vocab = lc.llama_vocab_n_tokens(lc.llama_model_get_vocab(self._model))
        self._batch = lc.llama_batch_init(self.n_batch, 0, max_seqs)
        self._cached: list[int] = []  # prompt tokens held in every sequence's cells
        self._prompt_logits: np.ndarray | None = None  # the last prompt token's

    def _decode(self, tokens: Sequence[tuple[int, int, Sequence[int], bool]]) -> None:
        """Decode `(token, position, sequence ids, wants logits)` entries as one batch."""
        batch = self._batch
        for i, (token, pos, seqs, logits) in enumerate(tokens):
            batch.token[i] = token
            batch.pos[i] = pos
            batch.n_seq_id[i] = len(seqs)
            for j, s in enumerate(seqs):
                batch.seq_id[i][j] = s
            batch.logits[i] = logits
        batch.n_tokens = len(tokens)
        code = self._lc.llama_decode(self._ctx, batch)
        if code != 0:
            self._cached, self._prompt_logits = [], None
            raise LlamaBatchError(f"llama_decode failed ({code}) on a {len(tokens)}-token batch")

    def _logits(self, index: int) -> np.ndarray:
        ptr = self._lc.llama_get_logits_ith(self._ctx, index)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)),
                                     shape=(self.n_vocab,))  # fmt: skip

    def _evaluate_prompt(self, ids: Sequence[int]) -> np.ndarray:
        """Bring the cache to `ids` (in every sequence) and return the last token's logits.

        The same prompt again returns the logits kept from its evaluation (evaluating its last
        token alone would take other kernels and round differently: the same seed would then
        not give the same answers)."""
        if list(ids) == self._cached and self._prompt_logits is not None:
            return self._prompt_logits
        keep = min(common_prefix(self._cached, ids), len(ids) - 1)
        self._lc.llama_memory_seq_rm(self._memory, -1, keep, -1)
        self._cached, self._prompt_logits = list(ids[:keep]), None
        every = range(self.max_seqs)
        chunk: Sequence[int] = ()
        for start in range(keep, len(ids), self.n_batch):
            chunk = ids[start : start + self.n_batch]
            last = start + len(chunk) == len(ids)
            self._decode([(t, start + i, every, last and i == len(chunk) - 1)
                          for i, t in enumerate(chunk)])  # fmt: skip
        self._cached = list(ids)
        self._prompt_logits = self._logits(len(chunk) - 1).copy()
        return self._prompt_logits

    def sample(self, ids: Sequence[int], k: int, *, temperature: float, max_tokens: int,
               stop: int, seed: int = 0) -> list[list[int]]:  # fmt: skip
        """`k` continuations of the prompt `ids`, each ending before `stop` or at `max_tokens`."""
        if not 1 <= k <= self.max_seqs:
            raise ValueError(f"k = {k} is outside 1..{self.max_seqs}")
        if not ids:
            raise ValueError("the prompt has no tokens")
        if len(ids) + max_tokens > self.n_ctx:
            raise ValueError(f"{len(ids)} prompt + {max_tokens} answer tokens exceed the "
                             f"{self.n_ctx}-token context")  # fmt: skip
        outs: list[list[int]] = [[] for _ in range(k)]
        if max_tokens <= 0:
            return outs
        rng = np.random.default_rng(seed)
        pending: list[int] = []  # the sequences whose last token is still to be decoded

        def extend(s: int, logits: np.ndarray) -> None:
            token = draw(logits, temperature, rng)
            if token == stop:
                return
            outs[s].append(token)
            if len(outs[s]) < max_tokens:
                pending.append(s)

        try:
            first = self._evaluate_prompt(ids)
            for s in range(k):
                extend(s, first)
            while pending:
                step, pending = pending, []
                self._decode([(outs[s][-1], len(ids) + len(outs[s]) - 1, (s,), True)
                              for s in step])  # fmt: skip
                for i, s in enumerate(step):
                    extend(s, self._logits(i))
        finally:
            # the answers' cells go; the prompt's stay for the next call
            self._lc.llama_memory_seq_rm(self._memory, -1, len(ids), -1)
        return outs

    def close(self) -> None:
        lc = self._lc
        if self._batch is not None:
            lc.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx:
            lc.llama_free(self._ctx)
            self._ctx = None
        if self._model:
            lc.llama_model_free(self._model)
            self._model = None

    def __enter__(self) -> BatchedSampler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
