"""The learned E4 baseline: TF-IDF word n-grams and logistic regression on subject + body.

The text is the message's subject and readable body after the project's normalisation
(formatting-neutral), so headers and markup carry no weight. The model is fit on the default
synthetic *train* split only (deterministic: fixed seed, pinned scikit-learn), once per
process; `sv sim2real e4` fits the same model. `python -m sv_env_phishing_detection.learned_card`
prints its fit card (train hash, dev and test reward).

As an `sv eval` baseline (``learned``) the model picks the label with the best expected
payoff under the default payoffs and weights (a missed phish costs 2, a false alarm 1,
abstaining 0); a Phishing call cites the indicators the extractor confirms on the email (the
model itself reads only words, so its decision is the model's and its evidence the
extractor's).
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

from .answer import MAX_EVIDENCE_ITEMS
from .dataset import load_synthetic
from .indicators import extract_indicators
from .message import parse_message
from .normalize import normalize_text
from .records import ABSTAIN, LEGITIMATE, PHISHING, EmailRecord
from .reward import TriageWeights, default_payoffs
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


def decide(p_phishing: float, cites: bool = False) -> tuple[str, float]:
    """(label, confidence) with the best expected payoff under the default payoffs and
    weights. A Phishing call cites every indicator the extractor confirms; where one is
    confirmed (``cites``) a wrong call also loses the evidence weight, so it is made above
    P = 0.6 (1/2 where nothing is confirmed); Legitimate below 1/3; else Abstain."""
    weights = TriageWeights()
    payoffs = default_payoffs()
    extra = weights.evidence / weights.decision if cites else 0.0
    wrong = {PHISHING: payoffs.cost(LEGITIMATE, PHISHING) + extra}
    return best_decision(p_phishing, payoffs, PHISHING, LEGITIMATE, ABSTAIN, wrong=wrong)


def learned_answer(view: EmailView) -> dict[str, object]:
    """The baseline's answer for one email; a Phishing call cites the confirmed indicators."""
    fired = sorted(extract_indicators(view))
    p = float(default_model().proba_texts([view_text(view)])[0])
    label, confidence = decide(p, cites=bool(fired))
    return {"label": label, "confidence": confidence,
            "evidence": fired[:MAX_EVIDENCE_ITEMS] if label == PHISHING else []}  # fmt: skip
