"""User-facing errors: printed as one clear message by the CLI, never as a traceback."""


class UserError(Exception):
    """A mistake the user can fix (bad model name, unreachable URL, malformed file, ...)."""


class Interrupted(Exception):
    """The user stopped a run (Ctrl-C or SIGTERM) after its partial results were saved."""
