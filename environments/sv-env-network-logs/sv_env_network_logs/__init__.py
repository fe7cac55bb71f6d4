"""E1 sv-env-network-logs: label a network flow Benign / Malicious / Abstain with a confidence.

`vf.load_environment("sv-env-network-logs", **kwargs)` calls `environment.load_environment`
(its arguments: `config.NetworkLogsConfig`, or `sv envs network-logs --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".environment",
    "load_environment": ".environment",
    "to_rows": ".environment",
    "baseline_policies": ".baselines",
    "data_adapter": ".data_pipeline",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
