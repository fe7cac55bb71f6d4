"""How well formatting alone tells two email corpora apart, before and after normalisation.

Each email becomes a vector of word-free formatting features (:data:`FEATURE_NAMES`): case,
punctuation spacing, line layout, token length, digit / non-ASCII / punctuation shares,
header-field presence, HTML remnants, length. A logistic regression is cross-validated
(stratified k-fold) on

* **before**: the raw rendering — all parsed fields, nothing normalised
  (``render_email(view, normalizer=str)``);
* **after**: what cross-corpus evaluation shows —
  ``normalize_text(render_email(comparable_view(view)))``.

An out-of-fold ROC AUC near 0.5 means the sources can no longer be told apart by format;
what is left is content (e.g. how many digits business mail has). Per-feature AUCs show which
features still separate. Needs scikit-learn; ``rich`` prints the table.

Usage::

    python -m sv_env_phishing_detection.format_probe --nazario PATH --enron PATH
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from sv_env_phishing_detection.loaders import load_enron_csv, load_nazario_csv
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.records import EmailRecord
from sv_env_phishing_detection.render import comparable_view, render_email

_HEADER_FIELDS = ("from", "reply-to", "return-path", "to", "date", "authentication-results")
_CLOSING_PUNCT = re.compile(r"[.,;:!?)\]]")
_SPACED_PUNCT = re.compile(r"\s[.,;:!?)\]]")
_SPACED_SYMBOL = re.compile(r"\w\s[/@'#&-]\s\w")
_PUNCT = re.compile(r"[^\w\s]")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^<>@]{0,200}>")  # not <user@host>
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z]+);", re.IGNORECASE)
_SPACE_RUN = re.compile(r"[ \t]{2,}")

FEATURE_NAMES: tuple[str, ...] = (
    "upper_share",
    "space_before_punct",
    "spaced_symbols",
    "newline_density",
    "mean_line_length",
    "mean_token_length",
    "digit_share",
    "non_ascii_share",
    "punct_share",
    "space_runs",
    "html_remnants",
    "log_length",
    *(f"has_{name}" for name in _HEADER_FIELDS),
)
"""Features that carry no words (ratios, counts per character, header presence)."""


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def format_features(text: str) -> dict[str, float]:
    """The :data:`FEATURE_NAMES` of one rendered email."""
    chars = max(len(text), 1)
    letters = sum(ch.isalpha() for ch in text)
    lines = [line for line in text.split("\n") if line.strip()]
    tokens = text.split()
    header_names = {line.split(":", 1)[0].strip().lower() for line in text.split("\n")[:12]}
    features = {
        "upper_share": _ratio(sum(ch.isupper() for ch in text), letters),
        "space_before_punct": _ratio(
            len(_SPACED_PUNCT.findall(text)), len(_CLOSING_PUNCT.findall(text))
        ),
        "spaced_symbols": 1000 * len(_SPACED_SYMBOL.findall(text)) / chars,
        "newline_density": 1000 * text.count("\n") / chars,
        "mean_line_length": math.log1p(_ratio(sum(map(len, lines)), len(lines))),
        "mean_token_length": _ratio(sum(map(len, tokens)), len(tokens)),
        "digit_share": sum(ch.isdigit() for ch in text) / chars,
        "non_ascii_share": sum(not ch.isascii() for ch in text) / chars,
        "punct_share": len(_PUNCT.findall(text)) / chars,
        "space_runs": 1000 * len(_SPACE_RUN.findall(text)) / chars,
        "html_remnants": 1000 * (len(_HTML_TAG.findall(text)) + len(_ENTITY.findall(text))) / chars,
        "log_length": math.log1p(len(text)),
    }
    features |= {f"has_{name}": float(name in header_names) for name in _HEADER_FIELDS}
    return features


def raw_rendering(record: EmailRecord) -> str:
    """Every parsed field, nothing normalised (the "before" text)."""
    return render_email(parse_message(record.raw), normalizer=str)


def normalized_rendering(record: EmailRecord) -> str:
    """Only the fields all sources share, normalised (the "after" text)."""
    return normalize_text(render_email(comparable_view(parse_message(record.raw))))


@dataclass
class ProbeResult:
    """Out-of-fold scores of the formatting-only classifier (95% bootstrap CIs)."""

    n: int
    positives: int
    accuracy: float
    accuracy_ci: tuple[float, float]
    auc: float
    auc_ci: tuple[float, float]
    majority_accuracy: float
    feature_auc: dict[str, float] = field(default_factory=dict)


def _bootstrap(
    metric: Callable[[np.ndarray, np.ndarray], float],
    y: np.ndarray,
    scores: np.ndarray,
    n_boot: int,
    seed: int,
) -> tuple[float, float]:
    """Percentile CI of ``metric`` over resampled examples (resamples with one class skipped)."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(y), len(y))
        if 0 < y[idx].sum() < len(idx):
            values.append(metric(y[idx], scores[idx]))
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)


def probe(
    texts: Sequence[str],
    labels: Sequence[int],
    *,
    folds: int = 5,
    seed: int = 0,
    n_boot: int = 1000,
    features: Sequence[str] = FEATURE_NAMES,
) -> ProbeResult:
    """Cross-validated logistic regression on :func:`format_features` of ``texts``.

    ``labels`` are 0/1 (which source). Scores are out-of-fold probabilities from a stratified
    ``folds``-fold split; ``feature_auc`` is each feature's own AUC folded to >= 0.5.
    ``features`` restricts the classifier to a subset of :data:`FEATURE_NAMES`.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    unknown = sorted(set(features) - set(FEATURE_NAMES))
    if unknown:
        raise ValueError(f"unknown feature(s) {unknown}; choose from {list(FEATURE_NAMES)}")
    y = np.asarray(labels, dtype=int)
    if min(int(y.sum()), len(y) - int(y.sum())) < folds:
        raise ValueError(f"each source needs at least {folds} emails for {folds}-fold CV")
    x = np.array([[f[name] for name in features] for f in map(format_features, texts)])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    scores = cross_val_predict(model, x, y, cv=splitter, method="predict_proba")[:, 1]

    def accuracy(gold: np.ndarray, score: np.ndarray) -> float:
        return float(np.mean((score >= 0.5) == gold))

    def auc(gold: np.ndarray, score: np.ndarray) -> float:
        return float(roc_auc_score(gold, score))

    feature_auc = {}
    for i, name in enumerate(features):
        value = auc(y, x[:, i]) if np.ptp(x[:, i]) > 0 else 0.5
        feature_auc[name] = round(max(value, 1 - value), 4)
    return ProbeResult(
        n=len(y),
        positives=int(y.sum()),
        accuracy=accuracy(y, scores),
        accuracy_ci=_bootstrap(accuracy, y, scores, n_boot, seed),
        auc=auc(y, scores),
        auc_ci=_bootstrap(auc, y, scores, n_boot, seed),
        majority_accuracy=max(y.mean(), 1 - y.mean()),
        feature_auc=feature_auc,
    )


def run_format_probe(
    positives: Sequence[EmailRecord],
    negatives: Sequence[EmailRecord],
    *,
    folds: int = 5,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict[str, ProbeResult]:
    """``{"before": ..., "after": ...}``: can formatting tell ``positives`` from ``negatives``?"""
    records = [*positives, *negatives]
    labels = [1] * len(positives) + [0] * len(negatives)
    return {
        stage: probe([render(r) for r in records], labels, folds=folds, seed=seed, n_boot=n_boot)
        for stage, render in (("before", raw_rendering), ("after", normalized_rendering))
    }


def _print_tables(results: dict[str, ProbeResult]) -> None:
    from rich.console import Console
    from rich.table import Table

    summary = Table(title="Formatting-only classifier, out-of-fold (positives = first source)")
    for column in ("stage", "n", "accuracy [95% CI]", "majority", "ROC AUC [95% CI]"):
        summary.add_column(column)
    for stage, r in results.items():
        summary.add_row(
            stage,
            str(r.n),
            f"{r.accuracy:.3f} [{r.accuracy_ci[0]:.3f}, {r.accuracy_ci[1]:.3f}]",
            f"{r.majority_accuracy:.3f}",
            f"{r.auc:.3f} [{r.auc_ci[0]:.3f}, {r.auc_ci[1]:.3f}]",
        )
    features = Table(title="Single-feature ROC AUC (folded to >= 0.5)")
    features.add_column("feature")
    for stage in results:
        features.add_column(stage, justify="right")
    for name in FEATURE_NAMES:
        features.add_row(name, *(f"{r.feature_auc.get(name, 0.5):.3f}" for r in results.values()))
    console = Console(width=120)
    console.print(summary)
    console.print(features)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sv_env_phishing_detection.format_probe", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--nazario", required=True, help="Nazario phishing CSV")
    parser.add_argument("--enron", required=True, help="Enron ham/spam CSV (ham is used)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args(argv)
    try:
        nazario, enron = load_nazario_csv(args.nazario), load_enron_csv(args.enron)
        results = run_format_probe(
            nazario, enron, folds=args.folds, seed=args.seed, n_boot=args.bootstrap
        )
    except ValueError as exc:  # EmailDatasetError included
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _print_tables(results)
    print(json.dumps({stage: asdict(r) for stage, r in results.items()}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
