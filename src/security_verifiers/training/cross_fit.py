"""Out-of-fold label probabilities for calibrating gold SFT answers.

A gold label says what an item *is*; a calibrated answer should also say how sure one can be
from what the model is shown. Where no two training items look alike (E4's emails), frequency
among look-alikes is always 1. Cross-fitting estimates the same quantity another way: a simple
text classifier (TF-IDF n-grams + logistic regression, its regularisation chosen by held-out
log-loss so that its probabilities are calibrated) is trained on k-1 folds of the training
split and gives each item of the held-out fold a probability for every label. An item the
classifier cannot place from its text gets a low probability for its gold label, and a
calibrated gold answer then lowers its confidence or abstains.

Only the training split is read: the test split never informs the probabilities.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from security_verifiers.errors import UserError

FOLDS = 5
#: Inverse regularisation strengths tried (inner 3-fold CV, log-loss): TF-IDF rows have unit
#: norm, so weakly regularised models are often the calibrated ones.
C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)


def out_of_fold_probabilities(
    texts: Sequence[str],
    labels: Sequence[str],
    folds: int = FOLDS,
    seed: int = 42,
    groups: Sequence[str] | None = None,
) -> list[dict[str, float]]:
    """Per item, {label: probability} from a classifier that never saw the item; with
    `groups` (E4: template groups), one that never saw any item of the item's group, in the
    outer folds and in the inner search of the regularisation alike.

    Raises UserError when a label has fewer items (or groups) than `folds`."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import (
        GridSearchCV,
        StratifiedGroupKFold,
        StratifiedKFold,
        cross_val_predict,
    )
    from sklearn.pipeline import make_pipeline

    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    counts = Counter(labels)
    if len(counts) < 2 or min(counts.values()) < folds:
        raise UserError(
            f"data.calibration=cross_fit needs >= {folds} training items of each of >= 2 "
            f"labels; the training split has {dict(counts)}"
        )
    if groups is not None:
        if len(groups) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(groups)} groups")
        per_label = Counter(label for label, _ in set(zip(labels, groups, strict=True)))
        if min(per_label.values()) < folds:
            raise UserError(
                f"data.calibration=cross_fit_groups needs >= {folds} groups of each label; "
                f"the training split has {dict(per_label)}"
            )
    pipeline = make_pipeline(
        TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2, max_features=50_000),
        LogisticRegression(max_iter=3_000),
    )
    grid = {"logisticregression__C": list(C_GRID)}
    if groups is None:
        model = GridSearchCV(pipeline, grid, cv=3, scoring="neg_log_loss")
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
        probabilities = cross_val_predict(
            model, list(texts), list(labels), cv=splitter, method="predict_proba"
        )
    else:
        model = GridSearchCV(pipeline, grid, cv=StratifiedGroupKFold(3), scoring="neg_log_loss")
        splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed)
        probabilities = cross_val_predict(
            model, list(texts), list(labels), groups=list(groups), cv=splitter,
            method="predict_proba", params={"groups": list(groups)},
        )  # fmt: skip
    classes = sorted(counts)  # predict_proba's column order: the sorted class labels
    return [
        {label: float(p) for label, p in zip(classes, row, strict=True)} for row in probabilities
    ]
