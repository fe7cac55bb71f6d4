"""User-facing errors: printed as one clear message by the CLI, never as a traceback."""


class UserError(Exception):
    """A mistake the user can fix (bad model name, unreachable URL, malformed file, ...)."""
