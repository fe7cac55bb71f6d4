"""Sim-to-real measurement: a standard classifier fit on synthetic train, scored in-domain
(synthetic test) and on real, externally labeled data (`sv sim2real e1|e4`)."""

from security_verifiers.sim2real.scoring import GOAL_RATIO, score_set

__all__ = ["GOAL_RATIO", "score_set"]
