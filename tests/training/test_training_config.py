"""Recipe validation: every user mistake is one clear error naming the file and the field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.training.cli import given, parse_sets
from security_verifiers.training.config import RLRecipe, SFTRecipe, load_recipe

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recipe.yaml"
    path.write_text(text)
    return path


def error_of(path: Path, kind: type) -> str:
    with pytest.raises(UserError) as caught:
        load_recipe(path, kind)
    return str(caught.value)


@pytest.mark.parametrize("name", ["sft/e1.yaml"])
def test_shipped_sft_configs_validate(name: str) -> None:
    recipe = load_recipe(REPO / "configs" / name, SFTRecipe)
    assert recipe.data.env == "e1" and recipe.train.max_steps > 0


@pytest.mark.parametrize(
    "name", ["rlft/e1.yaml", "rlft/curriculum-e1-e4.yaml", "rlft/e5-e6-alternation.yaml"]
)
def test_shipped_rl_configs_validate(name: str) -> None:
    recipe = load_recipe(REPO / "configs" / name, RLRecipe)
    assert recipe.schedule()


def test_curriculum_goes_from_one_env_to_mixed_batches() -> None:
    stages = load_recipe(REPO / "configs/rlft/curriculum-e1-e4.yaml", RLRecipe).schedule()
    assert stages[0].envs == ["e1"] and len(stages[-1].envs) > 1


def test_alternation_expands_to_attacker_then_defender_stages() -> None:
    stages = load_recipe(REPO / "configs/rlft/e5-e6-alternation.yaml", RLRecipe).schedule()
    assert [s.envs for s in stages] == [["e5"], ["e6"]] * (len(stages) // 2)
    assert stages[0].label.endswith("attacker") and stages[1].label.endswith("defender")


def test_unknown_key_names_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "train:\n  max_step: 3\n")
    message = error_of(path, SFTRecipe)
    assert str(path) in message and "train.max_step" in message


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "train: {batch_size: many}\n"), SFTRecipe)
    assert "train.batch_size" in message


def test_decision_weight_is_not_negative_in_either_stage(tmp_path: Path) -> None:
    for name, kind in (("sft/e1.yaml", SFTRecipe), ("sft/e4.yaml", SFTRecipe)):
        assert load_recipe(REPO / "configs" / name, kind).train.decision_weight == 10.0
    assert "train.decision_weight" in error_of(
        write(tmp_path, "train: {decision_weight: -0.5}\n"), SFTRecipe
    )
    ei = write(tmp_path, "envs: {e4: {}}\nexpert_iteration: {decision_weight: -1}\n")
    assert "expert_iteration.decision_weight" in error_of(ei, RLRecipe)


def test_confidence_weight_and_optimizer_scope_are_checked(tmp_path: Path) -> None:
    assert "train.confidence_weight" in error_of(
        write(tmp_path, "train: {confidence_weight: -1}\n"), SFTRecipe
    )
    ei = write(tmp_path, "envs: {e4: {}}\nexpert_iteration: {confidence_weight: -2}\n")
    assert "expert_iteration.confidence_weight" in error_of(ei, RLRecipe)
    ei = write(tmp_path, "envs: {e4: {}}\nexpert_iteration: {optimizer_scope: run}\n")
    assert "expert_iteration.optimizer_scope" in error_of(ei, RLRecipe)


def test_unknown_environment(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "data: {env: e9}\n"), SFTRecipe)
    assert "data.env" in message and "unknown environment" in message


def test_stage_must_use_declared_envs(tmp_path: Path) -> None:
    text = "envs: {e1: {}}\nstages: [{envs: [e4], steps: 2}]\n"
    assert "not declared in `envs`" in error_of(write(tmp_path, text), RLRecipe)


def test_stages_and_alternation_are_exclusive(tmp_path: Path) -> None:
    text = "envs: {e5: {}, e6: {}}\nstages: [{envs: [e5], steps: 1}]\nalternation: {rounds: 1}\n"
    assert "exactly one of" in error_of(write(tmp_path, text), RLRecipe)


def test_grpo_needs_two_generations(tmp_path: Path) -> None:
    text = "envs: {e1: {}}\nstages: [{envs: [e1], steps: 1}]\ngrpo: {num_generations: 1}\n"
    assert "grpo.num_generations" in error_of(write(tmp_path, text), RLRecipe)


def test_bad_yaml_and_missing_file(tmp_path: Path) -> None:
    assert "cannot read" in error_of(write(tmp_path, "train: [unclosed\n"), SFTRecipe)
    assert "not found" in error_of(tmp_path / "nope.yaml", SFTRecipe)
    assert "mapping" in error_of(write(tmp_path, "- a\n- b\n"), SFTRecipe)


def test_overrides_apply_dotted_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "train: {max_steps: 9}\n")
    recipe = load_recipe(path, SFTRecipe, {"train.max_steps": 2, "lora.r": 4})
    assert recipe.train.max_steps == 2 and recipe.lora.r == 4 and recipe.model == "smollm2-135m"
    assert given({"model": None, "train.seed": 3}) == {"train.seed": 3}
    assert parse_sets(["train.batch_size=2", "data.env=e1"]) == {
        "train.batch_size": 2,
        "data.env": "e1",
    }
    with pytest.raises(UserError):
        parse_sets(["no-equals-sign"])


def test_cli_prints_one_line_not_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "envs: {e1: {}}\nstages: [{envs: [e1], steps: 0}]\n")
    done = subprocess.run(
        [sys.executable, "-m", "security_verifiers.cli", "train", "rl", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "stages.0.steps" in done.stderr and "Traceback" not in done.stderr


def test_set_null_clears_a_field(tmp_path: Path) -> None:
    """`--set key=null` turns a recipe field off; it is not dropped as an unset option."""
    path = write(
        tmp_path,
        "envs: {e4: {}}\nstages: [{envs: [e4], steps: 1}]\nalgorithm: expert_iteration\n"
        "expert_iteration: {select_split: dev, select_items: 96}\n",
    )
    overrides = parse_sets(["expert_iteration.select_split=null"])
    recipe = load_recipe(path, RLRecipe, overrides)
    assert recipe.expert_iteration.select_split is None
    assert recipe.expert_iteration.select_items == 96
