"""SFT loss with the batch's shared prompt prefix computed once.

Every training prompt of an environment starts with the same tokens (the chat template and the
system prompt: about 80 tokens for E1's compact prompt, 260 for E4's, out of 180 and 530). A
plain forward pass runs them once per row. Here they run once per batch: the prefix goes through
the decoder at batch size 1, its key/value cache is repeated for every row, and the rows' own
tokens run on top of it. Gradients flow through the repeated cache, so the loss and its
gradients equal the full forward pass (up to float rounding). The loss is scored only where a
label is trained (the answer), so the vocabulary projection runs over ~20 positions per row,
not all of them.

With activation checkpointing on (`train.activation_checkpointing`) each decoder layer keeps
only its input and recomputes the rest in the backward pass. transformers drops a layer's
cache argument under checkpointing (a cache that grows would grow twice on the replay), which
would silently cut the rows off their prefix. Here the prefix pass is checkpointed as a whole
(its layers unchecked inside it) and the rows read it through a cache that never grows
(`FrozenPrefixLayer`), so the layers may keep it while checkpointed: the loss and gradients
stay exact.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from security_verifiers.training.decision_tokens import (
    IGNORE,
    ConfidenceTokens,
    confidence_mask,
    decision_mask,
    weighted_loss,
)

#: Below this many shared tokens the extra decoder call costs more than it saves.
MIN_SHARED_PREFIX = 16


@dataclass(frozen=True)
class LossStats:
    """What one call of `completion_loss` computed besides the loss (for the trainer's log)."""

    shared_prefix: int
    trained_tokens: int
    token_accuracy: float
    entropy: float
    decision_accuracy: float | None = None


def shared_prefix_length(input_ids: Any, labels: Any, attention_mask: Any) -> int:
    """How many leading positions every row shares, all attended and all before the first
    position whose next token is trained (so every predicting position stays in the rows)."""
    length = input_ids.shape[1]
    same = (input_ids == input_ids[:1]).all(dim=0) & attention_mask.bool().all(dim=0)
    differs = (~same).nonzero()
    first_difference = int(differs[0]) if len(differs) else length
    trained = (labels != IGNORE).any(dim=0).nonzero()
    first_trained = int(trained[0]) if len(trained) else length
    return max(0, min(first_difference, first_trained - 1, length - 1))


def supports_prefix_sharing(model: Any) -> bool:
    """True for decoder-only models whose logits are the plain head projection (no soft-capping
    or scaling, which this loss does not apply) and that expose their decoder."""
    config = getattr(model, "config", None)
    if config is None or not hasattr(model, "get_decoder"):
        return False
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    scalings = ("final_logit_softcapping", "logit_scale", "output_multiplier", "logits_scaling")
    scaled = any(getattr(text, name, None) is not None for name in scalings)
    return not scaled and getattr(text, "sliding_window", None) is None


def checkpointed_layers(decoder: Any) -> list[Any]:
    """The decoder's layers that run under activation checkpointing."""
    return [m for m in decoder.modules() if getattr(m, "gradient_checkpointing", False)]


@contextmanager
def checkpointing_paused(layers: list[Any]) -> Iterator[None]:
    """Run `layers` without activation checkpointing (the prefix pass writes its cache)."""
    for layer in layers:
        layer.gradient_checkpointing = False
    try:
        yield
    finally:
        for layer in layers:
            layer.gradient_checkpointing = True


@contextmanager
def cache_kept_under_checkpointing(layers: list[Any]) -> Iterator[None]:
    """Let checkpointed `layers` keep a cache argument; only safe for a cache that never grows."""
    for layer in layers:
        layer._can_checkpoint_with_cache = True
    try:
        yield
    finally:
        for layer in layers:
            del layer._can_checkpoint_with_cache  # back to the class's False


@functools.cache
def frozen_prefix_layer_class() -> type:
    """A DynamicLayer whose `update` returns the stored prefix + the new states without storing
    them (built on first use: transformers is imported lazily)."""
    import torch
    from transformers.cache_utils import DynamicLayer

    class FrozenPrefixLayer(DynamicLayer):
        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> Any:
            keys, values = self.keys, self.values
            assert keys is not None and values is not None  # frozen only once filled
            return (
                torch.cat([keys, key_states], dim=-2),
                torch.cat([values, value_states], dim=-2),
            )

    return FrozenPrefixLayer


def freeze_prefix_cache(cache: Any) -> None:
    """Make every layer of `cache` (a filled DynamicCache) read-only, so a layer replayed in
    the backward pass sees the same prefix as its first run."""
    from transformers.cache_utils import DynamicLayer

    frozen = frozen_prefix_layer_class()
    for layer in cache.layers:
        if type(layer) is not DynamicLayer:
            raise TypeError(f"prefix sharing: unexpected cache layer {type(layer).__name__}")
        layer.__class__ = frozen


def reentrant(layer: Any) -> bool:
    """Whether a checkpointed layer uses reentrant checkpointing (unknown counts as yes)."""
    func = getattr(layer, "_gradient_checkpointing_func", None)
    return bool(getattr(func, "keywords", {}).get("use_reentrant", True))


def token_embedder(decoder: Any, checkpointed: list[Any]) -> Callable[[Any], Any]:
    """ids -> the decoder's input embeddings. Under activation checkpointing transformers and
    TRL hook the embedding so its output requires grad (reentrant checkpointing needs that).
    With a frozen embedding and non-reentrant checkpointing that only sends the backward pass
    through every frozen block below the adapters (E4 SFT, LoRA on the top 10 of 30 blocks:
    2.7x the step time), so the embeddings are detached there."""
    embed = decoder.get_input_embeddings()
    frozen = not any(p.requires_grad for p in embed.parameters())
    detach = frozen and not any(reentrant(layer) for layer in checkpointed)
    return (lambda ids: embed(ids).detach()) if detach else embed


def prefix_cache(
    decoder: Any, prefix_ids: Any, checkpointed: list[Any], embeddings: Callable[[Any], Any]
) -> Any:
    """The decoder's key/value cache for `prefix_ids` (one row). Under activation
    checkpointing the prefix pass is itself checkpointed as a whole: it keeps no activations
    and runs again, once, in the backward pass."""
    from transformers import DynamicCache

    def run(ids: Any) -> tuple[Any, ...]:
        cache = DynamicCache(config=decoder.config)
        with checkpointing_paused(checkpointed):
            decoder(inputs_embeds=embeddings(ids), past_key_values=cache, use_cache=True)
        # transformers types `layers` as every layer kind; a full-attention decoder's are all
        # DynamicLayers (freeze_prefix_cache checks)
        return tuple(t for layer in cache.layers for t in (layer.keys, layer.values))  # type: ignore[union-attr]

    if not checkpointed:
        states = run(prefix_ids)
    else:
        from torch.utils.checkpoint import checkpoint

        states = checkpoint(run, prefix_ids, use_reentrant=False)
    cache = DynamicCache(config=decoder.config)
    for index in range(len(states) // 2):
        cache.update(states[2 * index], states[2 * index + 1], index)
    return cache


def completion_loss(
    model: Any,
    inputs: dict[str, Any],
    num_items_in_batch: Any = None,
    min_prefix: int = MIN_SHARED_PREFIX,
    prefix_ids: list[int] | None = None,
    decision_weight: float = 1.0,
    confidence_ids: ConfidenceTokens | None = None,
    confidence_weight: float = 1.0,
) -> tuple[Any, LossStats]:
    """Mean cross-entropy over the trained labels of `inputs` (input_ids, labels,
    attention_mask; right-padded), with the shared prefix run once (see the module doc).
    With the answer prefix's ids (`prefix_ids`) each row's decision token weighs
    `decision_weight` (decision_tokens.py) and its accuracy is reported; with
    `confidence_ids` the stated confidence's tokens weigh `confidence_weight`."""
    import torch

    input_ids, labels = inputs["input_ids"], inputs["labels"]
    attention_mask = inputs["attention_mask"]
    decoder = model.get_decoder()
    head = model.get_output_embeddings()
    rows = input_ids.shape[0]
    prefix = shared_prefix_length(input_ids, labels, attention_mask) if rows > 1 else 0
    checkpointed = checkpointed_layers(decoder) if decoder.training else []
    embeddings = token_embedder(decoder, checkpointed)
    if prefix >= min_prefix:
        cache = prefix_cache(decoder, input_ids[:1, :prefix], checkpointed, embeddings)
        cache.batch_repeat_interleave(rows)
        if checkpointed:
            freeze_prefix_cache(cache)
        with cache_kept_under_checkpointing(checkpointed):
            hidden = decoder(
                inputs_embeds=embeddings(input_ids[:, prefix:]),
                attention_mask=attention_mask,
                past_key_values=cache,
                use_cache=True,
            ).last_hidden_state
    else:
        prefix = 0
        hidden = decoder(
            inputs_embeds=embeddings(input_ids), attention_mask=attention_mask, use_cache=False
        ).last_hidden_state
    targets = labels[:, prefix + 1 :]
    trained = targets != IGNORE
    logits = head(hidden[:, :-1][trained]).float()
    gold = targets[trained]
    decision = decision_mask(input_ids, labels, prefix_ids or [])[:, prefix + 1 :][trained]
    confidence = confidence_mask(input_ids, labels, confidence_ids)[:, prefix + 1 :][trained]
    count = trained.sum() if num_items_in_batch is None else num_items_in_batch
    loss, right = weighted_loss(
        logits, gold, decision, count, decision_weight, confidence, confidence_weight
    )
    with torch.no_grad():
        n = int(gold.numel())
        log_probs = logits.log_softmax(-1)
        accuracy = float((logits.argmax(-1) == gold).float().mean()) if n else 0.0
        entropy = float(-(log_probs.exp() * log_probs).sum(-1).mean()) if n else 0.0
    return loss, LossStats(prefix, n, accuracy, entropy, right)


def forward_loss(
    model: Any,
    inputs: dict[str, Any],
    num_items_in_batch: Any,
    prefix_ids: list[int],
    decision_weight: float,
    confidence_ids: ConfidenceTokens | None = None,
    confidence_weight: float = 1.0,
) -> tuple[Any, float | None]:
    """The decision- and confidence-weighted loss through the model's own forward pass (for
    batches that `completion_loss` cannot take: packed, several processes) and the decision
    accuracy."""
    input_ids, labels = inputs["input_ids"], inputs["labels"]
    logits = model(**{k: v for k, v in inputs.items() if k != "labels"}).logits[:, :-1]
    targets = labels[:, 1:]
    trained = targets != IGNORE
    decision = decision_mask(input_ids, labels, prefix_ids)[:, 1:][trained]
    confidence = confidence_mask(input_ids, labels, confidence_ids)[:, 1:][trained]
    count = trained.sum() if num_items_in_batch is None else num_items_in_batch
    gold = targets[trained]
    return weighted_loss(
        logits[trained].float(),
        gold,
        decision,
        count,
        decision_weight,
        confidence,
        confidence_weight,
    )


def prefix_sharing_trainer(
    base: type,
    prefix_ids: list[int] | None = None,
    decision_weight: float = 1.0,
    share_prefix: bool = True,
    confidence_ids: ConfidenceTokens | None = None,
    confidence_weight: float = 1.0,
) -> type:
    """A subclass of TRL's `SFTTrainer` (`base`) whose training loss is `completion_loss`,
    its decision token (after `prefix_ids`) weighted `decision_weight` and its stated
    confidence's tokens (`confidence_ids`) `confidence_weight`.

    It falls back to the model's own forward pass where sharing does not apply or is off
    (`share_prefix`): packed or padding-free batches (no attention mask), several processes
    (DDP must see the model's own forward), models `supports_prefix_sharing` rejects, and
    calls that want the outputs (those get the base loss, unweighted). The base loss also
    serves every batch when both weights are 1."""

    class PrefixSharingSFTTrainer(base):
        def log_decision(self, right: float | None) -> None:
            if right is not None:
                mode = "train" if self.model.training else "eval"
                self._metrics[mode]["decision_accuracy"].append(right)

        def compute_loss(
            self,
            model: Any,
            inputs: dict[str, Any],
            return_outputs: bool = False,
            num_items_in_batch: Any = None,
        ) -> Any:
            usable = (
                share_prefix
                and not return_outputs
                and "attention_mask" in inputs
                and "labels" in inputs
                and self.accelerator.num_processes == 1
                and supports_prefix_sharing(model)
            )
            if not usable:
                weighted = (prefix_ids and decision_weight != 1.0) or (
                    confidence_ids and confidence_weight != 1.0
                )
                if return_outputs or not weighted or "labels" not in inputs:
                    return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
                loss, right = forward_loss(
                    model,
                    inputs,
                    num_items_in_batch,
                    prefix_ids or [],
                    decision_weight,
                    confidence_ids,
                    confidence_weight,
                )
                self.log_decision(right)
                processes = self.accelerator.num_processes
                if num_items_in_batch is not None and self.args.average_tokens_across_devices:
                    loss = loss * processes  # the count is global; DDP averages the gradients
                return loss
            loss, stats = completion_loss(
                model,
                inputs,
                num_items_in_batch,
                prefix_ids=prefix_ids,
                decision_weight=decision_weight,
                confidence_ids=confidence_ids,
                confidence_weight=confidence_weight,
            )
            self.log_decision(stats.decision_accuracy)
            mode = "train" if self.model.training else "eval"
            metrics = self._metrics[mode]
            metrics["mean_token_accuracy"].append(stats.token_accuracy)
            metrics["entropy"].append(stats.entropy)
            metrics["shared_prefix_tokens"].append(float(stats.shared_prefix))
            if mode == "train":
                self._total_train_tokens += int(inputs["attention_mask"].sum())
            metrics["num_tokens"] = [self._total_train_tokens]
            return loss

    return PrefixSharingSFTTrainer
