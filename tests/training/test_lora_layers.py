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
