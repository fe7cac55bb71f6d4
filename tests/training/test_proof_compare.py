"""The base -> SFT -> RL comparison table built from eval run directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.errors import UserError
from security_verifiers.reports.runs import load_run
from security_verifiers.training.compare import brier, comparison_table, ece_with_ci, main, recall

META = {"env": "e1", "env_id": "sv-env-network-logs", "dataset_hash": "sha256:x", "seed": 42,
        "reward_config": {"weights": {"decision": 1.0}}, "env_args": {}}  # fmt: skip


def write_run(root: Path, name: str, answers: list[tuple[str | None, float]], **meta) -> Path:
    run = root / name
    run.mkdir(parents=True)
    (run / "metadata.json").write_text(json.dumps({**META, "model": name, **meta}))
    (run / "summary.json").write_text("{}")
    rows = []
    for i, (label, conf) in enumerate(answers):
        gold = "Malicious" if i % 2 else "Benign"
        parsed = None if label is None else {"label": label, "confidence": conf}
        reward = -2.0 if label is None else (1.0 if label == gold else -1.0)
        rows.append({"example_key": f"k{i}", "gold": gold, "parsed": parsed, "reward": reward})
    (run / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return run


def test_table_has_every_metric_with_cis_and_paired_differences(tmp_path: Path) -> None:
    base = write_run(tmp_path, "base", [(None, 0.0)] * 8)
    sft = write_run(tmp_path, "sft", [("Benign", 0.9)] * 8)
    rl = write_run(
        tmp_path, "rl", [("Benign" if i % 2 == 0 else "Malicious", 0.8) for i in range(8)]
    )
    table = comparison_table([load_run(p) for p in (base, sft, rl)], ["base", "sft", "rl"])
    assert "format-valid rate" in table and "accuracy" in table and "mean reward" in table
    assert "| base | 8 | 0.000 [0.000, 0.000]" in table
    assert "| sft − base | +1.000 [+1.000, +1.000]" in table  # format-valid: 0 -> 1
    assert "rl − sft" in table and "rl − base" in table
    out = tmp_path / "table.md"
    main([str(base), str(sft), str(rl), "--labels", "base,sft,rl", "--out", str(out)])
    assert out.read_text() == table


def test_brier_only_for_answered_rows() -> None:
    assert brier({"gold": "Benign", "parsed": {"label": "Benign", "confidence": 0.75}}) == 0.0625
    assert brier({"gold": "Benign", "parsed": {"label": "Abstain", "confidence": 0.5}}) is None
    assert brier({"gold": "Benign", "parsed": None}) is None


def test_incomparable_runs_are_refused(tmp_path: Path) -> None:
    a = write_run(tmp_path, "a", [("Benign", 0.9)] * 2)
    b = write_run(tmp_path, "b", [("Benign", 0.9)] * 2, seed=7)
    with pytest.raises(UserError, match="seed"):
        comparison_table([load_run(a), load_run(b)], ["a", "b"])


def test_recall_counts_abstentions_and_invalid_answers_as_misses() -> None:
    def row(gold: str, label: str | None) -> dict:
        return {"gold": gold, "parsed": None if label is None else {"label": label}}

    assert recall(row("Malicious", "Malicious")) == 1.0
    assert recall(row("Malicious", "Abstain")) == 0.0
    assert recall(row("Phishing", None)) == 0.0
    assert recall(row("Benign", "Benign")) is None
    assert recall(row("Legitimate", "Phishing")) is None


def test_ece_column_is_zero_for_calibrated_answers_and_large_for_overconfident(
    tmp_path: Path,
) -> None:
    calibrated = write_run(tmp_path, "cal", [("Benign", 0.5)] * 8)  # half right at 0.5
    overconfident = write_run(tmp_path, "over", [("Benign", 1.0)] * 8)  # half right at 1.0
    point, (low, high) = ece_with_ci(load_run(calibrated))
    assert point == pytest.approx(0.0) and low <= point <= high
    assert ece_with_ci(load_run(overconfident))[0] == pytest.approx(0.5)
    table = comparison_table([load_run(calibrated), load_run(overconfident)], ["cal", "over"])
    assert "ECE (answered)" in table and "recall (abstain = miss)" in table
