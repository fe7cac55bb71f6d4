"""E4: TF-IDF + logistic regression on the normalised subject and body of each email."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

from security_verifiers.sim2real.base import EnvTask, Model, RealSet
from sv_env_phishing_detection.dataset import load_synthetic
from sv_env_phishing_detection.format_probe import normalized_rendering, probe
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.records import PHISHING, EmailRecord
from sv_env_phishing_detection.sources import excluded_rows, load_records, spam_records
from sv_shared.metrics import bootstrap_ci

FORMATS = ("realdata", "nazario", "enron", "csv", "jsonl")
REALDATA = "E4_phishing"
FORMAT_AUC_WARNING = 0.75
"""A format-only ROC AUC at or above this says the two classes differ in formatting enough
that the ratio may measure the corpora rather than phishing."""


def email_text(record: EmailRecord) -> str:
    """Subject and readable body of the raw message, normalised (formatting-neutral)."""
    view = parse_message(record.raw)
    return normalize_text(f"{view.subject}\n{view.text}")


@dataclass
class TextModel:
    pipeline: Pipeline

    def proba(self, items: Sequence[EmailRecord]) -> np.ndarray:
        return self.pipeline.predict_proba([email_text(r) for r in items])[:, 1]


def fit(train: list[EmailRecord], seed: int, fields: tuple[str, ...] | None) -> TextModel:
    """Word 1-2 gram TF-IDF (sublinear tf) and L2 logistic regression; ``fields`` unused."""
    pipeline = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
        LogisticRegression(max_iter=2000, random_state=seed),
    )
    pipeline.fit([email_text(r) for r in train], [r.label == PHISHING for r in train])
    return TextModel(pipeline)


def train_test() -> tuple[list[EmailRecord], list[EmailRecord]]:
    """The environment's synthetic corpus: train and test splits."""
    return load_synthetic("train"), load_synthetic("test")


def load_real(path: Path, fmt: str) -> RealSet:
    """Real emails through the environment's own loaders (Enron spam is skipped there and
    counted in the set's notes)."""
    real = RealSet(f"{fmt}:{path.name}", str(path), load_records(fmt, path=str(path), split="all"))
    spam = excluded_rows(fmt, str(path)).get("enron_spam", 0) if fmt in ("realdata", "enron") else 0
    if spam:
        real.notes.append(f"{spam} Enron spam rows excluded (advertising is not phishing)")
        real.control_sets["Enron spam flagged as phishing"] = spam_records(fmt, str(path))
    return real


def controls(real: RealSet, model: Model, seed: int) -> list[dict[str, Any]]:
    """Format-only ROC AUC on the real set (out-of-fold, after the project's normalisation),
    and the share of each control set (advertising spam) the model calls phishing."""
    out: list[dict[str, Any]] = []
    labels = [int(r.label == PHISHING) for r in real.items]
    if min(sum(labels), len(labels) - sum(labels)) >= 5:
        result = probe([normalized_rendering(r) for r in real.items], labels, seed=seed)
        high = result.auc >= FORMAT_AUC_WARNING
        out.append(
            {
                "name": "format-only ROC AUC (normalised, 5-fold)",
                "value": result.auc,
                "ci95": list(result.auc_ci),
                "note": "formatting alone separates the classes: the ratio may measure the "
                "corpora, not phishing"
                if high
                else "",
            }
        )
    for name, rows in real.control_sets.items():
        if not rows:
            continue
        flagged = (model.proba(rows) >= 0.5).astype(float).tolist()
        out.append(
            {
                "name": f"{name} (n={len(rows)})",
                "value": sum(flagged) / len(flagged),
                "ci95": list(bootstrap_ci(flagged, n_resamples=1000, seed=seed)),
                "note": "advertising is not phishing: lower is better",
            }
        )
    return out


def default_real(root: Path) -> list[RealSet]:
    """Nazario phishing + Enron ham from the shared realdata folder, as one set."""
    real = replace(load_real(root / REALDATA, "realdata"), name="nazario + enron ham")
    real.notes.insert(0, "phishing = Nazario, legitimate = Enron ham")
    return [real]


TASK = EnvTask(
    key="e4",
    model_name="TF-IDF (1-2 grams) + LogisticRegression on normalised subject + body",
    positive=PHISHING,
    formats=FORMATS,
    train_test=train_test,
    default_real=default_real,
    load_real=load_real,
    fit=fit,
    label=lambda item: item.label,
    controls=controls,
)
