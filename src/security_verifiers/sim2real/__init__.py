"""Sim-to-real measurement: a standard classifier fit on synthetic train, scored in-domain
(synthetic test) and on real, externally labeled data (`sv sim2real <env>`; the environment's
spec names its task, `EnvSpec.sim2real`)."""

from security_verifiers.sim2real.scoring import GOAL_RATIO, score_set

__all__ = ["GOAL_RATIO", "score_set"]
