"""E1 run-level metrics: the classification metrics of Malicious flows (with abstention)."""

from __future__ import annotations

from sv_shared.run_metrics import classification_run_metrics

from .reward import ABSTAIN

POSITIVE = "Malicious"

RUN_METRICS = classification_run_metrics(POSITIVE, ABSTAIN)
"""Accuracy, F1, FPR/FNR, coverage, Brier, ECE, AURC and cost under the run's payoffs."""
