"""E5 success agreement on real replies with human labels (the measurement that counts).

    python -m sv_env_redteam_attack.real_agreement --completions DIR [--json OUT]

DIR holds the XSTest v2 completions (`xstest_v2_completions_*.csv`: five models' replies,
two human annotations each). Every reply to an unsafe (``contrast_*``) prompt is scored as a
one-turn attack through E5's own path (`score_attack`, the default offline judge, default
weights): the prompt is both the behavior and the attacker's message, the real reply is the
target's. Gold success: the annotators' final label is full compliance. Refusals and partial
refusals are the safe on-topic replies: their success rate is the false-success rate.

Caveat printed with the numbers: the reply-outcome model and the novel-relevance threshold
were fitted to this set (the one shared sample fitting is allowed on), so these are in-sample
numbers; the reply model's grouped cross-validation (`sv_shared.safety.train_reply_model`
report, E6 turn outcome) is the out-of-sample figure for its part.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sv_env_redteam_attack.agreement import confusion
from sv_env_redteam_attack.judging import Exchange, TurnJudge
from sv_env_redteam_attack.memory import AttackMemory
from sv_env_redteam_attack.reward import AttackWeights
from sv_env_redteam_attack.scoring import score_attack
from sv_shared.safety import build_judge
from sv_shared.safety.train_reply_model import Row, data_digest, load_completions

CAVEAT = (
    "in-sample: the reply-outcome model and the novel-relevance threshold were fitted to "
    "these replies"
)


def unsafe_prompt_replies(folder: Path) -> list[Row]:
    return [row for row in load_completions(folder) if not row.safe]


def measure(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One record per reply: gold label, predicted success, prompt type, model."""
    turn_judge = TurnJudge(build_judge("offline"), AttackWeights())
    records = []
    for row in rows:
        info = {
            "id": row.prompt_id,
            "behavior": {
                "id": row.prompt_id,
                "text": row.request,
                "category": "S1",
                "source": "xstest",
            },
        }
        parts = score_attack(
            [Exchange(row.request, row.reply)], info, turn_judge, AttackMemory("ngram")
        )
        records.append(
            {
                "label": row.label,
                "gold": row.label == "full_compliance",
                "success": parts["success"] == 1.0,
                "prompt_type": row.prompt_type,
                "model": row.model,
            }
        )
    return records


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def cells(key: str) -> dict[str, dict[str, Any]]:
        groups: dict[str, Counter[tuple[bool, bool]]] = defaultdict(Counter)
        for r in records:
            groups[r[key]][(r["gold"], r["success"])] += 1
        return {name: confusion(counts) for name, counts in sorted(groups.items())}

    total: Counter[tuple[bool, bool]] = Counter((r["gold"], r["success"]) for r in records)
    by_label = Counter((r["label"], r["success"]) for r in records)
    return {
        "overall": confusion(total),
        "success_rate_by_human_label": {
            label: {
                "n": by_label[(label, True)] + by_label[(label, False)],
                "success": by_label[(label, True)],
            }
            for label in ("full_compliance", "partial_refusal", "full_refusal")
        },
        "by_prompt_type": cells("prompt_type"),
        "by_model": cells("model"),
        "caveat": CAVEAT,
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_report(report: dict[str, Any]) -> None:
    o = report["overall"]
    low, high = o["accuracy_ci95"]
    print(f"E5 success agreement on {o['n']} real replies to unsafe XSTest prompts ({CAVEAT})")
    print("                 predicted success   predicted no success")
    print(f"gold success     {o['tp']:>17}   {o['fn']:>20}")
    print(f"gold no success  {o['fp']:>17}   {o['tn']:>20}")
    print(
        f"accuracy {_fmt(o['accuracy'])} [{low:.3f}, {high:.3f}]; recall {_fmt(o['recall'])}; "
        f"false-success rate {_fmt(o['false_success_rate'])}; precision {_fmt(o['precision'])}"
    )
    for label, cell in report["success_rate_by_human_label"].items():
        print(f"  human {label:<16} {cell['success']:>4} of {cell['n']:>4} scored a success")
    for title, key in (("prompt type", "by_prompt_type"), ("model", "by_model")):
        print(f"\n{title:<30} {'n':>5} {'tp':>5} {'fn':>5} {'fp':>5} {'tn':>5} {'accuracy':>9}")
        for name, m in report[key].items():
            print(
                f"{name:<30} {m['n']:>5} {m['tp']:>5} {m['fn']:>5} {m['fp']:>5} {m['tn']:>5} "
                f"{_fmt(m['accuracy']):>9}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--completions", required=True, type=Path, help="xstest_v2_completions")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    folder = args.completions.resolve()
    if not folder.is_dir() or not any(folder.glob("xstest_v2_completions_*.csv")):
        print(
            f"error: --completions: no xstest_v2_completions_*.csv under {folder}", file=sys.stderr
        )
        return 2
    report = {"data": data_digest(folder), **summarize(measure(unsafe_prompt_replies(folder)))}
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
