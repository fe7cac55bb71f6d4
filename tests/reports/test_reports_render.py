"""A report renders from a few tiny synthetic runs (E1 and E6) and from real baseline runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rich.console import Console

from security_verifiers.reports.build import build_report
from sv_shared.metrics import classification_metrics

E1_META = {
    "env": "e1",
    "env_id": "sv-env-network-logs",
    "env_args": {},
    "dataset": {"split": "test"},
    "dataset_hash": "sha256:e1",
    "seed": 42,
    "reward_config": {"abstain_label": "Abstain", "weights": {"decision": 1.0}},
    "target": None,
    "status": "complete",
}
GOLDS = ["Malicious", "Benign"] * 6


def write_run(root: Path, meta: dict, rows: list[dict], metrics: dict) -> Path:
    run_dir = root / f"{meta['env_id']}--{meta['model']}" / meta["run_id"]
    run_dir.mkdir(parents=True)
    (run_dir / "metadata.json").write_text(json.dumps(meta))
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rewards = [r["reward"] for r in rows]
    summary = {"n": len(rows), "reward_mean": sum(rewards) / len(rows), "metrics": metrics}
    (run_dir / "summary.json").write_text(json.dumps(summary))
    return run_dir


def e1_run(root: Path, model: str, labels: list[str | None], confs: list[float], **meta) -> Path:
    rows = []
    for i, (gold, label, conf) in enumerate(zip(GOLDS, labels, confs, strict=True)):
        ok = label == gold
        rows.append(
            {
                "example_id": i,
                "example_key": f"e1-{i}",
                "gold": gold,
                "parsed": None if label is None else {"label": label, "confidence": conf},
                "rewards": {"decision": 1.0 if ok else -1.0},
                "metrics": {},
                "reward": 1.0 if ok else -1.0,
                "error": None,
            }
        )
    metrics = classification_metrics(
        GOLDS, labels, [conf if label else None for label, conf in zip(labels, confs, strict=True)]
    )
    full_meta = {**E1_META, "model": model, "run_id": f"20260101-{model}", **meta}
    return write_run(root, full_meta, rows, metrics)


def e6_run(root: Path, model: str, refuse: bool) -> Path:
    kinds = ["direct", "over_refusal_probe"] * 4
    rows = [
        {
            "example_id": i,
            "example_key": f"e6-{i}",
            "scenario": kind,
            "gold": "[]",
            "parsed": None,
            "rewards": {"refusal": float(refuse and kind == "direct")},
            "metrics": {},
            "reward": 1.0 if (refuse == (kind == "direct")) else -1.0,
            "error": None,
        }
        for i, kind in enumerate(kinds)
    ]
    rate = 1.0 if refuse else 0.0
    metrics = {
        "refusal_rate_harmful": rate,
        "refusal_rate_harmful_ci95": [rate, rate],
        "over_refusal_rate": rate,
        "over_refusal_rate_ci95": [rate, rate],
        "harmful_compliance_rate": 1.0 - rate,
    }
    meta = {
        **E1_META,
        "env": "e6",
        "env_id": "sv-env-redteam-defense",
        "dataset_hash": "sha256:e6",
        "reward_config": {"weights": {"refusal": 1.0}},
        "model": model,
        "run_id": f"20260101-{model}",
    }
    return write_run(root, meta, rows, metrics)


def test_report_renders_from_tiny_runs(tmp_path: Path) -> None:
    root = tmp_path / "evals"
    e1_run(root, "good", list(GOLDS), [0.9, 0.8, 0.7, 0.95, 0.6, 0.9] * 2)
    bad = ["Benign", "Benign", "Abstain", "Benign", None, "Malicious"] * 2
    e1_run(root, "bad", bad, [0.6, 0.9, 0.5, 0.7, 0.5, 0.55] * 2)
    e1_run(root, "other-seed", list(GOLDS), [0.9] * 12, seed=7)
    e6_run(root, "always-refuse", refuse=True)
    e6_run(root, "always-comply", refuse=False)

    paths = build_report([str(root / "*" / "*")])

    assert paths.out_dir == root / "report"
    names = {p.name for p in paths.figures}
    assert {"e1_reliability.png", "e1_confusion.png", "e1_risk_coverage.png"} <= names
    assert {"e1_reward.png", "e6_refusal_tradeoff.png"} <= names
    assert all(p.stat().st_size > 1000 for p in paths.figures)

    html = paths.html.read_text()
    assert html.count('<img src="data:image/png;base64,') == len(paths.figures)
    assert "Calibration bins" in html and "sv-env-redteam-defense" in html

    md = paths.markdown.read_text()
    assert "| metric | bad | good | other-seed |" in md
    assert "| accuracy | 0.333 [" in md  # bad: 4 of 12 right, with a bootstrap CI
    assert "| reward:decision |" in md and "| ece |" in md
    # every compatible pair is compared; the run with another seed is listed, not compared
    assert "| bad | good | 12 | -0.333 | 1.000 | 1.333 |" in md
    assert "bad vs other-seed: different seed" in md
    assert "| always-comply | always-refuse | 8 |" in md
    assert "![Reliability diagram](figures/e1_reliability.png)" in md


def test_report_from_real_baseline_runs(tmp_path: Path) -> None:
    from security_verifiers.evaluation.config import EvalConfig
    from security_verifiers.evaluation.runner import evaluate

    config = EvalConfig(
        env="e6",
        models=["guarded", "always-refuse"],
        n=6,
        seed=42,
        output_root=tmp_path / "evals",
        show_progress=False,
    )
    with open("/dev/null", "w") as devnull:
        runs = asyncio.run(evaluate(config, Console(file=devnull)))
    paths = build_report([r.run_dir for r in runs], tmp_path / "out")
    md = paths.markdown.read_text()
    assert "| over_refusal_rate |" in md and "| always-refuse | guarded | 6 |" in md
    assert (tmp_path / "out" / "figures" / "e6_refusal_tradeoff.png").is_file()
