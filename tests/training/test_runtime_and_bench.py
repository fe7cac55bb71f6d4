"""Threads and dtype reach every stage; calibrated SFT data; expert-iteration selection; the
training bench (tiny model, no wall-clock assertions)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from security_verifiers.training import runtime as rt
from security_verifiers.training.config import GRPOSettings, SFTRecipe
from security_verifiers.training.expert import select

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def test_threads_are_applied() -> None:
    import torch

    before = torch.get_num_threads()
    try:
        runtime = rt.setup_runtime(1, "float32")
        assert runtime.threads == 1 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_bf16_falls_back_to_fp32_with_a_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr(rt, "cpu_supports_bf16", lambda: False)
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    runtime = rt.setup_runtime(None, "bfloat16")
    assert runtime.dtype == "float32" and "bf16" in (runtime.notice or "")
    assert rt.setup_runtime(None, "auto").dtype == "float32"
    monkeypatch.setattr(rt, "cpu_supports_bf16", lambda: True)
    assert rt.setup_runtime(None, "auto").dtype == "bfloat16"
    assert rt.setup_runtime(None, "float16").dtype == "float32"  # GPU-only dtype


def test_trainer_args_follow_the_recipe_dtype(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("trl")
    from security_verifiers.training.rl import grpo_args
    from security_verifiers.training.sft import sft_args

    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    fp32 = rt.Runtime("cpu", "float32", "float32", 1, False)
    bf16 = rt.Runtime("cpu", "bfloat16", "auto", 1, True)
    grpo = grpo_args(GRPOSettings(), 1, tmp_path, [1.0], fp32)
    assert grpo.bf16 is False and grpo.fp16 is False  # TRL's own default is bf16=True
    assert grpo_args(GRPOSettings(), 1, tmp_path, [1.0], bf16).bf16 is True
    sft = sft_args(SFTRecipe(), fp32, tmp_path, 100)
    assert sft.bf16 is False and sft.train_sampling_strategy == "group_by_length"
    assert sft.activation_checkpointing is False
    epochs = SFTRecipe.model_validate({"train": {"epochs": 2, "batch_size": 8}})
    assert sft_args(epochs, fp32, tmp_path, 100).max_steps == 25
    assert sft.pad_to_multiple_of is None
    padded = SFTRecipe.model_validate({"train": {"pad_to_multiple_of": 64}})
    assert sft_args(padded, fp32, tmp_path, 100).pad_to_multiple_of == 64


def test_expert_iteration_keeps_above_mean_or_best() -> None:
    assert select([0.0, 1.0, 0.5, 1.0], "above_mean", 0.0) == [1, 3]
    assert select([0.0, 1.0, 0.5, 1.0], "best", 0.0) == [1]
    assert select([0.2, 0.2], "above_mean", 0.0) == []
    assert select([-1.0, -0.5], "above_mean", 0.0) == []  # min_reward still applies
    assert select([], "best", 0.0) == []


def test_calibrated_gold_answers_abstain_on_look_alikes() -> None:
    from security_verifiers.training.envs import load_training_env
    from security_verifiers.training.sft_data import calibrate_rows, look_alike_key

    env = load_training_env("e1", {"split": "train", "prompt_style": "compact"})
    key = look_alike_key(env.rows[0])
    assert "src=" not in key and "dst=:" in key  # addresses out, the service port stays
    stats: Counter = Counter()
    rows = calibrate_rows(env.rows, env, 0.9, stats)
    labels = Counter(r["_sv_label"] for r in rows)
    assert labels["Abstain"] == stats["calibrated_abstain"] > 0
    assert max(r["_sv_confidence"] for r in rows) == 0.9
    assert any(r["_sv_confidence"] < 0.9 and r["_sv_label"] != "Abstain" for r in rows)


def test_bench_train_reports_ratios(tiny_model_dir: Path, tmp_path: Path) -> None:
    from security_verifiers.training.bench import main

    out = tmp_path / "bench.json"
    argv = ["--model", str(tiny_model_dir), "--steps", "2", "--batch-size", "2", "--k", "2",
            "--completion-tokens", "4", "--dtype", "float32", "--json", str(out)]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(out.read_text())
    sft, rl = result["sft"], result["rl"]
    assert sft["steps"] == 2 and len(sft["plain_step_s"]) == 2
    assert sft["trainer_tokens_per_s"] > 0 and sft["ratio_vs_plain"] > 0
    assert rl["trainer_completions_per_s"] > 0 and rl["ratio_vs_plain"] > 0
    assert result["runtime"]["dtype"] == "float32" and result["peak_rss_mb"] > 0
    assert result["warmup_steps"] == 1  # on a CPU


def test_bench_train_leaves_the_warm_up_steps_out() -> None:
    from security_verifiers.training.bench import _measured, warmup_steps

    assert warmup_steps(None, "cpu") == 1 and warmup_steps(None, "cuda") == 2
    assert warmup_steps(0, "cuda") == 0
    assert _measured([5.0, 3.0, 1.0, 1.0], 2) == [1.0, 1.0]
    assert _measured([5.0, 3.0], 2) == [3.0]  # never every measurement


def test_bench_train_rejects_a_negative_warmup(capsys: pytest.CaptureFixture[str]) -> None:
    from security_verifiers.training.bench import main

    with pytest.raises(SystemExit) as exc:
        main(["--warmup", "-1"])
    assert exc.value.code == 2 and "--warmup -1" in capsys.readouterr().err


def test_bench_and_label_probe_offer_the_classification_environments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--env` choices come from the specs (a classification report profile), not a list."""
    from security_verifiers.training.bench import main
    from security_verifiers.training.label_probe import answer_labels, parse_args
    from sv_shared.spec import LoadedEnvInfo

    assert parse_args(["--model", "m"]).env == "e1"
    assert parse_args(["--model", "m", "--env", "e4"]).env == "e4"
    with pytest.raises(SystemExit) as exc:
        main(["--env", "e2"])
    assert exc.value.code == 2 and "'e1', 'e4'" in capsys.readouterr().err
    info = LoadedEnvInfo({}, {"abstain_label": "Skip"}, labels=("Phishing", "Legitimate", "Skip"))
    assert answer_labels(info) == ["Legitimate", "Phishing"]
    assert answer_labels(LoadedEnvInfo({}, labels=("Benign", "Malicious", "Abstain"))) == [
        "Benign",
        "Malicious",
    ]
