"""Fixtures for the training tests: a tiny randomly initialised Llama with a tiny ChatML
byte-level BPE tokenizer, built in a couple of seconds (the real 135M model stays out of
`make test`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
CORPUS = [
    '{"label": "Benign", "confidence": 0.9, "rationale": "Flow looks like ordinary web traffic."}',
    '{"label": "Malicious", "confidence": 0.8, "rationale": "port scan"} {"label": "Abstain"}',
    "ts uid id.orig_h id.orig_p id.resp_h id.resp_p proto service duration orig_bytes",
    "resp_bytes conn_state local_orig local_resp history orig_pkts resp_pkts tcp udp dns http",
]


def build_tiny_model(directory: Path) -> Path:
    """Save a tiny LlamaForCausalLM (random weights) and a ChatML tokenizer to `directory`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from sv_env_network_logs.prompts import SYSTEM_PROMPT

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(
        [SYSTEM_PROMPT, *CORPUS] * 4,
        trainers.BpeTrainer(
            vocab_size=512,
            special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|im_end|>",
        unk_token="<|endoftext|>",
    )
    tokenizer.chat_template = CHATML
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("trl", reason="the training extra is not installed (make setup)")
    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture
def lora_model(tiny_model_dir: Path):
    """A factory: the tiny Llama with a fresh LoRA adapter (r 4, on `layers` blocks or all)
    whose B matrices are random (they start at zero, which would hide the adapter)."""
    torch = pytest.importorskip("torch")
    from peft import get_peft_model

    from security_verifiers.models.hf_checkpoint import load_causal_lm, resolve_checkpoint
    from security_verifiers.training.config import LoraSettings
    from security_verifiers.training.sft import lora_config

    def build(layers: int | None = None):
        base = load_causal_lm(resolve_checkpoint(str(tiny_model_dir)), dtype="float32")
        settings = LoraSettings(r=4, alpha=8, dropout=0.0, layers=layers)
        model = get_peft_model(base, lora_config(settings, base))
        for name, param in model.named_parameters():
            if "lora_B" in name:
                torch.nn.init.normal_(param, std=0.05)
        return model

    return build
