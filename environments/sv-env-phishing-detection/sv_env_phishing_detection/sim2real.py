"""E4's sim-to-real task (`sv sim2real`): TF-IDF + logistic regression on the normalised
subject and body of each email."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sv_env_phishing_detection.dataset import load_synthetic
from sv_env_phishing_detection.format_probe import normalized_rendering, probe
from sv_env_phishing_detection.learned import fit
from sv_env_phishing_detection.records import PHISHING, EmailRecord
from sv_env_phishing_detection.sources import excluded_rows, load_records, spam_records
from sv_shared.metrics import bootstrap_ci
from sv_shared.sim2real import EnvTask, Model, RealSet

FORMATS = ("realdata", "realdata-eml", "nazario", "enron", "eml", "csv", "jsonl")
REALDATA = "E4_phishing"
FORMAT_AUC_WARNING = 0.75
"""A format-only ROC AUC at or above this says the two classes differ in formatting enough
that the ratio may measure the corpora rather than phishing."""


def train_test() -> tuple[list[EmailRecord], list[EmailRecord]]:
    """The environment's synthetic corpus: train and test splits."""
    return load_synthetic("train"), load_synthetic("test")


def load_real(path: Path, fmt: str) -> RealSet:
    """Real emails through the environment's own loaders (Enron spam is skipped there and
    counted in the set's notes)."""
    real = RealSet(f"{fmt}:{path.name}", str(path), load_records(fmt, path=str(path), split="all"))
    spam = sum(excluded_rows(fmt, str(path)).values())
    if spam:
        corpus = "Enron" if fmt in ("realdata", "enron") else "SpamAssassin"
        real.notes.append(f"{spam} {corpus} spam rows excluded (advertising is not phishing)")
        real.control_sets[f"{corpus} spam flagged as phishing"] = spam_records(fmt, str(path))
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
    """Nazario phishing + Enron ham (CSV, no headers), and phishing_pot + SpamAssassin ham
    (raw messages with full headers) from the shared realdata folder."""
    csv_set = replace(load_real(root / REALDATA, "realdata"), name="nazario + enron ham")
    csv_set.notes.insert(0, "phishing = Nazario, legitimate = Enron ham")
    eml_set = replace(
        load_real(root / REALDATA, "realdata-eml"), name="phishing_pot + spamassassin ham"
    )
    eml_set.notes.insert(
        0,
        "phishing = phishing_pot (2023-2025), legitimate = SpamAssassin ham (2002): the classes "
        "differ in era as well as intent, so the ratio may measure the era",
    )
    return [csv_set, eml_set]


TASK = EnvTask(
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
