"""Template groups SFT leaves to RL (`data.rl_groups`, `envs.<env>.rows: sft_held_out`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.training.config import RLRecipe, SFTRecipe, load_recipe
from security_verifiers.training.envs import load_training_env, row_key
from security_verifiers.training.group_holdout import (
    choose_groups,
    recorded_groups,
    row_group,
    split_rows,
)

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115


def rows(groups_per_label: int = 10, per_group: int = 3) -> list[dict]:
    out = []
    for label in ("Phishing", "Legitimate"):
        for g in range(groups_per_label):
            for i in range(per_group):
                info = {"id": f"{label}-{g}-{i}", "group": f"{label}:v{g}"}
                out.append({"answer": label, "info": info, "prompt": []})
    return out


def test_groups_are_chosen_per_label_whole_and_reproducibly() -> None:
    data = rows()
    chosen = choose_groups(data, 0.2, seed=42)
    assert chosen == choose_groups(list(reversed(data)), 0.2, seed=42)  # order-free
    assert chosen != choose_groups(data, 0.2, seed=7)
    assert sum(g.startswith("Phishing") for g in chosen) == 2
    assert sum(g.startswith("Legitimate") for g in chosen) == 2
    outside, inside = split_rows(data, chosen)
    assert len(inside) == 12 and len(outside) == 48
    assert not {row_group(r) for r in outside} & {row_group(r) for r in inside}
    assert choose_groups(data, 0.0, seed=42) == []


def test_a_row_without_a_group_is_its_own_group() -> None:
    assert row_group({"info": json.dumps({"id": "x1"})}) == "row:x1"
    assert row_group({"info": {"id": "x1", "group": "g"}}) == "g"


def test_a_share_that_leaves_sft_no_group_of_a_label_is_refused() -> None:
    with pytest.raises(UserError, match="rl_groups"):
        choose_groups(rows(groups_per_label=2), 0.9, seed=42)


def test_a_checkpoint_without_held_out_groups_is_refused(tmp_path: Path) -> None:
    (tmp_path / "datasets.json").write_text(json.dumps({"e4": {}, "sft_examples": {}}))
    with pytest.raises(UserError, match="sft_held_out"):
        recorded_groups(tmp_path / "model", "e4")


def recipe(path: Path, data: dict, kind: type):
    path.write_text(yaml.safe_dump(data))
    return load_recipe(path, kind)


def test_rl_samples_only_the_groups_sft_left_out(tiny_model_dir: Path, tmp_path: Path) -> None:
    from security_verifiers.training.rl import run_rl
    from security_verifiers.training.sft import run_sft

    sft = recipe(tmp_path / "sft.yaml", {
        "model": str(tiny_model_dir), "output_root": str(tmp_path / "ckpt"), "threads": 1,
        "data": {"env": "e4", "env_args": {"split": "train", "prompt_style": "compact"},
                 "max_examples": 4, "rl_groups": 0.15},
        "train": {"max_steps": 1, "batch_size": 2, "max_length": 4096},
        "lora": {"r": 4, "alpha": 8},
    }, SFTRecipe)  # fmt: skip
    sft_root = run_sft(sft, QUIET)
    held = json.loads((sft_root / "datasets.json").read_text())["sft_examples"]["rl_groups"]
    assert held["share"] == 0.15 and held["groups"] and held["rows"] > 0
    trained = {json.loads(line)["key"] for line in (sft_root / "sft_data.jsonl").open()}
    split = load_training_env("e4", {"split": "train", "prompt_style": "compact"}).rows
    group_of = {row_key(row): row_group(row) for row in split}
    assert len(trained) == 4 and not {group_of[key] for key in trained} & set(held["groups"])
    assert held["rows"] == sum(group_of[key] in held["groups"] for key in group_of)

    rl = recipe(tmp_path / "rl.yaml", {
        "model": str(sft_root), "output_root": str(tmp_path / "ckpt"), "threads": 1,
        "algorithm": "expert_iteration",
        "envs": {"e4": {"env_args": {"split": "train", "prompt_style": "compact"},
                        "rows": "sft_held_out", "max_examples": 5}},
        "stages": [{"envs": ["e4"], "steps": 1}],
        "expert_iteration": {"k": 2, "prompts": 2, "max_completion_length": 8,
                             "sampler": "transformers", "sft_steps": 1, "batch_size": 2,
                             "max_length": 4096, "min_reward": -10.0},
        "lora": {"r": 4, "alpha": 8},
    }, RLRecipe)  # fmt: skip
    rl_root = run_rl(rl, QUIET)
    datasets = json.loads((rl_root / "datasets.json").read_text())
    assert datasets["e4"]["rows"] == 5 and datasets["e4"]["rows_from"] == "sft_held_out"


def test_rl_from_a_checkpoint_that_held_nothing_out_is_refused(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    from security_verifiers.training.rl import run_rl

    rl = recipe(tmp_path / "rl.yaml", {
        "model": str(tiny_model_dir), "output_root": str(tmp_path / "ckpt"), "threads": 1,
        "algorithm": "expert_iteration",
        "envs": {"e4": {"rows": "sft_held_out"}},
        "stages": [{"envs": ["e4"], "steps": 1}],
    }, RLRecipe)  # fmt: skip
    with pytest.raises(UserError, match="sft_held_out"):
        run_rl(rl, QUIET)
