"""The proof's stage runner (parallel evals share the threads, a failure stops the proof) and the
trainer's memory release."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from security_verifiers.training.proof import Stages, kept_start, parse_args

PRINT_THREADS = "import os; print(os.environ['SV_LOCAL_THREADS'], os.environ['OMP_NUM_THREADS'])"


def test_run_all_splits_threads_between_jobs_and_records_each_stage(tmp_path: Path) -> None:
    stages = Stages(tmp_path, threads=4)
    commands = {f"eval-{i}": [sys.executable, "-c", PRINT_THREADS] for i in range(3)}
    wall = stages.run_all(commands, jobs=2, threads=4)
    assert wall >= 0
    for name in commands:
        assert (tmp_path / f"{name}.out").read_text().split() == ["2", "2"]
        assert name in stages.timings


def test_run_all_raises_on_a_failed_stage(tmp_path: Path) -> None:
    stages = Stages(tmp_path, threads=2)
    commands = {
        "ok": [sys.executable, "-c", "print('fine')"],
        "bad": [sys.executable, "-c", "import sys; sys.stderr.write('broken\\n'); sys.exit(3)"],
    }
    with pytest.raises(SystemExit, match=r"\[bad\] failed \(exit 3\)"):
        stages.run_all(commands, jobs=2, threads=2)


def test_eval_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--eval-jobs", "0"])
    assert "--eval-jobs 0" in capsys.readouterr().err


def test_memory_callback_trims_every_n_steps_and_logs_rss(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from security_verifiers.training import sft
    from security_verifiers.training.runtime import release_free_memory

    assert isinstance(release_free_memory(), bool)  # glibc here; False elsewhere, never raises
    calls: list[int] = []
    monkeypatch.setattr(sft, "release_free_memory", lambda: calls.append(1) or True)
    callback = sft.memory_callback(3)
    for step in range(1, 10):
        callback.on_step_end(None, SimpleNamespace(global_step=step), None)
    assert len(calls) == 3  # steps 3, 6, 9
    state = SimpleNamespace(log_history=[{"loss": 1.0, "step": 9}])
    callback.on_log(None, state, None)
    assert state.log_history[-1]["rss_mb"] > 0 and state.log_history[-1]["peak_rss_mb"] > 0


def test_the_base_model_is_exported_like_the_checkpoints(tmp_path: Path) -> None:
    """In llama.cpp the base column runs the weights SFT starts from as an f16 GGUF (the
    checkpoints' format), not the shipped 4-bit file; `hf` evaluates the recipe's model."""
    pytest.importorskip("gguf")
    from security_verifiers.training.export_gguf import _read_gguf
    from security_verifiers.training.proof import REPO, base_eval_model

    config = REPO / "configs/sft/e4.yaml"
    stages = Stages(tmp_path, threads=2)
    assert base_eval_model(config, "hf", stages, tmp_path) == "hf:smollm2-135m"
    name = base_eval_model(config, "llama", stages, tmp_path)
    gguf = tmp_path / "base" / "model.gguf"
    assert name == f"local:{gguf}" and "export-base" in stages.timings
    assert _read_gguf(gguf)[1]["general.file_type"] == 1  # f16
    hub = tmp_path / "hub.yaml"
    hub.write_text(config.read_text().replace("model: smollm2-135m", "model: org/other-model"))
    with pytest.raises(SystemExit, match="cannot export the base model 'org/other-model'"):
        base_eval_model(hub, "llama", stages, tmp_path)


def test_smoke_runs_evaluate_a_few_items_even_where_all_are_asked() -> None:
    from security_verifiers.environments import entries_with
    from security_verifiers.training.proof import SMOKE_ITEMS, smoke_items

    assert smoke_items(-1) == SMOKE_ITEMS and smoke_items(2) == 2 and smoke_items(200) == 4
    proofs = {entry.key: entry.spec.proof for entry in entries_with("proof")}
    assert {key: p.test_items for key, p in proofs.items()} == {"e1": 200, "e4": -1}  # E4: all 377
    assert {key: p.max_tokens for key, p in proofs.items()} == {"e1": 48, "e4": 96}
    assert parse_args(["--env", "e4"]).num_examples is None  # the env's default applies
    assert parse_args([]).env == "e1"  # the first environment with a proof task


def test_kept_start_needs_round_zero_in_every_stage(tmp_path: Path) -> None:
    import json

    from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER

    def marker(*selected: int | None) -> str:
        stages = [
            {"stage": "e4", **({"round_selection": {"selected_round": s}} if s is not None else {})}
            for s in selected
        ]
        (tmp_path / CHECKPOINT_MARKER).write_text(json.dumps({"stages": stages}))
        return str(tmp_path)

    assert kept_start(marker(0))
    assert kept_start(marker(0, 0))
    assert not kept_start(marker(0, 2))
    assert not kept_start(marker(None))  # a GRPO stage: no selection, its weights moved
    assert not kept_start(marker())
    assert not kept_start(str(tmp_path / "missing"))
