"""The shared-prefix SFT loss equals the full forward pass, in value and in gradient."""

from __future__ import annotations

from pathlib import Path

import pytest

from security_verifiers.training.prefix_sharing import (
    IGNORE,
    completion_loss,
    shared_prefix_length,
    supports_prefix_sharing,
)


def _batch(torch_module, prefix: int = 24, seed: int = 0):
    """Right-padded rows: a shared prefix, own prompt tokens, a trained answer, padding."""
    torch = torch_module
    gen = torch.Generator().manual_seed(seed)
    shared = torch.randint(3, 200, (prefix,), generator=gen)
    rows, labels, masks = [], [], []
    lengths = [(9, 5), (14, 3), (6, 8)]  # (own prompt tokens, answer tokens)
    total = prefix + max(p + a for p, a in lengths)
    for own, answer in lengths:
        body = torch.randint(3, 200, (own + answer,), generator=gen)
        ids = torch.cat([shared, body])
        pad = total - len(ids)
        label = ids.clone()
        label[: prefix + own] = IGNORE
        rows.append(torch.cat([ids, torch.full((pad,), 2)]))
        labels.append(torch.cat([label, torch.full((pad,), IGNORE)]))
        masks.append(torch.cat([torch.ones(len(ids)), torch.zeros(pad)]).long())
    return {
        "input_ids": torch.stack(rows),
        "labels": torch.stack(labels),
        "attention_mask": torch.stack(masks),
    }


def test_prefix_length_stops_before_rows_differ_and_before_trained_labels() -> None:
    torch = pytest.importorskip("torch")
    batch = _batch(torch, prefix=24)
    assert shared_prefix_length(**batch) == 24
    labels = batch["labels"].clone()
    labels[0, 10] = 5  # a trained token inside the prefix: its predicting position (9) must stay
    assert shared_prefix_length(batch["input_ids"], labels, batch["attention_mask"]) == 9
    mask = batch["attention_mask"].clone()
    mask[1, 3] = 0
    assert shared_prefix_length(batch["input_ids"], batch["labels"], mask) == 3


def _reference_loss(model, batch):
    import torch.nn.functional as F

    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    targets = batch["labels"][:, 1:]
    return F.cross_entropy(
        logits[:, :-1].reshape(-1, logits.size(-1)).float(),
        targets.reshape(-1),
        ignore_index=IGNORE,
    )


@pytest.mark.parametrize("layers", [None, 1])
def test_loss_and_gradients_equal_the_full_forward(lora_model, layers) -> None:
    torch = pytest.importorskip("torch")
    model = lora_model(layers)
    assert supports_prefix_sharing(model)
    batch = _batch(torch)

    expected = _reference_loss(model, batch)
    expected.backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    model.zero_grad()

    loss, stats = completion_loss(model, batch)
    loss.backward()
    assert stats.shared_prefix == 24 and stats.trained_tokens == 5 + 3 + 8
    assert torch.allclose(loss, expected, atol=1e-5)
    for name, param in model.named_parameters():
        if param.requires_grad:
            assert torch.allclose(param.grad, want[name], atol=1e-5, rtol=1e-4), name


def test_no_shared_prefix_falls_back_to_the_full_forward(tiny_model_dir: Path) -> None:
    torch = pytest.importorskip("torch")
    from security_verifiers.models.hf_checkpoint import load_causal_lm, resolve_checkpoint

    model = load_causal_lm(resolve_checkpoint(str(tiny_model_dir)), dtype="float32")
    batch = _batch(torch, prefix=4)
    loss, stats = completion_loss(model, batch)
    assert stats.shared_prefix == 0
    assert torch.allclose(loss, _reference_loss(model, batch), atol=1e-5)


def test_scaled_logits_are_not_supported() -> None:
    class Config:
        final_logit_softcapping = 30.0

    class Model:
        config = Config()

        def get_decoder(self):
            return None

    assert not supports_prefix_sharing(Model())


def test_exact_under_activation_checkpointing(lora_model) -> None:
    """transformers drops a checkpointed layer's cache argument; the shared prefix must
    survive that (else the rows lose their context and the loss silently changes)."""
    torch = pytest.importorskip("torch")
    from security_verifiers.training.prefix_sharing import checkpointed_layers

    model = lora_model()
    model.train()
    batch = _batch(torch)
    expected = _reference_loss(model, batch)
    expected.backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    model.zero_grad()

    model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    decoder = model.get_decoder()
    layers = checkpointed_layers(decoder)
    assert layers
    loss, stats = completion_loss(model, batch)
    loss.backward()
    assert stats.shared_prefix == 24
    assert torch.allclose(loss, expected, atol=1e-5)
    for name, param in model.named_parameters():
        if param.requires_grad:
            assert torch.allclose(param.grad, want[name], atol=1e-5, rtol=1e-4), name
    # the layers are left as they were: checkpointed, and without the cache exemption
    assert all(layer.gradient_checkpointing for layer in layers)
    assert not any("_can_checkpoint_with_cache" in vars(layer) for layer in layers)
