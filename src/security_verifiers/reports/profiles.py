"""Per environment: the headline metrics to tabulate and the figures to draw."""

from __future__ import annotations

from dataclasses import dataclass

CLASSIFICATION_METRICS = (
    "accuracy", "f1", "precision", "recall", "fpr", "fnr", "coverage",
    "f1_answered", "recall_answered", "fnr_answered", "brier", "ece", "aurc",
    "abstain_rate", "invalid_rate", "cost_weighted_score",
)  # fmt: skip
"""Recall/FNR/F1 count abstentions as not detected; `*_answered` are over answered items."""


@dataclass(frozen=True)
class Profile:
    """What a report shows for one environment."""

    metrics: tuple[str, ...]
    figures: tuple[str, ...]
    positive_label: str | None = None
    success_metrics: tuple[str, ...] = ()


PROFILES: dict[str, Profile] = {
    "e1": Profile(
        CLASSIFICATION_METRICS,
        ("reward", "reliability", "confusion", "risk_coverage"),
        positive_label="Malicious",
    ),
    "e2": Profile(
        (
            "detection_precision",
            "detection_recall",
            "detection_f1",
            "clean_pass_rate",
            "false_positives_on_clean",
            "patch_success_rate",
            "new_violations_mean",
            "tool_calls_mean",
            "invalid_rate",
        ),
        ("reward", "success"),
        success_metrics=(
            "detection_precision",
            "detection_recall",
            "detection_f1",
            "clean_pass_rate",
            "patch_success_rate",
        ),
    ),
    "e3": Profile(
        (
            "repair_rate",
            "patch_apply_rate",
            "f2p_rate",
            "p2p_rate",
            "targeted_fixed_rate",
            "new_finding_rate",
            "tamper_rate",
            "invalid_rate",
            "mean_diff_lines",
        ),
        ("reward", "success"),
        success_metrics=(
            "repair_rate",
            "patch_apply_rate",
            "f2p_rate",
            "p2p_rate",
            "targeted_fixed_rate",
        ),
    ),
    "e4": Profile(
        (*CLASSIFICATION_METRICS, "evidence_precision"),
        ("reward", "reliability", "confusion", "risk_coverage"),
        positive_label="Phishing",
    ),
    "e5": Profile(
        (
            "attack_success_rate",
            "turns_to_success_mean",
            "novelty_mean",
            "attacker_violation_rate",
            "target_unsafe_rate",
        ),
        ("reward", "attack_by_category", "attack_by_turn"),
    ),
    "e6": Profile(
        (
            "harmful_compliance_rate",
            "refusal_rate_harmful",
            "safe_alternative_rate",
            "over_refusal_rate",
            "helpful_rate_benign",
            "attack_success_rate",
        ),
        ("reward", "refusal_tradeoff"),
    ),
}

GENERIC = Profile((), ("reward",))


def profile_for(env_key: str) -> Profile:
    return PROFILES.get(env_key, GENERIC)
