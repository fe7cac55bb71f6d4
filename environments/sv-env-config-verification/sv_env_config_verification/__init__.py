"""E2 sv-env-config-verification: audit a Kubernetes manifest or Terraform file with real
policy tools (Rego via regorus, checkov, semgrep, kube-linter when present) and propose a
patch that is verified by re-running every tool.

`vf.load_environment("sv-env-config-verification", **kwargs)` calls `load_environment`.
"""

from sv_env_config_verification.baselines import baseline_policies
from sv_env_config_verification.data_pipeline import data_adapter
from sv_env_config_verification.environment import ENV_ID, load_environment

__all__ = ["ENV_ID", "baseline_policies", "data_adapter", "load_environment"]
