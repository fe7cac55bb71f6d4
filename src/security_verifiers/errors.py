"""User-facing errors: printed as one clear message by the CLI, never as a traceback."""


class UserError(Exception):
    """A mistake the user can fix (bad model name, unreachable URL, malformed file, ...)."""


class Interrupted(Exception):
    """The user stopped a run (Ctrl-C or SIGTERM) after its partial results were saved."""


class RolloutsFailed(Exception):
    """Some rollouts got no answer from the model (after retries). They are recorded as errors,
    not scored, and rerunning the same command retries exactly them (exit code 1)."""
