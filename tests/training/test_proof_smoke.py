"""CI smoke of the two experiment commands on a tiny random Llama (the real runs are `make
train-proof` and `make train-curriculum`): every stage runs as its own `sv` process, the
tables and summaries are written, and a reused SFT checkpoint skips the SFT stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def recipes(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("recipes")
    sft = write(root / "sft.yaml", {
        "model": str(tiny_model_dir), "threads": 1,
        "data": {"env": "e1", "max_examples": 8},
        "train": {"max_steps": 2, "batch_size": 2, "logging_steps": 1, "max_length": 4096},
        "lora": {"r": 4, "alpha": 8},
    })  # fmt: skip
    rl = write(root / "rl.yaml", {
        "algorithm": "expert_iteration", "threads": 1,
        "envs": {"e1": {"reward_weights": {"decision": 1.0, "format": 0.1}, "max_examples": 8}},
        "stages": [{"envs": ["e1"], "steps": 1}],
        "expert_iteration": {"max_completion_length": 8, "keep": "best", "min_reward": -10.0,
                             "select_split": "dev", "select_items": 50},
        "lora": {"r": 4, "alpha": 8},
    })  # fmt: skip
    return sft, rl


@pytest.fixture(scope="module")
def proof_out(recipes: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    from security_verifiers.training.proof import main

    out = tmp_path_factory.mktemp("proof")
    sft, rl = recipes
    argv = ["--env", "e1", "--smoke", "--sft-config", str(sft), "--rl-config", str(rl),
            "--eval-backend", "hf", "--threads", "1", "--out", str(out),
            "--low-memory"]  # fmt: skip
    assert main(argv) == 0
    return out


def test_proof_runs_every_stage_and_writes_the_table(proof_out: Path) -> None:
    summary = json.loads((proof_out / "proof.json").read_text())
    assert {"sft", "rl", "eval-test-base", "eval-test-sft", "compare-test"} <= set(
        summary["timings_s"]
    )
    # an RL stage that kept its SFT adapter is not evaluated again: its column is SFT's run
    runs = summary["eval_runs"]["test"]
    assert ("eval-test-rl" in summary["timings_s"]) is not summary["rl_evals_from_sft"]
    assert (runs["rl"] == runs["sft"]) is summary["rl_evals_from_sft"]
    assert summary["eval_models"]["base"].startswith("hf:") and not summary["sft_reused"]
    assert " = 1" in summary["llama_cpu_features"]  # which llama.cpp build scored the evals
    assert summary["low_memory"] and all(summary["peak_rss_mb"][k] > 0 for k in ("sft", "rl"))
    rl_meta = json.loads(Path(summary["checkpoints"]["rl"], CHECKPOINT_MARKER).read_text())
    assert rl_meta["stages"][0]["round_selection"]["held_out_items"] == 2  # --smoke's cap
    sft_config = yaml.safe_load(Path(summary["checkpoints"]["sft"], "config.yaml").read_text())
    assert sft_config["train"]["grad_accum"] == 4
    for label in ("base", "sft", "rl"):
        rows = Path(summary["eval_runs"]["test"][label], "results.jsonl").read_text().splitlines()
        assert len(rows) == 4
    table = (proof_out / "table.md").read_text()
    assert "## test" in table and "rl" in table and "p" in table


def test_proof_reuses_a_finished_sft_checkpoint(
    proof_out: Path, recipes: tuple[Path, Path], tmp_path: Path
) -> None:
    from security_verifiers.training.proof import main

    sft_ckpt = json.loads((proof_out / "proof.json").read_text())["checkpoints"]["sft"]
    sft, rl = recipes
    argv = ["--env", "e1", "--smoke", "--sft-config", str(sft), "--rl-config", str(rl),
            "--eval-backend", "hf", "--threads", "1", "--out", str(tmp_path),
            "--sft-checkpoint", sft_ckpt]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((tmp_path / "proof.json").read_text())
    assert summary["sft_reused"] and summary["checkpoints"]["sft"] == sft_ckpt
    assert "sft" not in summary["timings_s"]


def test_proof_refuses_a_directory_that_is_not_a_checkpoint(tmp_path: Path) -> None:
    from security_verifiers.training.proof import main

    with pytest.raises(SystemExit, match="is not a finished checkpoint"):
        main(["--sft-checkpoint", str(tmp_path), "--out", str(tmp_path / "out")])


def test_curriculum_targets_missed_classes_and_compares_on_the_same_items(
    proof_out: Path, recipes: tuple[Path, Path], tmp_path: Path
) -> None:
    from security_verifiers.training.curriculum import main

    sft_ckpt = json.loads((proof_out / "proof.json").read_text())["checkpoints"]["sft"]
    sft, _ = recipes
    argv = ["--sft", sft_ckpt, "--config", str(sft), "--eval-backend", "hf", "--threads", "1",
            "--probe-n", "6", "-n", "4", "--per-class", "2", "--replay", "2", "--min-items", "1",
            "--min-rate", "0.0", "--max-classes", "2", "--corpus-size", "300", "--control",
            "--out", str(tmp_path), "--set", "train.max_steps=1"]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((tmp_path / "curriculum.json").read_text())
    assert 1 <= len(summary["targets"]) <= 2
    assert set(summary["checkpoints"]) == {"before", "targeted", "control"}
    items = {
        label: [
            json.loads(line)["example_key"]
            for line in Path(run, "results.jsonl").read_text().splitlines()
        ]
        for label, run in summary["runs"].items()
    }
    assert items["before"] == items["targeted"] == items["control"] and len(items["before"]) == 4
    assert "Targeted classes" in (tmp_path / "table.md").read_text()
