"""Old name of `sv_env_network_logs.reward` (every environment keeps its reward in `reward.py`);
kept so that existing imports work."""

from sv_env_network_logs.reward import ABSTAIN, LABELS, build_payoffs, build_rubric

__all__ = ["ABSTAIN", "LABELS", "build_payoffs", "build_rubric"]
