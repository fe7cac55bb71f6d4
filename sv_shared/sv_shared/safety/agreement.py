"""Measured agreement of the offline judge and the refusal detector.

    python -m sv_shared.safety.agreement [--xstest PATH] [--behaviors PATH] [--out report.json]

Data roles (kept apart; the report says which is which under ``data_roles``):

* **Tuning** (the judge and its templates were developed against these; optimistic):
  the shipped ``data/requests.jsonl`` (request model training set, also filled into the reply
  styles of :mod:`sv_shared.safety.reply_styles`) and the shipped reply sets
  ``data/replies.jsonl`` / ``data/replies_heldout.jsonl``.
* **Measurement** (never used for tuning): a safe/unsafe prompt file (``--xstest``, XSTest
  layout) and a harmful-behaviour file (``--behaviors``: HarmBench, JBB or AdvBench layout).
  For each, the judge is scored on the prompts as requests and on a family of reply styles
  per prompt (confusion matrix per style and overall; gold unsafe iff the prompt is harmful
  and the style carries on-topic compliance), plus the false-unsafe rate on on-topic helpful
  answers to safe prompts.

Rates carry seeded percentile-bootstrap 95% CIs. Prints tables, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sv_shared.safety.agreement_metrics import binary_metrics, fmt, rate
from sv_shared.safety.corpus import load_replies, load_requests
from sv_shared.safety.labeled_csv import (
    BEHAVIOR_LAYOUTS,
    AgreementDataError,
    LabeledPrompt,
    load_behaviors,
    load_prompts,
    read_csv,
)
from sv_shared.safety.offline import OfflineJudge, offline_judge_version
from sv_shared.safety.refusal import detect_refusal
from sv_shared.safety.reply_styles import STYLES
from sv_shared.safety.style_agreement import style_agreement
from sv_shared.safety.types import JudgeError

__all__ = ["AgreementDataError", "binary_metrics", "main", "measure", "read_csv"]

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

LabeledPromptsOrPath = tuple[Path, list[LabeledPrompt]] | list[LabeledPrompt] | None
"""Prompts to measure on, optionally with the file they came from."""


def request_agreement(judge: OfflineJudge, prompts: Sequence[LabeledPrompt]) -> dict:
    """The judge on the prompts themselves (last message = the user's request)."""
    gold = np.array([p.harmful for p in prompts], dtype=bool)
    pred = np.array(
        [judge.verdict([{"role": "user", "content": p.text}]).unsafe for p in prompts], dtype=bool
    )
    out = binary_metrics(gold, pred)
    if (~gold).any():
        out["false_flag_rate_safe"] = rate(pred[~gold])
    groups = sorted({p.group for p in prompts} - {""})
    out["per_group"] = {
        group: rate(pred[np.array([p.group == group for p in prompts])]) for group in groups
    }
    return out


def replies_agreement(judge: OfflineJudge, name: str = "replies.jsonl", note: str = "") -> dict:
    """Refusal detector and reply-level judge on one shipped labeled reply set."""
    rows = load_replies(name=name)
    results = [detect_refusal(row["reply"]) for row in rows]
    refused_ok = np.array(
        [r.refused == row["refused"] for r, row in zip(results, rows, strict=True)]
    )
    alternative_ok = np.array(
        [
            r.safe_alternative == row["safe_alternative"]
            for r, row in zip(results, rows, strict=True)
            if row["refused"]
        ]
    )
    gold = np.array(
        [row["harmful_request"] and row["kind"] in ("compliant", "partial") for row in rows]
    )
    pred = np.array(
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
    return {
        "refusal_accuracy": rate(refused_ok),
        "safe_alternative_accuracy": rate(alternative_ok),
        "reply_judge": binary_metrics(gold, pred),
        "note": note,
    }


def measure(
    xstest: LabeledPromptsOrPath = None,
    behaviors: LabeledPromptsOrPath = None,
    judge: OfflineJudge | None = None,
    tuning: bool = True,
) -> dict:
    """Every measurement as one JSON-ready dict: the tuning sets (unless ``tuning`` is False)
    and the measurement sets given."""
    judge = judge or OfflineJudge()
    report: dict = {
        "judge": offline_judge_version(),
        "styles": list(STYLES),
        "data_roles": {
            "tuning": (
                [
                    "shipped data/requests.jsonl filled into the reply-style templates",
                    *(f"shipped data/{name}" for name, _ in REPLY_SETS.values()),
                ]
                if tuning
                else []
            ),
            "measurement": [],
        },
        "tuning": {},
        "measurement": {},
    }
    if tuning:
        for key, (name, note) in REPLY_SETS.items():
            report["tuning"][key] = replies_agreement(judge, name, note)
        shipped = [
            LabeledPrompt(r["text"], r["label"] == "harmful", r["kind"]) for r in load_requests()
        ]
        report["tuning"]["requests_styles"] = style_agreement(judge, shipped)
    for key, prompts in (("xstest", xstest), ("behaviors", behaviors)):
        if prompts is None:
            continue
        path, rows = prompts if isinstance(prompts, tuple) else (None, prompts)
        report["data_roles"]["measurement"].append(str(path or key))
        report["measurement"][key] = {
            "file": str(path) if path else None,
            "requests": request_agreement(judge, rows),
            "styles": style_agreement(judge, rows),
        }
    return report


def _style_rows(section: str, styles: dict) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for style, entry in styles["per_style"].items():
        c = entry["confusion"]
        rows.append(
            (
                section,
                style,
                str(c["tp"]),
                str(c["fp"]),
                str(c["fn"]),
                str(c["tn"]),
                fmt(entry["accuracy"]),
                fmt(entry["flagged"]),
            )
        )
    c, overall = styles["overall"]["confusion"], styles["overall"]
    rows.append(
        (
            section,
            "OVERALL",
            str(c["tp"]),
            str(c["fp"]),
            str(c["fn"]),
            str(c["tn"]),
            fmt(overall["accuracy"]),
            f"P {fmt(overall['precision'])} R {fmt(overall['recall'])}",
        )
    )
    return rows


def print_report(report: dict) -> None:
    """Rich tables: headline metrics, then the per-style confusion matrices."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)
    head = Table(title=f"Offline safety judge agreement ({report['judge']})")
    for column in ("role", "section", "metric", "value [95% CI]"):
        head.add_column(column)
    sections = []
    if "requests_styles" in report["tuning"]:
        sections.append(("tuning", "requests.jsonl", report["tuning"]["requests_styles"]))
    sections += [("measurement", k, v["styles"]) for k, v in report["measurement"].items()]
    for key, entry in report["measurement"].items():
        requests = entry["requests"]
        head.add_row("measurement", key, "request-level accuracy", fmt(requests["accuracy"]))
        head.add_row("measurement", key, "request-level recall", fmt(requests["recall"]))
        if "false_flag_rate_safe" in requests:
            head.add_row(
                "measurement",
                key,
                "request-level false-flag (safe)",
                fmt(requests["false_flag_rate_safe"]),
            )
    for role, name, styles in sections:
        head.add_row(role, name, "reply styles accuracy", fmt(styles["overall"]["accuracy"]))
        if "false_unsafe_helpful_safe" in styles:
            entry = styles["false_unsafe_helpful_safe"]
            verdict = "met" if entry["met"] else "MISSED"
            head.add_row(
                role,
                name,
                f"false-unsafe, helpful answers to safe prompts (goal <= "
                f"{entry['goal']:.2f}: {verdict})",
                fmt(entry),
            )
    for key, replies in report["tuning"].items():
        if key == "requests_styles":
            continue
        head.add_row("tuning", key, "refusal accuracy", fmt(replies["refusal_accuracy"]))
        head.add_row("tuning", key, "reply judge accuracy", fmt(replies["reply_judge"]["accuracy"]))
        head.add_row("tuning", key, "reply judge recall", fmt(replies["reply_judge"]["recall"]))
    console.print(head)
    matrix = Table(title="Reply styles: confusion (positive = unsafe) and accuracy per style")
    for column in ("set", "style", "TP", "FP", "FN", "TN", "accuracy", "flagged / P,R"):
        matrix.add_column(column)
    for role, name, styles in sections:
        for row in _style_rows(f"{name} ({role})", styles):
            matrix.add_row(*row)
    console.print(matrix)


def build_parser() -> argparse.ArgumentParser:
    """The CLI's argument parser."""
    parser = argparse.ArgumentParser(description="Offline judge / refusal detector agreement")
    parser.add_argument("--xstest", type=Path, help="safe/unsafe prompts CSV (XSTest layout)")
    parser.add_argument("--prompt-column", default="prompt", help="XSTest prompt column")
    parser.add_argument("--label-column", default="label", help="XSTest label column")
    parser.add_argument("--type-column", default="type", help="XSTest type column (optional)")
    parser.add_argument("--behaviors", type=Path, help="harmful behaviours CSV (all harmful)")
    parser.add_argument(
        "--behaviors-layout",
        default="auto",
        choices=("auto", *BEHAVIOR_LAYOUTS),
        help="column layout of --behaviors (auto: from the header)",
    )
    parser.add_argument("--behavior-column", help="override the behaviour text column")
    parser.add_argument("--category-column", help="override the behaviour category column")
    parser.add_argument(
        "--skip-tuning", action="store_true", help="skip the project-authored tuning sets"
    )
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        xstest = behaviors = None
        if args.xstest is not None:
            xstest = (
                args.xstest,
                load_prompts(args.xstest, args.prompt_column, args.label_column, args.type_column),
            )
        if args.behaviors is not None:
            behaviors = (
                args.behaviors,
                load_behaviors(
                    args.behaviors,
                    args.behaviors_layout,
                    args.behavior_column,
                    args.category_column,
                ),
            )
        report = measure(xstest, behaviors, tuning=not args.skip_tuning)
    except JudgeError as exc:
        parser.exit(2, f"error: {exc}\n")
    print_report(report)
    line = json.dumps(report, sort_keys=True)
    print(line)
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
