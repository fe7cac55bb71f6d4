"""`.env` in the current directory: API keys and endpoints for `sv`, loaded at start."""

from __future__ import annotations

import os
from pathlib import Path

from security_verifiers.errors import UserError

DISABLE_VAR = "SV_NO_DOTENV"
_TRUE = {"1", "true", "yes", "on"}


def load_env_file(directory: Path | None = None) -> Path | None:
    """Set the variables of `directory`/.env (default: the current directory) that are not set
    already; returns the file read, or None (no file, or $SV_NO_DOTENV=1). Values are never
    printed or recorded."""
    if os.environ.get(DISABLE_VAR, "").strip().lower() in _TRUE:
        return None
    path = (directory or Path.cwd()) / ".env"
    if not path.is_file():
        return None
    from dotenv import dotenv_values

    try:
        values = dotenv_values(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"cannot read {path}: {reason} (set {DISABLE_VAR}=1 to skip it)") from None
    for key, value in values.items():
        if value is not None and key not in os.environ:
            os.environ[key] = value
    return path
