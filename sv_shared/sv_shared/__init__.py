"""Security Verifiers shared core: parsers, reward components, metrics, rollout logging."""

from sv_shared.metrics import bootstrap_ci, classification_metrics
from sv_shared.parsers import (
    ClassificationAnswer,
    JsonClassificationParser,
    ParseResult,
    extract_json_object,
)
from sv_shared.rewards import (
    Payoffs,
    RewardWeights,
    abstention_threshold,
    classification_reward_components,
    combine,
    reward_accuracy,
    reward_asymmetric_cost,
    reward_calibration,
    reward_format,
)
from sv_shared.rollout_logging import RolloutLogger, build_rollout_logger

__version__ = "0.1.0"

__all__ = [
    "ClassificationAnswer",
    "JsonClassificationParser",
    "ParseResult",
    "Payoffs",
    "RewardWeights",
    "RolloutLogger",
    "__version__",
    "abstention_threshold",
    "bootstrap_ci",
    "build_rollout_logger",
    "classification_metrics",
    "classification_reward_components",
    "combine",
    "extract_json_object",
    "reward_accuracy",
    "reward_asymmetric_cost",
    "reward_calibration",
    "reward_format",
]
