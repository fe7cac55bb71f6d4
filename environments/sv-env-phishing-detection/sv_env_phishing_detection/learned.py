"""The learned E4 baseline: TF-IDF word n-grams and logistic regression on subject + body.

The text is the message's subject and readable body after the project's normalisation
(formatting-neutral), so headers and markup carry no weight. The model is fit on the default
synthetic *train* split only (deterministic: fixed seed, pinned scikit-learn), once per
process; `sv sim2real e4` fits the same model. `python -m sv_env_phishing_detection.learned_card`
prints its fit card (train hash, dev and test reward).

As an `sv eval` baseline (``learned``) it answers the label with the best expected decision
payoff under the default payoffs (a missed phish costs 2, a false alarm 1, abstaining 0) and
cites no evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

from sv_shared.rewards import best_decision

from .dataset import load_synthetic
from .message import parse_message
from .normalize import normalize_text
from .records import ABSTAIN, LEGITIMATE, PHISHING, EmailRecord
from .reward import default_payoffs
from .view import EmailView

SEED = 0


def view_text(view: EmailView) -> str:
    """Subject and readable body, normalised (what the model reads)."""
    return normalize_text(f"{view.subject}\n{view.text}")


def email_text(record: EmailRecord) -> str:
    return view_text(parse_message(record.raw))


@dataclass
class TextModel:
    pipeline: Pipeline

    def proba(self, items: Sequence[EmailRecord]) -> np.ndarray:
        return self.proba_texts([email_text(r) for r in items])

    def proba_texts(self, texts: Sequence[str]) -> np.ndarray:
        return self.pipeline.predict_proba(list(texts))[:, 1]


def fit(train: list[EmailRecord], seed: int, fields: tuple[str, ...] | None = None) -> TextModel:
    """Word 1-2 gram TF-IDF (sublinear tf) and L2 logistic regression; ``fields`` unused."""
    pipeline = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
        LogisticRegression(max_iter=2000, random_state=seed),
    )
    pipeline.fit([email_text(r) for r in train], [r.label == PHISHING for r in train])
    return TextModel(pipeline)


@lru_cache(maxsize=1)
def default_model() -> TextModel:
    """The baseline's model, fit on the default synthetic train split."""
    return fit(load_synthetic("train"), SEED)


def decide(p_phishing: float) -> tuple[str, float]:
    """(label, confidence) with the best expected decision payoff under the default payoffs."""
    return best_decision(p_phishing, default_payoffs(), PHISHING, LEGITIMATE, ABSTAIN)


def learned_answer(view: EmailView) -> dict[str, object]:
    """The baseline's answer for one email (no evidence)."""
    label, confidence = decide(float(default_model().proba_texts([view_text(view)])[0]))
    return {"label": label, "confidence": confidence, "evidence": []}
