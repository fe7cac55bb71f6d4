"""Reproduce the offline judge's weights: ``python -m sv_shared.safety.train_offline``.

Trains (scikit-learn, training only) a logistic regression harmful-vs-benign model and a
multinomial category model on ``data/requests.jsonl``; C is the smallest value whose
seeded stratified 5-fold cross-validated accuracy is within ``CV_TOLERANCE`` of the best (a
one-standard-error-style rule that prefers stronger regularisation); the CV accuracies are
stored in the model metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from importlib import resources
from pathlib import Path

import numpy as np

from sv_shared.safety.corpus import load_requests
from sv_shared.safety.features import DIMENSION, featurize
from sv_shared.safety.offline_model import MODEL_FILE, MODEL_FORMAT

C_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
CV_TOLERANCE = 0.01
SEED = 0
PRECISION = 4


def _matrix(texts: list[str]):
    from scipy.sparse import csr_matrix

    rows, cols, values = [], [], []
    for r, text in enumerate(texts):
        for c, v in featurize(text).items():
            rows.append(r)
            cols.append(c)
            values.append(v)
    return csr_matrix((values, (rows, cols)), shape=(len(texts), DIMENSION))


def _binary_model(c: float):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=5000, solver="liblinear")


def _choose_c(x, y: np.ndarray) -> tuple[float, dict[float, float]]:
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    scores = {c: float(cross_val_score(_binary_model(c), x, y, cv=folds).mean()) for c in C_GRID}
    top = max(scores.values())
    chosen = min(c for c in C_GRID if scores[c] >= top - CV_TOLERANCE)
    return chosen, scores


def _sparse_weights(vector: np.ndarray, columns: np.ndarray) -> dict[str, float]:
    return {
        str(int(c)): round(float(w), PRECISION)
        for c, w in zip(columns, vector, strict=True)
        if abs(w) >= 1e-4
    }


def train(corpus: Path | None = None, c: float | None = None) -> dict:
    """The model JSON (as a dict) trained on the corpus; ``c`` skips the CV search."""
    from sklearn.linear_model import LogisticRegression

    rows = load_requests(corpus)
    texts = [row["text"] for row in rows]
    y = np.array([row["label"] == "harmful" for row in rows], dtype=int)
    full = _matrix(texts)
    columns = np.unique(full.nonzero()[1])  # fit on the used buckets only, then map back
    x = full[:, columns]
    best_c, cv_scores = (c, {}) if c is not None else _choose_c(x, y)
    binary = _binary_model(best_c).fit(x, y)
    harmful = [i for i, row in enumerate(rows) if row["label"] == "harmful"]
    labels = [rows[i]["category"] for i in harmful]
    category = LogisticRegression(C=best_c, max_iter=5000).fit(x[harmful], labels)
    used = np.unique(x[harmful].nonzero()[1])
    digest = hashlib.sha256(
        "\n".join(json.dumps(r, sort_keys=True) for r in rows).encode()
    ).hexdigest()
    return {
        "format": MODEL_FORMAT,
        "dimension": DIMENSION,
        "binary": {
            "bias": round(float(binary.intercept_[0]), PRECISION),
            "weights": _sparse_weights(binary.coef_[0], columns),
        },
        "categories": {
            "classes": [str(c) for c in category.classes_],
            "bias": [round(float(b), PRECISION) for b in category.intercept_],
            "weights": {
                str(int(columns[i])): [round(float(w), 3) for w in category.coef_[:, i]]
                for i in used
                if np.abs(category.coef_[:, i]).max() >= 0.02
            },
        },
        "metadata": {
            "corpus_sha256": digest,
            "n_examples": len(rows),
            "n_harmful": len(harmful),
            "C": best_c,
            "cv_accuracy": {str(c): round(s, 4) for c, s in cv_scores.items()},
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", type=Path, default=None, help="requests JSONL (default: shipped)"
    )
    parser.add_argument("--out", type=Path, default=None, help="model JSON (default: shipped path)")
    parser.add_argument("--c", type=float, default=None, help="fixed C (skips cross-validation)")
    args = parser.parse_args(argv)
    model = train(args.corpus, args.c)
    out = args.out or Path(str(resources.files("sv_shared.safety") / "data" / MODEL_FILE))
    out.write_text(
        json.dumps(model, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    meta = model["metadata"]
    print(f"wrote {out} (C={meta['C']}, cv accuracy {meta['cv_accuracy']})")


if __name__ == "__main__":
    main()
