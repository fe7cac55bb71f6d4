"""Watching training: `report_to` in the recipes (Trackio end to end, offline; W&B's missing
package is one line), the tracker's whereabouts in the checkpoint, and GRPO's vLLM options
validated on a machine without a GPU."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER
from security_verifiers.training.config import RLRecipe, SFTRecipe, load_recipe

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115
RL_BASE = {
    "envs": {"e1": {"max_examples": 8}},
    "stages": [{"envs": ["e1"], "steps": 1}],
}


def write(tmp_path: Path, data: dict, name: str = "recipe.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_report_to_is_validated_in_one_line(tmp_path: Path):
    with pytest.raises(UserError, match=r"recipe\.yaml: report_to: Input should be") as info:
        load_recipe(write(tmp_path, {"report_to": "tensorboard"}), SFTRecipe)
    assert "\n" not in str(info.value)
    if importlib.util.find_spec("wandb") is None:
        with pytest.raises(UserError, match=r"report_to: wandb needs the wandb package"):
            load_recipe(write(tmp_path, {"report_to": "wandb"}), SFTRecipe)
    assert load_recipe(write(tmp_path, {}), SFTRecipe).report_to == "none"


def grpo(tmp_path: Path, settings: dict, **top) -> RLRecipe:
    return load_recipe(write(tmp_path, {**RL_BASE, "grpo": settings, **top}), RLRecipe)


def test_vllm_options_reach_trls_config(tmp_path: Path):
    from security_verifiers.training.rl import grpo_args
    from security_verifiers.training.runtime import setup_runtime

    runtime = setup_runtime(1, "float32")
    colocate = grpo(tmp_path, {"use_vllm": True, "vllm_gpu_memory_utilization": 0.5,
                               "vllm_tensor_parallel_size": 2}).grpo  # fmt: skip
    args = grpo_args(colocate, 1, tmp_path / "out", [1.0], runtime)
    assert args.use_vllm and args.vllm_mode == "colocate"
    assert args.vllm_gpu_memory_utilization == 0.5 and args.vllm_tensor_parallel_size == 2
    server = grpo(tmp_path, {"use_vllm": True, "vllm_mode": "server",
                             "vllm_server_base_url": "http://10.0.0.5:8000"}).grpo  # fmt: skip
    args = grpo_args(server, 1, tmp_path / "out", [1.0], runtime)
    assert args.vllm_mode == "server" and args.vllm_server_base_url == "http://10.0.0.5:8000"
    assert not grpo_args(grpo(tmp_path, {}).grpo, 1, tmp_path / "out", [1.0], runtime).use_vllm


@pytest.mark.parametrize(
    ("settings", "top", "message"),
    [
        ({"use_vllm": True, "vllm_server_base_url": "http://h:1"}, {},
         "vllm_server_base_url is for vllm_mode: server"),
        ({"use_vllm": True, "vllm_mode": "spawn"}, {}, "grpo.vllm_mode: Input should be"),
        ({"vllm_gpu_memory_utilization": 1.5}, {}, "grpo.vllm_gpu_memory_utilization"),
        ({"use_vllm": True}, {"algorithm": "expert_iteration"}, "applies to algorithm: grpo"),
    ],
)  # fmt: skip
def test_bad_vllm_settings_name_the_field(tmp_path: Path, settings, top, message):
    with pytest.raises(UserError, match=message):
        grpo(tmp_path, settings, **top)


def test_use_vllm_without_a_gpu_is_one_line(tmp_path: Path):
    from security_verifiers.training.rl import check_vllm_machine

    settings = grpo(tmp_path, {"use_vllm": True}).grpo
    with pytest.raises(UserError, match=r"grpo\.use_vllm: needs a CUDA GPU"):
        check_vllm_machine(settings, cuda=False)
    check_vllm_machine(grpo(tmp_path, {}).grpo, cuda=False)  # off: nothing to check


def test_sft_logs_to_trackio_offline_and_records_where(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import trackio
    from trackio.sqlite_storage import SQLiteStorage

    from security_verifiers.training.sft import run_sft

    monkeypatch.setattr(trackio, "TRACKIO_DIR", tmp_path / "trackio", raising=False)
    monkeypatch.setenv("TRACKIO_DIR", str(tmp_path / "trackio"))
    recipe = load_recipe(write(tmp_path, {
        "model": str(tiny_model_dir), "output_root": str(tmp_path / "ckpt"),
        "report_to": "trackio", "tracker_project": "sv-test",
        "data": {"env": "e1", "max_examples": 4},
        "train": {"max_steps": 2, "batch_size": 2, "logging_steps": 1, "save_steps": 5,
                  "max_length": 4096},
        "lora": {"r": 4, "alpha": 8}, "save_merged": False,
    }), SFTRecipe)  # fmt: skip
    root = run_sft(recipe, QUIET)
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    tracker = meta["tracker"]
    assert meta["status"] == "complete"
    assert tracker["report_to"] == "trackio" and tracker["project"] == "sv-test"
    assert tracker["run_name"] == root.name and "trackio show" in tracker["view"]
    logs = SQLiteStorage.get_logs("sv-test", root.name)
    assert [entry for entry in logs if "train/loss" in entry or "loss" in entry]
