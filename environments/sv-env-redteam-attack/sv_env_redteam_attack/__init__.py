"""E5 sv-env-redteam-attack: the policy is a red-team attacker that tries, over several turns,
to make a target model produce an unsafe reply on a given behavior.

`vf.load_environment("sv-env-redteam-attack", **kwargs)` calls `load_environment`.
"""

from sv_env_redteam_attack.baselines import baseline_policies
from sv_env_redteam_attack.data_pipeline import data_adapter
from sv_env_redteam_attack.environment import ENV_ID, load_environment

__all__ = ["ENV_ID", "baseline_policies", "data_adapter", "load_environment"]
