"""Recall and false-alarm rate, with Wilson 95% intervals, of every run under some `sv eval`
output folders: the table of baselines on real samples in docs/datasets.md.

    python scripts/baseline_recall_table.py OUTPUT_DIR [OUTPUT_DIR ...]

An abstention or invalid answer on an attack / phish counts as a miss (not a detection), and
on a benign / legitimate item as no alarm. Prints one Markdown row per run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scipy.stats import binomtest

POSITIVE = {"sv-env-network-logs": "Malicious", "sv-env-phishing-detection": "Phishing"}


def _rate(hits: int, n: int) -> str:
    if n == 0:
        return "–"
    ci = binomtest(hits, n).proportion_ci(method="wilson")
    return f"{hits / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def row(run: Path) -> str | None:
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    positive = POSITIVE.get(summary.get("env_id", ""))
    if positive is None or "gold_prevalence" not in summary:
        return None
    rows = [json.loads(line) for line in (run / "results.jsonl").open(encoding="utf-8")]
    said = [((r.get("parsed") or {}).get("label"), r["gold"]) for r in rows]
    pos = [label == positive for label, gold in said if gold == positive]
    neg = [label == positive for label, gold in said if gold != positive]
    prevalence = summary["gold_prevalence"].get(positive, 0.0)
    return (
        f"| {run.parent.parent.name} | {summary['model']} | {summary['n']} | {prevalence:.2f} | "
        f"{summary['reward_mean']:.3f} | {summary['reward_mean_class_balanced']:.3f} | "
        f"{_rate(sum(pos), len(pos))} | {_rate(sum(neg), len(neg))} |"
    )


def main(roots: list[str]) -> int:
    if not roots:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    print("| set | model | n | prevalence | reward | balanced | recall [95% CI] | "
          "false-alarm rate [95% CI] |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for root in roots:
        for summary in sorted(Path(root).glob("*/*/summary.json")):
            line = row(summary.parent)
            if line:
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
