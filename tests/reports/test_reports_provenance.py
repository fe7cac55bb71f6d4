"""Report provenance, safety and honesty: per-run provenance, metric definitions, no absolute
paths or URL credentials, partial runs flagged with errored rows left out, one deterministic
reward interval, empty calibration bins omitted, intervals on the E2 success plot."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from security_verifiers.errors import UserError
from security_verifiers.reports import figures
from security_verifiers.reports.build import build_report
from security_verifiers.reports.command import report
from security_verifiers.reports.redact import clean_text, display_path, strip_userinfo
from security_verifiers.reports.runs import load_run
from security_verifiers.reports.scored import reward_ci
from security_verifiers.reports.tables import calibration_bins
from sv_shared.metrics import bootstrap_ci, classification_metrics

M, B = "Malicious", "Benign"
GOLDS = [M, B] * 6
SECRET = "s3cr3tpw"
DATA_PATH = "/home/alice/private/data/e1_conn.log"

E1_META: dict[str, Any] = {
    "env": "e1",
    "env_id": "sv-env-network-logs",
    "env_args": {"path": DATA_PATH, "source": "zeek"},
    "dataset": {"source": "zeek", "split": "all", "path": DATA_PATH, "content_hash": "sha256:d1"},
    "dataset_hash": "sha256:d1",
    "examples_hash": "ex1",
    "seed": 42,
    "reward_config": {"abstain_label": "Abstain", "weights": {"decision": 1.0}},
    "target": None,
    "status": "complete",
    "model_kind": "endpoint",
    "sampling_args": {"temperature": 0.0, "max_tokens": 512, "seed": 42},
    "git": {"commit": "0123456789abcdef0123", "dirty": True},
    "packages": {"verifiers": "0.3.1", "security-verifiers": "0.1.0"},
    "tool_versions": {"zeek-parser": "1.2"},
    "platform": {"python": "3.11.7"},
}


def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text).strip("-")


def e1_rows(labels: list[str | None], confs: list[float], errors: set[int] = frozenset()) -> list:
    rows = []
    for i, (gold, label, conf) in enumerate(zip(GOLDS, labels, confs, strict=True)):
        if i in errors:  # what the harness writes for a failed rollout
            rows.append({"example_id": i, "example_key": f"k{i}", "gold": gold, "parsed": None,
                         "rewards": {}, "metrics": {}, "reward": -2.0,
                         "error": "APIConnectionError: server unreachable"})  # fmt: skip
            continue
        ok = label == gold
        rows.append({"example_id": i, "example_key": f"k{i}", "gold": gold,
                     "parsed": None if label is None else {"label": label, "confidence": conf},
                     "rewards": {"decision": 1.0 if ok else -1.0}, "metrics": {},
                     "reward": 1.0 if ok else -1.0, "error": None})  # fmt: skip
    return rows


def summary_of(rows: list[dict], seed: int = 42) -> dict[str, Any]:
    """What summary.json of the current harness holds: every row, errored ones included."""
    parsed = [r.get("parsed") or {} for r in rows]
    rewards = [r["reward"] for r in rows]
    return {
        "n": len(rows),
        "n_errors": sum(1 for r in rows if r.get("error")),
        "reward_mean": sum(rewards) / len(rows),
        "reward_ci95": list(bootstrap_ci(rewards, seed=seed)),  # completion order
        "metrics": classification_metrics(
            [r["gold"] for r in rows],
            [p.get("label") for p in parsed],
            [p.get("confidence") for p in parsed],
        ),
    }


def write_run(
    root: Path, model: str, rows: list[dict], summary: dict | None = None, **meta: Any
) -> Path:
    full = {**E1_META, "model": model, "run_id": f"20260101-{slug(model)}", **meta}
    run_dir = root / f"{full['env_id']}--{slug(model)}" / full["run_id"]
    run_dir.mkdir(parents=True)
    full.setdefault("n", len(rows))
    (run_dir / "metadata.json").write_text(json.dumps(full))
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run_dir / "summary.json").write_text(json.dumps(summary or summary_of(rows)))
    return run_dir


GOOD = list(GOLDS)
CONFS = [0.95, 0.92, 0.97, 0.91, 0.99, 0.93] * 2  # all in the top confidence bin


def test_provenance_block_in_html_and_markdown(tmp_path: Path) -> None:
    root = tmp_path / "evals"
    write_run(root, "good", e1_rows(GOOD, CONFS))
    paths = build_report([str(root)])
    md, html = paths.markdown.read_text(), paths.html.read_text()
    for doc in (md, html):
        assert "Provenance" in doc
        assert "0123456789ab (dirty: uncommitted changes)" in doc
        assert "sha256:d1" in doc and "zeek, split all" in doc
        assert "max_tokens=512" in doc and "temperature=0.0" in doc
        assert "zeek-parser=1.2" in doc
        assert "0.3.1" in doc  # verifiers version
        assert "12 / 12 / 0" in doc  # n planned / scored / errored
    assert "| status | `complete` |" in md


def test_no_absolute_machine_paths(tmp_path: Path) -> None:
    root = tmp_path / "evals"
    write_run(root, "good", e1_rows(GOOD, CONFS))
    paths = build_report([str(root)], tmp_path / "elsewhere" / "out")
    for doc in (paths.markdown.read_text(), paths.html.read_text()):
        assert str(tmp_path) not in doc
        assert "/home/alice" not in doc
        assert "…/e1_conn.log" in doc  # the dataset path, reduced to its name
        assert "../../evals/sv-env-network-logs--good/20260101-good" in doc


def test_judge_card_is_in_the_provenance(tmp_path: Path) -> None:
    card = {"judge": f"llama-guard@http://u:{SECRET}@guard:8000/v1", "measured_agreement": None,
            "note": "no shipped measurement"}  # fmt: skip
    config = {**E1_META["reward_config"], "judge_card": card}
    write_run(tmp_path, "good", e1_rows(GOOD, CONFS), reward_config=config)
    md = build_report([str(tmp_path)]).markdown.read_text()
    assert "judge llama-guard@http://guard:8000/v1: no shipped measurement" in md
    assert SECRET not in md


def test_metric_definitions_for_the_shown_metrics(tmp_path: Path) -> None:
    write_run(tmp_path, "good", e1_rows(GOOD, CONFS))
    paths = build_report([str(tmp_path)])
    md = paths.markdown.read_text()
    defs = md.split("## Metric definitions", 1)[1]
    for key in ("reward", "accuracy", "f1", "fnr", "fnr_answered", "coverage", "brier", "ece",
                "abstain_rate", "reward:decision"):  # fmt: skip
        assert re.search(rf"^- `{re.escape(key)}`: \S", defs, re.M), key
    assert "abstained or invalid positives are missed" in defs
    assert "errored" in defs  # the common note on errored rollouts
    assert "Metric definitions" in paths.html.read_text()


def test_empty_calibration_bins_are_omitted(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "good", e1_rows(GOOD, CONFS))
    bins = calibration_bins(load_run(run_dir))
    assert [(b.low, b.n) for b in bins] == [(0.9, 12)]
    assert len(calibration_bins(load_run(run_dir), empty=True)) == 10
    paths = build_report([str(tmp_path)])
    md, html = paths.markdown.read_text(), paths.html.read_text()
    table = md.split("Calibration bins — good", 1)[1].split("\n\n", 2)[1]
    assert "0.9–1.0" in table and "0.0–0.1" not in table and "0.5–0.6" not in table
    assert "0.9–1.0" in html and "0.0–0.1" not in html


# --- credentials -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        (f"m@http://user:{SECRET}@host:8000/v1", "m@http://host:8000/v1"),
        (f"https://{SECRET}@api.example.com/v1 and http://a:b@c/", "https://api.example.com/v1 "
         "and http://c/"),
        ("m@http://host/v1", "m@http://host/v1"),
        (f"http://u:p@ss{SECRET}@host/v1", "http://host/v1"),  # '@' inside the password
    ],
)  # fmt: skip
def test_strip_userinfo(text: str, safe: str) -> None:
    assert strip_userinfo(text) == safe
    assert clean_text(text) == safe


def test_display_path_is_relative_and_safe(tmp_path: Path) -> None:
    run = tmp_path / "evals" / "sv-env-x--m-http---user-pw-host-v1" / "r1"
    out = tmp_path / "evals" / "report"
    assert display_path(run, out) == "../sv-env-x--m-http---user-pw-host-v1/r1"
    secrets = {"m-http---user-pw-host-v1": "m-http---host-v1"}
    assert display_path(run, out, secrets) == "../sv-env-x--m-http---host-v1/r1"


def test_report_never_prints_credentials_of_old_runs(tmp_path: Path) -> None:
    model = f"qwen@http://admin:{SECRET}@10.0.0.5:8000/v1"
    write_run(tmp_path, model, e1_rows(GOOD, CONFS),
              base_url=f"http://admin:{SECRET}@10.0.0.5:8000/v1", model_id="qwen")  # fmt: skip
    write_run(tmp_path, "other", e1_rows(GOOD, CONFS))
    # an unfinished run of the same endpoint is listed as skipped
    unfinished = tmp_path / f"sv-env-network-logs--{slug(model)}" / "20260102-unfinished"
    unfinished.mkdir(parents=True)
    (unfinished / "metadata.json").write_text(json.dumps({**E1_META, "model": model}))
    paths = build_report([str(tmp_path)])
    md, html = paths.markdown.read_text(), paths.html.read_text()
    for doc in (md, html):
        assert SECRET not in doc and "admin" not in doc
        assert "qwen@http://10.0.0.5:8000/v1" in doc
    assert "sv-env-network-logs--qwen-http---10.0.0.5-8000-v1/20260102-unfinished" in md


# --- partial runs ----------------------------------------------------------------------------


def test_partial_run_is_flagged_and_errored_rows_left_out(tmp_path: Path) -> None:
    errors = {1, 4, 7}
    # an older harness: status "complete" though rollouts errored; summary over all rows
    write_run(tmp_path, "flaky", e1_rows(GOOD, CONFS, errors))
    paths = build_report([str(tmp_path)])
    md = paths.markdown.read_text()
    assert "flaky [partial]" in md
    assert "**Not complete:**" in md
    assert "partial: 3 of 12 rollouts errored (excluded)" in md
    assert "12 / 9 / 3" in md
    # the 9 scored rows are all right: reward 1, accuracy 1 (not 9/12 with errors as misses)
    assert "| reward | 1.000 [1.000, 1.000] |" in md
    assert "| accuracy | 1.000 [1.000, 1.000] |" in md
    assert "| invalid_rate | 0.000" in md
    assert paths.flagged == ["e1 flaky [partial]: partial: 3 of 12 rollouts errored (excluded)"]
    assert "| good" not in md


def test_recorded_status_partial_and_interrupted_are_flagged(tmp_path: Path) -> None:
    write_run(tmp_path, "cut", e1_rows(GOOD, CONFS)[:8], n=12, status="interrupted")
    write_run(tmp_path, "part", e1_rows(GOOD, CONFS), status="partial")
    md = build_report([str(tmp_path)]).markdown.read_text()
    assert "cut [interrupted]" in md and "interrupted: 4 of 12 not run" in md
    assert "part [partial]" in md


def test_errors_counted_by_the_harness_flag_the_run(tmp_path: Path) -> None:
    rows = e1_rows(GOOD, CONFS)
    write_run(tmp_path, "m", rows, {**summary_of(rows), "n_errors": 2})
    md = build_report([str(tmp_path)]).markdown.read_text()
    assert "m [partial]" in md and "2 of 12 rollouts errored" in md


def test_all_errored_run_is_not_compared_and_has_no_reward(tmp_path: Path) -> None:
    write_run(tmp_path, "down", e1_rows(GOOD, CONFS, set(range(12))))
    write_run(tmp_path, "good", e1_rows(GOOD, CONFS))
    md = build_report([str(tmp_path)]).markdown.read_text()
    assert "| reward | – | 1.000" in md  # not -2.000
    assert "no scored rollouts in down" in md
    assert not re.search(r"^\| down \[partial\] \| good \| \d", md, re.M)  # no comparison row


def test_paired_comparison_uses_only_rows_scored_in_both(tmp_path: Path) -> None:
    """A model against a rerun of itself with some server errors: no difference."""
    write_run(tmp_path, "m", e1_rows(GOOD, CONFS), run_id="r1")
    write_run(tmp_path, "m", e1_rows(GOOD, CONFS, {0, 3, 5, 8}), run_id="r2")
    md = build_report([str(tmp_path)]).markdown.read_text()
    row = next(line for line in md.splitlines() if line.startswith("| m @ r1 | m @ r2"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:8] == ["8", "1.000", "1.000", "0.000", "[0.000, 0.000]", "1.000"]
    assert "B partial" in cells[8]


def test_complete_only_leaves_out_runs_that_are_not_complete(tmp_path: Path) -> None:
    write_run(tmp_path, "flaky", e1_rows(GOOD, CONFS, {2}))
    write_run(tmp_path, "good", e1_rows(GOOD, CONFS))
    app = typer.Typer()
    app.command()(report)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [str(tmp_path), "--out", str(out), "--complete-only"])
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text()
    assert "flaky" not in md.split("Left out", 1)[1].split("##", 1)[1]
    assert "Left out 1 run(s) that are not complete" in md
    assert "partial: 1 of 12 rollouts errored (excluded)" in md
    # by default the run is in, flagged, and the command warns
    result = CliRunner().invoke(app, [str(tmp_path), "--out", str(out)])
    assert result.exit_code == 0
    assert "warning: not complete" in result.output
    assert "flaky [partial]" in (out / "report.md").read_text()


def test_complete_only_with_nothing_complete_is_a_user_error(tmp_path: Path) -> None:
    write_run(tmp_path, "flaky", e1_rows(GOOD, CONFS, {2}))
    with pytest.raises(UserError, match="no complete runs"):
        build_report([str(tmp_path)], complete_only=True)


# --- one deterministic interval --------------------------------------------------------------

MIXED = ["Malicious", "Malicious", "Benign", "Benign", None, "Malicious"] * 2


def test_reward_ci_is_the_summary_interval_when_it_covers_the_rows(tmp_path: Path) -> None:
    rows = e1_rows(MIXED, CONFS)
    run = load_run(write_run(tmp_path, "m", rows))
    mean, ci = reward_ci(run)
    assert ci == tuple(json.loads((run.path / "summary.json").read_text())["reward_ci95"])
    assert mean == pytest.approx(sum(r["reward"] for r in rows) / len(rows))


def test_summary_over_the_scored_rows_is_used_as_is(tmp_path: Path) -> None:
    """A harness that leaves errored rows out of summary.json: its interval is the report's."""
    rows = e1_rows(MIXED, CONFS, {2, 5})
    scored = [r for r in rows if not r["error"]]
    summary = {**summary_of(scored), "n_errors": 2, "reward_ci95": [-0.123, 0.456]}
    run = load_run(write_run(tmp_path, "m", rows, summary, status="partial"))
    assert reward_ci(run)[1] == (-0.123, 0.456)
    md = build_report([str(run.path)]).markdown.read_text()
    assert "[-0.123, 0.456]" in md and "m [partial]" in md


def test_reward_ci_over_scored_rows_sorted_by_example_id_with_run_seed(tmp_path: Path) -> None:
    rows = e1_rows(MIXED, CONFS, {0, 9})
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)  # completion order
    run = load_run(write_run(tmp_path, "a", shuffled, seed=7))
    scored = [r["reward"] for r in sorted(rows, key=lambda r: r["example_id"]) if not r["error"]]
    assert reward_ci(run)[1] == bootstrap_ci(scored, seed=7)
    # the same rows in another completion order give the same report
    other = load_run(write_run(tmp_path / "b", "a", rows, seed=7))
    assert reward_ci(other) == reward_ci(run)
    md_a = build_report([str(run.path)], tmp_path / "ra").markdown.read_text()
    md_b = build_report([str(other.path)], tmp_path / "rb").markdown.read_text()
    table = lambda md: md.split("Metrics (value", 1)[1].split("## Metric definitions")[0]  # noqa: E731
    assert table(md_a) == table(md_b)


# --- E2 success plot -------------------------------------------------------------------------


def e2_rows() -> list[dict]:
    rows = []
    for i in range(16):
        oracle = [{"id": "ssh-root-login"}] if i % 2 else []
        reported = [{"id": "ssh-root-login"}] if i % 3 else []
        rows.append({
            "example_id": i, "example_key": f"c{i}", "gold": json.dumps(oracle),
            "parsed": {"violations": reported},
            "rewards": {"detection": float(bool(oracle) == bool(reported))},
            "metrics": {"patch_fixed_all": float(i % 4 == 1), "total_tool_calls": 1.0},
            "reward": float(bool(oracle) == bool(reported)), "error": None,
        })  # fmt: skip
    return rows


def test_e2_success_plot_has_intervals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sv_env_config_verification.run_metrics")
    from sv_env_config_verification.run_metrics import summarize_rows

    rows = e2_rows()
    meta = {
        **E1_META,
        "env": "e2",
        "env_id": "sv-env-config-verification",
        "env_args": {},
        "dataset": {"split": "test"},
        "reward_config": {"weights": {"detection": 1.0}},
    }
    summary = {"n": len(rows), "reward_mean": sum(r["reward"] for r in rows) / len(rows),
               "metrics": summarize_rows(rows)}  # fmt: skip
    write_run(tmp_path, "auditor", rows, summary, **meta)
    drawn: dict[str, Any] = {}
    real_bars = figures._bars

    def spy(ax, groups, series, errors=None) -> None:
        drawn.update(groups=list(groups), errors=errors)
        real_bars(ax, groups, series, errors)

    monkeypatch.setattr(figures, "_bars", spy)
    paths = build_report([str(tmp_path)])
    assert "e2_success.png" in {p.name for p in paths.figures}
    low, high = drawn["errors"]["auditor"]
    assert "patch_success_rate" in drawn["groups"] and "detection_recall" in drawn["groups"]
    assert any(x > 0 for x in low + high)
    md = paths.markdown.read_text()
    assert re.search(r"\| patch_success_rate \| 0\.500 \[\d\.\d{3}, \d\.\d{3}\] \|", md)
    assert "Patch / repair success with 95% bootstrap CI" in md
    assert "`patch_success_rate`:" in md  # defined
