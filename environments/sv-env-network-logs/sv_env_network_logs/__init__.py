"""E1 sv-env-network-logs: label a network flow Benign / Malicious / Abstain with a confidence.

`vf.load_environment("sv-env-network-logs", **kwargs)` imports this module and calls
`load_environment`.
"""

from sv_env_network_logs.baselines import baseline_policies
from sv_env_network_logs.data_pipeline import data_adapter
from sv_env_network_logs.environment import ENV_ID, load_environment, to_rows

__all__ = ["ENV_ID", "baseline_policies", "data_adapter", "load_environment", "to_rows"]
