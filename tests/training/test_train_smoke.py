"""CI smoke of the recipes: a few SFT steps, then a few GRPO steps from that checkpoint (E1),
an E5/E6 attacker/defender alternation, and an interrupted run — on a tiny random Llama."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from security_verifiers.errors import Interrupted
from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER, resolve_checkpoint
from security_verifiers.training.config import RLRecipe, SFTRecipe, load_recipe
from security_verifiers.training.rollouts import tokenize_episode

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115


def recipe(tmp_path: Path, name: str, data: dict, kind: type):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return load_recipe(path, kind)


def sft_recipe(tmp_path: Path, model: Path) -> SFTRecipe:
    return recipe(tmp_path, "sft.yaml", {
        "model": str(model), "output_root": str(tmp_path / "ckpt"),
        "data": {"env": "e1", "max_examples": 8},
        "train": {"max_steps": 2, "batch_size": 2, "logging_steps": 1, "save_steps": 1,
                  "max_length": 4096},
        "lora": {"r": 4, "alpha": 8},
    }, SFTRecipe)  # fmt: skip


def marker(root: Path) -> dict:
    return json.loads((root / CHECKPOINT_MARKER).read_text())


@pytest.fixture(scope="module")
def sft_checkpoint(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from security_verifiers.training.sft import run_sft

    tmp_path = tmp_path_factory.mktemp("sft")
    return run_sft(sft_recipe(tmp_path, tiny_model_dir), QUIET)


def test_sft_writes_a_complete_checkpoint(sft_checkpoint: Path) -> None:
    meta = marker(sft_checkpoint)
    assert meta["status"] == "complete" and meta["steps"] == 2 and meta["stage"] == "sft"
    assert sft_checkpoint.parent.name == "sft" and sft_checkpoint.parent.parent.name.startswith(
        "tiny-llama"
    )
    metrics = json.loads((sft_checkpoint / "metrics.json").read_text())
    assert [e["step"] for e in metrics["log_history"] if "loss" in e] == [1, 2]
    # the label word's first token is found in the answers and its accuracy logged
    assert all(0 <= e["decision_accuracy"] <= 1 for e in metrics["log_history"] if "loss" in e)
    datasets = json.loads((sft_checkpoint / "datasets.json").read_text())
    assert datasets["e1"]["content_hash"].startswith("sha256:")
    assert datasets["sft_examples"]["n_examples"] == 8
    assert (sft_checkpoint / "curves.png").is_file()
    assert (sft_checkpoint / "adapter" / "adapter_config.json").is_file()
    assert (sft_checkpoint / "model" / "config.json").is_file()
    assert resolve_checkpoint(str(sft_checkpoint)).kind == "hf_dir"


def test_grpo_from_the_sft_checkpoint(sft_checkpoint: Path, tmp_path: Path) -> None:
    from security_verifiers.training.rl import run_rl

    rl = recipe(tmp_path, "rl.yaml", {
        "model": str(sft_checkpoint), "output_root": str(tmp_path / "ckpt"),
        "envs": {"e1": {"reward_weights": {"decision": 1.0, "calibration": 0.3, "format": 0.2},
                        "max_examples": 16}},
        "stages": [{"envs": ["e1"], "steps": 2}],
        "grpo": {"num_generations": 2, "prompts_per_step": 2, "max_completion_length": 8,
                 "save_steps": 1},
        "lora": {"r": 4, "alpha": 8},
    }, RLRecipe)  # fmt: skip
    root = run_rl(rl, QUIET)
    meta = marker(root)
    assert meta["status"] == "complete" and meta["steps"] == 2 and meta["stage"] == "rl"
    weights = json.loads((root / "reward_weights.json").read_text())
    assert weights["e1"] == {"decision": 1.0, "calibration": 0.3, "format": 0.2, "accuracy": 0.0}
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    logged = [e for e in history if "reward" in e]
    assert len(logged) == 2 and all("rewards/e1/decision/mean" in e for e in logged)
    assert (root / "model" / "config.json").is_file()


def test_attacker_defender_alternation(sft_checkpoint: Path, tmp_path: Path) -> None:
    from security_verifiers.training.rl import run_rl

    alt = recipe(tmp_path, "alt.yaml", {
        "model": str(sft_checkpoint), "output_root": str(tmp_path / "ckpt"), "save_merged": False,
        "envs": {"e5": {"env_args": {"max_turns": 1}, "target": "self", "max_examples": 2},
                 "e6": {"max_examples": 2}},
        "alternation": {"rounds": 1, "attacker": {"env": "e5", "steps": 1},
                        "defender": {"env": "e6", "steps": 1}},
        "grpo": {"num_generations": 2, "prompts_per_step": 1, "max_completion_length": 6},
        "lora": {"r": 4, "alpha": 8},
    }, RLRecipe)  # fmt: skip
    root = run_rl(alt, QUIET)
    meta = marker(root)
    assert meta["status"] == "complete"
    assert [s["stage"] for s in meta["stages"]] == ["round1-attacker", "round1-defender"]
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    stages = {e["stage"]: e for e in history if "reward" in e}
    assert "rewards/e5/success/mean" in stages["round1-attacker"]
    assert "rewards/e6/refusal/mean" in stages["round1-defender"]


def test_an_interrupted_run_keeps_its_last_checkpoint(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trl

    from security_verifiers.training.sft import run_sft

    original = trl.SFTTrainer.training_step
    calls = {"n": 0}

    def stop_on_second(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(trl.SFTTrainer, "training_step", stop_on_second)
    with pytest.raises(Interrupted):
        run_sft(sft_recipe(tmp_path, tiny_model_dir), QUIET)
    [root] = list((tmp_path / "ckpt").glob("*/sft/*"))
    assert marker(root)["status"] == "interrupted"
    assert (root / "adapter" / "adapter_config.json").is_file()
    assert (root / "trainer" / "checkpoint-1").is_dir()  # the last periodic save survives
    with pytest.raises(Exception, match="no complete checkpoint"):
        resolve_checkpoint(
            f"latest:{root.parent.parent.name}/sft", checkpoint_root=tmp_path / "ckpt"
        )


def test_episode_tokenisation_masks_environment_turns(tiny_model_dir: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    prompt = [{"role": "system", "content": "sys"}, {"role": "user", "content": "attack"}]
    completion = [
        {"role": "assistant", "content": "first reply"},
        {"role": "user", "content": "target says no"},
        {"role": "assistant", "content": "second"},
    ]
    prompt_ids, ids, mask = tokenize_episode(tokenizer, prompt, completion)
    assert len(ids) == len(mask) and 0 in mask and 1 in mask
    policy_text = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
    env_text = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if not m])
    assert "first reply" in policy_text and "second" in policy_text
    assert "target says no" in env_text and "target says no" not in policy_text
    full = tokenizer.apply_chat_template(prompt + completion, tokenize=True, return_dict=True)
    assert prompt_ids + ids == list(full["input_ids"])
