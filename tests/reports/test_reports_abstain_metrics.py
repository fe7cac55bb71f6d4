"""Report intervals use the same all-items recall/FNR/F1 as summary.json."""

from __future__ import annotations

import numpy as np
import pytest

from security_verifiers.reports.classboot import classification_cis, classification_stats
from security_verifiers.reports.profiles import CLASSIFICATION_METRICS
from sv_shared.metrics import classification_metrics

M, B, A = "Malicious", "Benign", "Abstain"
GOLDS = [M, M, M, M, B, B, B, M]
PREDS = [M, A, A, B, B, M, None, M]
CONFS = [0.9, 0.5, 0.5, 0.6, 0.8, 0.7, None, 0.95]


def test_full_sample_matches_summary_metrics() -> None:
    summary = classification_metrics(GOLDS, PREDS, CONFS)
    full = classification_stats(
        np.arange(len(GOLDS))[None, :], GOLDS, PREDS, CONFS, positive=M, abstain=A
    )
    assert summary["recall"] == pytest.approx(2 / 5)  # two abstained positives are missed
    assert summary["recall_answered"] == pytest.approx(2 / 3)
    for key in ("recall", "fnr", "f1", "recall_answered", "fnr_answered", "f1_answered", "fpr"):
        assert float(full[key][0]) == pytest.approx(summary[key]), key


def test_cis_cover_headline_and_answered_metrics() -> None:
    summary = classification_metrics(GOLDS, PREDS, CONFS)
    cis = classification_cis(GOLDS, PREDS, CONFS, summary, positive=M, abstain=A)
    assert {"recall", "fnr", "f1", "recall_answered", "fnr_answered"} <= set(cis)
    assert {"coverage", "recall_answered", "fnr_answered"} <= set(CLASSIFICATION_METRICS)
