"""Measured agreement of the offline judge and the refusal detector with labeled data.

    python -m sv_shared.safety.agreement --realdata /path/to/E5E6_redteam [--out report.json]

* XSTest (``xstest_prompts.csv``: prompt, label safe/unsafe, type): the offline judge as a
  request-harm classifier (the prompt is the last user message); accuracy, precision, recall,
  F1 for "unsafe", the false-flag rate on safe prompts (what would become over-refusals), and
  per-type rates.
* HarmBench (``harmbench_behaviors_text_all.csv``: Behavior, ...; all harmful): recall, per
  SemanticCategory and FunctionalCategory.
* The shipped, project-authored reply sets: refusal-detector accuracy, safe-alternative accuracy
  and the offline judge's reply-level agreement. ``replies.jsonl`` (152) was written together
  with the detector (development numbers, optimistic); ``replies_heldout.jsonl`` (40) was
  written afterwards and its first-run numbers are recorded in the report's note.

Every rate has a seeded percentile-bootstrap 95% CI. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sv_shared.metrics import bootstrap_ci
from sv_shared.safety.corpus import load_replies
from sv_shared.safety.offline import OfflineJudge
from sv_shared.safety.refusal import detect_refusal
from sv_shared.safety.types import JudgeError

XSTEST_FILE = "xstest_prompts.csv"
HARMBENCH_FILE = "harmbench_behaviors_text_all.csv"
N_RESAMPLES = 1000
SEED = 0


class AgreementDataError(JudgeError):
    """A labeled file is missing, unreadable or lacks a required column/value."""


def read_csv(path: Path, required: Sequence[str]) -> list[dict[str, str]]:
    """Rows of a CSV with the ``required`` columns; clear errors name the file and line."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise AgreementDataError(
                    f"{path}: missing column(s) {', '.join(missing)} (has {reader.fieldnames})"
                )
            rows = []
            for row in reader:
                empty = [c for c in required if not (row.get(c) or "").strip()]
                if empty:
                    raise AgreementDataError(f"{path}:{reader.line_num}: empty {', '.join(empty)}")
                rows.append(row)
            return rows
    except FileNotFoundError:
        raise AgreementDataError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AgreementDataError(f"{path}: cannot read ({exc})") from None


def _ci(samples: np.ndarray) -> tuple[float | None, float | None]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    low, high = np.quantile(finite, [0.025, 0.975])
    return round(float(low), 4), round(float(high), 4)


def _with_ci(values: np.ndarray) -> dict:
    """Mean of a 0/1 array with its bootstrap CI."""
    if values.size == 0:
        return {"value": None, "ci95": (None, None), "n": 0}
    low, high = bootstrap_ci(values.astype(float), n_resamples=N_RESAMPLES, seed=SEED)
    return {
        "value": round(float(values.mean()), 4),
        "ci95": (round(low, 4), round(high, 4)),
        "n": int(values.size),
    }


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), np.nan)


def binary_metrics(gold: np.ndarray, pred: np.ndarray) -> dict:
    """Accuracy, precision, recall, F1 (positive = unsafe/harmful) with bootstrap CIs
    (the same seeded resamples of the examples for every metric)."""
    gold, pred = gold.astype(bool), pred.astype(bool)

    def stats(g: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
        tp, fp, fn = (g & p).sum(-1), (~g & p).sum(-1), (g & ~p).sum(-1)
        return {
            "accuracy": (g == p).mean(-1),
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        }

    point = stats(gold, pred)
    idx = np.random.default_rng(SEED).integers(0, gold.size, (N_RESAMPLES, gold.size))
    resampled = stats(gold[idx], pred[idx])
    out: dict = {}
    for name, value in point.items():
        value = float(value)
        out[name] = {
            "value": None if np.isnan(value) else round(value, 4),
            "ci95": _ci(resampled[name]),
        }
    out["n"] = int(gold.size)
    return out


def _judge_requests(judge: OfflineJudge, prompts: Sequence[str]) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    flags = [judge.verdict([{"role": "user", "content": p}]).unsafe for p in prompts]
    elapsed_ms = (time.perf_counter() - start) * 1000 / max(len(prompts), 1)
    return np.array(flags, dtype=bool), elapsed_ms


def xstest_agreement(path: Path, judge: OfflineJudge) -> dict:
    """Offline judge vs XSTest labels."""
    rows = read_csv(path, ("prompt", "label", "type"))
    for number, row in enumerate(rows, start=2):
        if row["label"].strip() not in ("safe", "unsafe"):
            raise AgreementDataError(
                f"{path}:{number}: label must be safe/unsafe, got {row['label']!r}"
            )
    gold = np.array([row["label"].strip() == "unsafe" for row in rows], dtype=bool)
    pred, ms_per_call = _judge_requests(judge, [row["prompt"] for row in rows])
    per_type = {}
    for kind in sorted({row["type"] for row in rows}):
        mask = np.array([row["type"] == kind for row in rows])
        label = "unsafe" if gold[mask].all() else "safe" if not gold[mask].any() else "mixed"
        per_type[kind] = {
            "label": label,
            "flagged": _with_ci(pred[mask]),
            "accuracy": _with_ci(pred[mask] == gold[mask]),
        }
    return {
        "file": path.name,
        **binary_metrics(gold, pred),
        "false_flag_rate_safe": _with_ci(pred[~gold]),
        "ms_per_call": round(ms_per_call, 3),
        "per_type": per_type,
    }


def harmbench_agreement(path: Path, judge: OfflineJudge) -> dict:
    """Offline judge recall on HarmBench behaviors (all harmful)."""
    rows = read_csv(path, ("Behavior",))
    pred, ms_per_call = _judge_requests(judge, [row["Behavior"] for row in rows])
    breakdown = {}
    for column in ("SemanticCategory", "FunctionalCategory"):
        groups = sorted({row.get(column) or "" for row in rows} - {""})
        breakdown[column] = {
            group: _with_ci(pred[np.array([row.get(column) == group for row in rows])])
            for group in groups
        }
    return {
        "file": path.name,
        "recall": _with_ci(pred),
        "ms_per_call": round(ms_per_call, 3),
        **breakdown,
    }


REPLY_SETS = {
    "replies": (
        "replies.jsonl",
        "project-authored development set (built together with the detector)",
    ),
    "replies_heldout": (
        "replies_heldout.jsonl",
        "written after the detector; first run: refusal 0.900, safe-alternative 0.750, "
        "reply judge 0.900 (n=40), then used for fixes",
    ),
}


def replies_agreement(judge: OfflineJudge, name: str = "replies.jsonl", note: str = "") -> dict:
    """Refusal detector and reply-level judge on one shipped labeled reply set."""
    rows = load_replies(name=name)
    results = [detect_refusal(row["reply"]) for row in rows]
    refused_ok = np.array(
        [r.refused == row["refused"] for r, row in zip(results, rows, strict=True)]
    )
    refusals = [(r, row) for r, row in zip(results, rows, strict=True) if row["refused"]]
    alternative_ok = np.array(
        [r.safe_alternative == row["safe_alternative"] for r, row in refusals]
    )
    gold_unsafe = np.array(
        [row["harmful_request"] and row["kind"] in ("compliant", "partial") for row in rows]
    )
    pred_unsafe = np.array(
        [
            judge.verdict(
                [
                    {"role": "user", "content": row["request"]},
                    {"role": "assistant", "content": row["reply"]},
                ]
            ).unsafe
            for row in rows
        ]
    )
    per_kind = {
        kind: _with_ci(refused_ok[np.array([row["kind"] == kind for row in rows])])
        for kind in sorted({row["kind"] for row in rows})
    }
    return {
        "refusal_accuracy": _with_ci(refused_ok),
        "refusal_accuracy_per_kind": per_kind,
        "safe_alternative_accuracy": _with_ci(alternative_ok),
        "reply_judge": binary_metrics(gold_unsafe, pred_unsafe),
        "note": note,
    }


def measure(realdata: Path | None) -> dict:
    """Every available measurement as one JSON-ready dict."""
    judge = OfflineJudge()
    report: dict = {"judge": judge.model_id}
    for key, (name, note) in REPLY_SETS.items():
        report[key] = replies_agreement(judge, name, note)
    if realdata is not None:
        if not realdata.is_dir():
            raise AgreementDataError(f"{realdata}: not a directory")
        report["xstest"] = xstest_agreement(realdata / XSTEST_FILE, judge)
        report["harmbench"] = harmbench_agreement(realdata / HARMBENCH_FILE, judge)
    return report


def _fmt(entry: dict) -> str:
    value, ci = entry.get("value"), entry.get("ci95", (None, None))
    if value is None:
        return "n/a"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci[0] is not None else f"{value:.3f}"


def table_rows(report: dict) -> list[tuple[str, str, str]]:
    """(section, metric, value [CI]) rows for display."""
    rows = []
    if "xstest" in report:
        xs = report["xstest"]
        for name in ("accuracy", "precision", "recall", "f1"):
            rows.append(("XSTest", name, _fmt(xs[name])))
        rows.append(("XSTest", "false-flag rate on safe prompts", _fmt(xs["false_flag_rate_safe"])))
        for kind, entry in xs["per_type"].items():
            what = "recall" if entry["label"] == "unsafe" else "false-flag rate"
            rows.append(
                (
                    "XSTest type",
                    f"{kind} ({what}, n={entry['flagged']['n']})",
                    _fmt(entry["flagged"]),
                )
            )
        hb = report["harmbench"]
        rows.append(("HarmBench", f"recall (n={hb['recall']['n']})", _fmt(hb["recall"])))
        for column in ("SemanticCategory", "FunctionalCategory"):
            for group, entry in hb[column].items():
                rows.append(("HarmBench", f"{group} recall (n={entry['n']})", _fmt(entry)))
    for key, section in (("replies", "Replies (dev)"), ("replies_heldout", "Replies (late)")):
        replies = report[key]
        n = replies["refusal_accuracy"]["n"]
        rows.append((section, f"refusal accuracy (n={n})", _fmt(replies["refusal_accuracy"])))
        rows.append(
            (section, "safe-alternative accuracy", _fmt(replies["safe_alternative_accuracy"]))
        )
        for name in ("accuracy", "precision", "recall"):
            rows.append((section, f"reply judge {name}", _fmt(replies["reply_judge"][name])))
    return rows


def print_table(report: dict) -> None:
    """A rich table of :func:`table_rows`."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Offline safety judge agreement ({report['judge']})")
    for column in ("section", "metric", "value [95% CI]"):
        table.add_column(column)
    for row in table_rows(report):
        table.add_row(*row)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Offline judge / refusal detector agreement")
    parser.add_argument(
        "--realdata", type=Path, default=None, help="folder with the XSTest and HarmBench CSVs"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    args = parser.parse_args(argv)
    try:
        report = measure(args.realdata)
    except JudgeError as exc:
        parser.exit(2, f"error: {exc}\n")
    print_table(report)
    line = json.dumps(report, sort_keys=True)
    print(line)
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
