"""E5 sv-env-redteam-attack: the policy is a red-team attacker that tries, over several turns,
to make a target model produce an unsafe reply on a given behavior.

`vf.load_environment("sv-env-redteam-attack", **kwargs)` calls `environment.load_environment`
(its arguments: `config.RedteamAttackConfig`, or `sv envs redteam-attack --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".config",
    "load_environment": ".environment",
    "RedteamAttackConfig": ".config",
    "baseline_policies": ".baselines",
    "data_adapter": ".data_pipeline",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
