"""Expert iteration's round selection: score the policy on a held-out split before the first
round and after each, end the stage on the best adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER
from security_verifiers.training.round_selection import (
    BestRound,
    adapter_snapshot,
    held_out_rows,
    restore_adapter,
)
from tests.training.test_expert_iteration_run import run_tiny_expert_iteration

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def test_held_out_rows_are_a_fixed_shuffle_of_the_split():
    rows = [{"id": i} for i in range(10)]
    picked = held_out_rows(rows, 4, seed=3)
    assert picked == held_out_rows(rows, 4, seed=3) and len(picked) == 4
    assert picked != rows[:4] or held_out_rows(rows, 4, seed=4) != picked
    assert len(held_out_rows(rows, 50, seed=3)) == 10
    every = held_out_rows(rows, None, seed=3)
    assert every[:4] == picked and sorted(r["id"] for r in every) == list(range(10))


def test_the_best_round_keeps_the_earliest_of_equal_scores(lora_model):
    model = lora_model()
    best = BestRound()
    assert best.offer(0, 0.5, model)
    assert not best.offer(1, 0.5, model)  # a tie keeps the less-trained adapter
    assert best.offer(2, 0.7, model) and not best.offer(3, 0.1, model)
    assert (best.round, best.score, best.scores) == (2, 0.7, [0.5, 0.5, 0.7, 0.1])


def test_a_snapshot_restores_the_adapter_it_copied(lora_model):
    torch = pytest.importorskip("torch")
    model = lora_model()
    snapshot = adapter_snapshot(model)
    before = {k: v.clone() for k, v in model.state_dict().items() if "lora_" in k}
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_" in name:
                param.add_(1.0)
    restore_adapter(model, snapshot)
    after = {k: v for k, v in model.state_dict().items() if "lora_" in k}
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)


def saved_lora_b(root: Path) -> list:
    from safetensors.torch import load_file

    weights = load_file(str(root / "adapter" / "adapter_model.safetensors"))
    return [t for k, t in weights.items() if "lora_B" in k]


def test_rounds_that_score_worse_than_the_start_are_undone(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The start scores best, so the checkpoint is the start's adapter (LoRA B = 0) although
    two rounds trained, and the metadata records why."""
    from security_verifiers.training import expert

    scores = iter([0.9, 0.2, 0.4])
    monkeypatch.setattr(expert, "held_out_reward", lambda *a, **k: next(scores))
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=2, keep="best",
                                     select_split="dev", select_items=3)  # fmt: skip
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    (stage,) = meta["stages"]
    assert stage["round_selection"] == {"selected_round": 0, "rounds": 2, "held_out_items": 3,
                                        "scored_rounds": [0, 1, 2],
                                        "held_out_rewards": [0.9, 0.2, 0.4]}  # fmt: skip
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    assert [e["held_out_reward"] for e in history] == [0.2, 0.4]
    assert all(float(b.abs().max()) == 0.0 for b in saved_lora_b(root))


def test_held_out_scoring_decodes_the_dev_split_greedily(tiny_model_dir: Path, tmp_path: Path):
    """The real scoring path: greedy answers to E1's dev rows, scored by E1's reward; a later
    round is kept only when it beats every earlier score."""
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, keep="best",
                                     select_split="dev", select_items=2)  # fmt: skip
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    selection = meta["stages"][0]["round_selection"]
    first, last = selection["held_out_rewards"]
    assert selection["held_out_items"] == 2
    assert selection["selected_round"] == (1 if last > first else 0)
    if selection["selected_round"] == 0:
        assert all(float(b.abs().max()) == 0.0 for b in saved_lora_b(root))


def test_a_split_the_environment_lacks_is_a_one_line_error(tiny_model_dir: Path, tmp_path: Path):
    with pytest.raises(UserError, match=r"expert_iteration\.select_split"):
        run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=1, select_split="train")


def test_the_checkpoint_is_the_selected_rounds_adapter(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Round 1 scores best of three: the saved adapter is the one round 1's SFT steps saved,
    not round 2's."""
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    from security_verifiers.training import expert

    scores = iter([0.1, 0.5, 0.3])
    monkeypatch.setattr(expert, "held_out_reward", lambda *a, **k: next(scores))
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=2, keep="best",
                                     select_split="dev", select_items=3)  # fmt: skip
    meta = json.loads((root / CHECKPOINT_MARKER).read_text())
    assert meta["stages"][0]["round_selection"]["selected_round"] == 1
    saved = load_file(str(root / "adapter" / "adapter_model.safetensors"))
    (round1,) = root.glob("trainer/stage1/round1/checkpoint-*/adapter_model.safetensors")
    (round2,) = root.glob("trainer/stage1/round2/checkpoint-*/adapter_model.safetensors")
    first, second = load_file(str(round1)), load_file(str(round2))
    assert saved.keys() == first.keys()
    assert all(torch.equal(saved[k], first[k]) for k in saved)
    assert not all(torch.equal(saved[k], second[k]) for k in saved)


def test_select_rounds_last_scores_only_the_start_and_the_last_round(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`select_rounds: last`: two scores for a 3-round stage; the last round beats the start,
    so the checkpoint is the last round's adapter, whatever an unscored round would have got."""
    from security_verifiers.training import expert

    scores = iter([0.3, 0.5])
    calls: list[int] = []

    def score(*args: object, **kwargs: object) -> float:
        calls.append(1)
        return next(scores)

    monkeypatch.setattr(expert, "held_out_reward", score)
    root = run_tiny_expert_iteration(tiny_model_dir, tmp_path, rounds=3, keep="best",
                                     select_split="dev", select_items=3,
                                     select_rounds="last")  # fmt: skip
    selection = json.loads((root / CHECKPOINT_MARKER).read_text())["stages"][0]["round_selection"]
    assert len(calls) == 2
    assert selection["scored_rounds"] == [0, 3] and selection["held_out_rewards"] == [0.3, 0.5]
    assert selection["selected_round"] == 3
    history = json.loads((root / "metrics.json").read_text())["log_history"]
    assert ["held_out_reward" in e for e in history] == [False, False, True]
    assert any(float(b.abs().max()) > 0.0 for b in saved_lora_b(root))
