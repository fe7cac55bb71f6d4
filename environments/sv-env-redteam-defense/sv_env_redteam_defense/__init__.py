"""E6 sv-env-redteam-defense: the policy is the assistant. It faces scripted multi-turn
attacks (role-play, hypotheticals, split payloads, gradual escalation, direct requests) and
benign conversations, including safe prompts that only look dangerous.

`vf.load_environment("sv-env-redteam-defense", **kwargs)` calls `environment.load_environment`
(its arguments: `config.RedteamDefenseConfig`, or `sv envs redteam-defense --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".config",
    "load_environment": ".environment",
    "RedteamDefenseConfig": ".config",
    "baseline_policies": ".baselines",
    "data_adapter": ".data_pipeline",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
