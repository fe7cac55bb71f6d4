"""The verifiers v1 plugin of Security Verifiers: `--env.taskset.id security-verifiers-v1`.

verifiers v1 resolves a taskset id to a top-level module exporting exactly one `Taskset`
subclass (and optionally one `Env` and one `Harness`) through `__all__`. Pick the
environment with `--env.taskset.env e1` (or `sv-env-network-logs`, ...) and pass its
`load_environment` arguments as `--env.taskset.env-args '{"max_examples": 64}'`. This module
imports `verifiers.v1`; the logic lives in `sv_shared.v1_compat`, importable anywhere.
"""

from sv_shared.v1_compat import classes

_c = classes()
SecurityVerifiersTaskset = _c.Taskset
SecurityVerifiersTasksetConfig = _c.TasksetConfig
SecurityVerifiersTask = _c.Task
SecurityVerifiersTaskData = _c.TaskData  # imported by tool servers as `module:qualname`
SecurityVerifiersTaskConfig = _c.TaskConfig
SecurityVerifiersEnv = _c.Env
SecurityVerifiersEnvConfig = _c.EnvConfig
SecurityVerifiersHarness = _c.Harness

__all__ = [
    "SecurityVerifiersEnv",
    "SecurityVerifiersEnvConfig",
    "SecurityVerifiersHarness",
    "SecurityVerifiersTask",
    "SecurityVerifiersTaskset",
    "SecurityVerifiersTasksetConfig",
]
