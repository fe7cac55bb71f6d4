"""How well `lookup_url` separates phishing from benign URLs: ROC AUC with a bootstrap CI.

    python -m sv_env_phishing_detection.url_agreement --phish P.csv --benign B.csv

A file is either a CSV with a `url` column or one URL per line. URLs are only read as text:
nothing is fetched or resolved.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from .url_tool import lookup_url

VERDICT_SCORES = {"known-bad": 1.0, "suspicious": 0.75, "neutral": 0.25, "known-good": 0.0}


@dataclass(frozen=True)
class Agreement:
    """ROC AUC of the URL score against the file labels, with its bootstrap interval."""

    auc: float
    ci_low: float
    ci_high: float
    n_phish: int
    n_benign: int


def read_urls(path: str | Path) -> list[str]:
    """URLs from a CSV with a `url` column, else one URL per non-blank line."""
    lines = Path(path).read_text(encoding="utf-8-sig", errors="replace").splitlines()
    if not lines:
        return []
    header = next(csv.reader([lines[0]]))
    if "url" in (field.strip().lower() for field in header):
        rows = csv.DictReader(lines, skipinitialspace=True)
        key = next(field for field in rows.fieldnames or [] if field.strip().lower() == "url")
        return [row[key].strip() for row in rows if (row.get(key) or "").strip()]
    return [line.strip() for line in lines if line.strip()]


def url_score(answer: str) -> float:
    """A risk score in [0, 1] from one `lookup_url` JSON answer (errors score 0.5)."""
    report = json.loads(answer)
    if "risk_score" in report:
        return float(report["risk_score"])
    if "verdict" not in report:
        return 0.5
    # answers without a risk score: verdict, nudged by the number of flags
    base = VERDICT_SCORES.get(report["verdict"], 0.5)
    return min(1.0, base + 0.05 * len(report.get("flags", [])))


def bootstrap_auc(
    labels: Sequence[int], scores: Sequence[float], *, n_resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of the AUC, resampling each class separately."""
    gold, score = np.asarray(labels), np.asarray(scores, dtype=float)
    positive, negative = score[gold == 1], score[gold == 0]
    rng = np.random.default_rng(seed)
    aucs = np.empty(n_resamples)
    both = np.r_[np.ones(positive.size), np.zeros(negative.size)]
    for i in range(n_resamples):
        pos = rng.choice(positive, positive.size)
        neg = rng.choice(negative, negative.size)
        aucs[i] = roc_auc_score(both, np.r_[pos, neg])
    low, high = np.quantile(aucs, [0.025, 0.975])
    return float(low), float(high)


def measure(
    phish: Sequence[str],
    benign: Sequence[str],
    tool: Callable[[str], str] = lookup_url,
    *,
    n_resamples: int = 1000,
) -> Agreement:
    """AUC of `tool`'s score with phishing URLs as the positive class."""
    if not phish or not benign:
        raise ValueError("need at least one phishing and one benign URL")
    scores = [url_score(tool(url)) for url in (*phish, *benign)]
    labels = [1] * len(phish) + [0] * len(benign)
    low, high = bootstrap_auc(labels, scores, n_resamples=n_resamples)
    auc = float(roc_auc_score(labels, scores))
    return Agreement(auc, low, high, len(phish), len(benign))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phish", required=True, help="phishing URLs (CSV with url column)")
    parser.add_argument("--benign", required=True, help="benign URLs (CSV or one per line)")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    result = measure(read_urls(args.phish), read_urls(args.benign), n_resamples=args.resamples)
    print(
        f"ROC AUC {result.auc:.3f} (95% CI {result.ci_low:.3f}-{result.ci_high:.3f}); "
        f"{result.n_phish} phishing, {result.n_benign} benign URLs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
