"""Example environment sv-env-example-parity: say whether a number is even or odd.

`vf.load_environment("sv-env-example-parity", **kwargs)` calls `environment.load_environment`
(its arguments: `config.ExampleParityConfig`, or `sv envs sv-env-example-parity --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".environment",
    "load_environment": ".environment",
    "baseline_policies": ".baselines",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
