"""`sv eval --models hf:<checkpoint>`: a transformers server on 127.0.0.1, the real client path."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.models.providers.registry import provider_for, resolve_model

pytestmark = pytest.mark.usefixtures("no_api_keys")


def test_hf_names_resolve_to_the_hf_kind(tiny_model_dir: Path) -> None:
    spec = resolve_model(f"hf:{tiny_model_dir}", baselines={})
    assert spec.kind == "hf" and spec.checkpoint == str(tiny_model_dir)
    assert provider_for(spec).api_key(spec) == "EMPTY"
    with pytest.raises(UserError, match="not found"):
        resolve_model("hf:./no/such/checkpoint", baselines={})
    with pytest.raises(UserError, match="expected hf:"):
        resolve_model("hf:", baselines={})


def test_sv_eval_runs_a_local_checkpoint(tiny_model_dir: Path, tmp_path: Path) -> None:
    config = EvalConfig(env="e1", models=[f"hf:{tiny_model_dir}"], n=2, max_tokens=6,
                        truncated="score", output_root=tmp_path, show_progress=False)  # fmt: skip
    with open("/dev/null", "w") as sink:
        [run] = asyncio.run(evaluate(config, Console(file=sink)))
    meta = json.loads((run.run_dir / "metadata.json").read_text())
    rows = [json.loads(line) for line in (run.run_dir / "results.jsonl").read_text().splitlines()]
    assert meta["status"] == "complete" and meta["model_kind"] == "hf"
    assert meta["structured_output"] is None  # no constrained decoding for hf:
    assert meta["sampling_args"] == {"temperature": 0.0, "max_tokens": 6, "seed": 42}
    # a random tiny model may answer nothing: that is scored (model_error), not a failure
    assert len(rows) == 2 and all(r["error"] is None for r in rows)
    assert all(r["completion"] or r["model_error"] for r in rows)
    # greedy decoding is deterministic: a second run reproduces the completions
    config2 = config.model_copy(update={"output_root": tmp_path / "again"})
    with open("/dev/null", "w") as sink:
        [again] = asyncio.run(evaluate(config2, Console(file=sink)))
    rows2 = [
        json.loads(line) for line in (again.run_dir / "results.jsonl").read_text().splitlines()
    ]
    key = {r["example_id"]: r["completion"] for r in rows}
    assert {r["example_id"]: r["completion"] for r in rows2} == key


def test_prefix_cache_gives_the_same_greedy_answers(tiny_model_dir: Path) -> None:
    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.models.hf_generation import ChatGenerator

    ref = resolve_checkpoint(str(tiny_model_dir))
    model, tokenizer = load_causal_lm(ref), load_tokenizer(ref)
    system = {"role": "system", "content": "conn_state history orig_bytes resp_bytes " * 20}
    prompts = [[system, {"role": "user", "content": f"flow {i} tcp http"}] for i in range(3)]
    plain = ChatGenerator(model, tokenizer)
    cached = ChatGenerator(model, tokenizer, prefix_cache=True)
    expected = [plain.generate(p, temperature=0, max_tokens=8).completion_ids for p in prompts]
    got = [cached.generate(p, temperature=0, max_tokens=8).completion_ids for p in prompts]
    assert got == expected and cached._cached is not None


def test_the_server_honours_sampling_arguments(tiny_model_dir: Path) -> None:
    import openai

    from security_verifiers.models.local_server import LocalServerPool

    with LocalServerPool() as pool:
        server = pool.get_hf(str(tiny_model_dir), "tiny")
        assert pool.get_hf(str(tiny_model_dir), "tiny") is server  # reused within a run
        client = openai.OpenAI(base_url=server.base_url, api_key="EMPTY")
        assert [m.id for m in client.models.list().data] == ["tiny"]
        messages = [{"role": "user", "content": "conn_state history"}]
        greedy = [
            client.chat.completions.create(
                model="tiny", messages=messages, temperature=0, max_tokens=4, seed=1
            )
            for _ in range(2)
        ]
        sampled = client.chat.completions.create(
            model="tiny", messages=messages, temperature=1.0, max_tokens=5, seed=7, n=2
        )
    first = greedy[0]
    assert 1 <= first.usage.completion_tokens <= 4 and first.usage.prompt_tokens > 3
    assert first.choices[0].finish_reason in ("stop", "length")
    assert greedy[1].choices[0].message.content == first.choices[0].message.content
    assert len(sampled.choices) == 2 and sampled.usage.completion_tokens <= 10
    assert not server.alive()  # stopped with the pool
