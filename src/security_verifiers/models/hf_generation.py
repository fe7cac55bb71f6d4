"""Chat completion with a transformers model: messages in, assistant text out.

Used by the Hugging Face model server (`hf_server`) and by training's multi-turn rollouts, so a
checkpoint answers the same way while it is trained and when it is evaluated.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_ids: list[int]
    completion_ids: list[int]
    finish_reason: str
    """"stop" (end-of-turn token) or "length" (hit max_tokens)."""


def plain_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Role/content pairs with text content (list-of-parts content is flattened)."""
    out = []
    for message in messages:
        if not isinstance(message, Mapping):  # pydantic message objects (verifiers)
            dump = getattr(message, "model_dump", None)
            message = dump() if dump else vars(message)
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(
                part.get("text", "") for part in content if isinstance(part, Mapping)
            ).strip()
        out.append({"role": str(message.get("role", "user")), "content": content or ""})
    return out


def chat_prompt_ids(tokenizer: Any, messages: Sequence[Mapping[str, Any]]) -> list[int]:
    """Token ids of the chat-templated conversation, ending with the assistant header."""
    encoded = tokenizer.apply_chat_template(
        plain_messages(messages), add_generation_prompt=True, tokenize=True, return_dict=True
    )
    return list(encoded["input_ids"])


MIN_PREFIX_TOKENS = 32


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class ChatGenerator:
    """Wraps a causal LM and its tokenizer; `generate` is serialised by a lock.

    With `prefix_cache`, the key/value cache of the previous request is reused for the prompt
    prefix the next request shares with it (an environment's long system prompt), which
    roughly halves CPU time per request on E1. Only for frozen weights: a model being trained
    must use `prefix_cache=False`.
    """

    def __init__(self, model: Any, tokenizer: Any, *, prefix_cache: bool = False) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.prefix_cache = prefix_cache
        self._cached: tuple[list[int], Any] | None = None
        self._lock = threading.Lock()
        eos = {tokenizer.eos_token_id}
        configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        if isinstance(configured, int):
            eos.add(configured)
        elif isinstance(configured, list):
            eos.update(configured)
        self.eos_ids = sorted(i for i in eos if i is not None)

    def prompt_ids(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """Token ids of the chat-templated conversation, ending with the assistant header."""
        return chat_prompt_ids(self.tokenizer, messages)

    def generate(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float | None = 1.0,
        top_p: float | None = None,
        max_tokens: int | None = 256,
        seed: int | None = None,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        """One completion. Temperature 0 is greedy; a seed makes sampling reproducible."""
        import torch

        ids = self.prompt_ids(messages)
        do_sample = temperature is not None and temperature > 0
        kwargs: dict[str, Any] = {
            "max_new_tokens": max(1, int(max_tokens or 256)),
            "do_sample": do_sample,
            "eos_token_id": self.eos_ids,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if do_sample:
            kwargs["temperature"] = float(temperature)  # type: ignore[arg-type]
            kwargs["top_p"] = float(top_p) if top_p is not None else 1.0
            kwargs["top_k"] = 0
        else:  # neutralise sampling defaults from generation_config so greedy stays greedy
            kwargs.update(temperature=None, top_p=None, top_k=None)
        with self._lock, torch.no_grad():
            if seed is not None:
                torch.manual_seed(int(seed))
            device = next(self.model.parameters()).device
            input_ids = torch.tensor([ids], device=device)
            past = self._reusable_cache(ids)
            if past is not None:
                kwargs["past_key_values"] = past
            output = self.model.generate(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                return_dict_in_generate=True,
                **kwargs,
            )
            sequence = output.sequences[0].tolist()
            if self.prefix_cache and output.past_key_values is not None:
                self._cached = (sequence, output.past_key_values)
        completion = sequence[len(ids) :]
        finished = bool(completion) and completion[-1] in self.eos_ids
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        finish = "stop" if finished else "length"
        for marker in stop or ():
            cut = text.find(marker)
            if marker and cut != -1:
                text, finish = text[:cut], "stop"
        return Generation(text.strip(), ids, completion, finish)

    def _reusable_cache(self, ids: list[int]) -> Any:
        """A copy of the previous request's cache cut to the prefix it shares with `ids`."""
        if not self.prefix_cache or self._cached is None:
            return None
        import copy

        previous, cache = self._cached
        keep = min(common_prefix(previous, ids), len(ids) - 1, cache.get_seq_length())
        if keep < MIN_PREFIX_TOKENS:
            return None
        reused = copy.deepcopy(cache)
        if keep < cache.get_seq_length():
            reused.crop(keep - cache.get_seq_length())  # a negative count removes tokens
        return reused
