"""E2 sv-env-config-verification: audit a Kubernetes manifest or Terraform file with real
policy tools (Rego via regorus, checkov, semgrep, kube-linter when present) and propose a
patch that is verified by re-running every tool.

`vf.load_environment("sv-env-config-verification", **kwargs)` calls
`environment.load_environment` (its arguments: `config.ConfigVerificationConfig`, or
`sv envs config-verification --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".environment",
    "load_environment": ".environment",
    "to_rows": ".environment",
    "ConfigVerificationConfig": ".config",
    "baseline_policies": ".baselines",
    "data_adapter": ".data_pipeline",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
