"""`lora.layers`: LoRA on the top N blocks only, and no backward through the blocks below."""

from __future__ import annotations

from pathlib import Path

import pytest

from security_verifiers.training.config import LoraSettings
from security_verifiers.training.sft import adapted_layers, lora_config


def test_the_top_blocks_are_adapted_and_none_means_all() -> None:
    assert adapted_layers(LoraSettings(layers=2), 5) == [3, 4]
    assert adapted_layers(LoraSettings(layers=None), 5) is None
    assert adapted_layers(LoraSettings(layers=9), 5) is None


def test_frozen_lower_blocks_get_no_adapter_and_no_gradient(tiny_model_dir: Path) -> None:
    import torch
    from peft import get_peft_model

    from security_verifiers.models.hf_checkpoint import load_causal_lm, resolve_checkpoint

    base = load_causal_lm(resolve_checkpoint(str(tiny_model_dir)))
    model = get_peft_model(base, lora_config(LoraSettings(r=4, alpha=8, layers=1), base))
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    assert trainable and all(".layers.1." in name for name in trainable)
    seen: list[int] = []
    for index, block in enumerate(model.base_model.model.model.layers):
        block.register_full_backward_hook(lambda *_, i=index: seen.append(i))
    ids = torch.tensor([[1, 5, 9, 12, 7]])
    model(input_ids=ids, labels=ids).loss.backward()
    assert seen == [1]


def test_layers_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LoraSettings(layers=0)


def test_a_new_adapter_starts_from_its_seed(tiny_model_dir: Path) -> None:
    """RL's fresh adapter: the same seed gives the same A matrices whatever torch's generator
    held before (it starts from a different seed in every process), another seed others."""
    import torch

    from security_verifiers.models.hf_checkpoint import load_causal_lm, resolve_checkpoint
    from security_verifiers.training.sft import new_adapter

    def lora_a(seed: int, noise: int) -> list[torch.Tensor]:
        torch.manual_seed(noise)
        torch.rand(noise)
        base = load_causal_lm(resolve_checkpoint(str(tiny_model_dir)), dtype="float32")
        model = new_adapter(base, LoraSettings(r=4, alpha=8), seed)
        return [p.detach().clone() for n, p in model.named_parameters() if "lora_A" in n]

    first, again, other = lora_a(42, 3), lora_a(42, 11), lora_a(7, 3)
    assert first and all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))
