"""Checks run before an evaluation sends its first request: values that cannot work and folders
that cannot be written fail here, in one line naming the option, instead of after billing."""

from __future__ import annotations

import contextlib
import errno
import math
import os
import tempfile
from pathlib import Path

from security_verifiers.errors import UserError

MAX_SEED = 2**31 - 1
"""The seed is sent to the model as the sampling seed; some APIs (Gemini) and local runtimes
take a 32-bit integer. numpy's bootstrap needs it non-negative."""


def check_seed(seed: int, flag: str = "--seed") -> None:
    """0 <= seed <= MAX_SEED."""
    if seed < 0:
        raise UserError(f"{flag} {seed}: must be 0 or more")
    if seed > MAX_SEED:
        raise UserError(
            f"{flag} {seed}: must be at most {MAX_SEED} (it is sent to the model as its seed)"
        )


def check_sampling(
    seed: int, temperature: float | None, top_p: float | None, max_tokens: int | None
) -> None:
    """The sampling options every provider accepts: a seed, temperature in [0, 2], top-p in
    (0, 1] and a positive token limit."""
    check_seed(seed)
    if temperature is not None and not (math.isfinite(temperature) and 0 <= temperature <= 2):
        raise UserError(f"--temperature {temperature}: must be a finite number between 0 and 2")
    if top_p is not None and not (math.isfinite(top_p) and 0 < top_p <= 1):
        raise UserError(f"--top-p {top_p}: must be more than 0 and at most 1")
    if max_tokens is not None and max_tokens < 1:
        raise UserError(f"--max-tokens {max_tokens}: must be 1 or more")


def check_writable_dir(path: Path, flag: str) -> None:
    """`path` is a directory this process can create files in, or can be created: its nearest
    existing ancestor is a directory that accepts a new file. Creates nothing that stays."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "" if existing == path else f"{existing} "
        raise UserError(f"{flag} {path}: {where}is a file, not a directory")
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".sv-write-check.", suffix=".tmp")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        where = "" if existing == path else f" ({existing})"
        raise UserError(f"{flag} {path}: cannot write there{where}: {reason}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def write_failed_message(exc: OSError, saved: int | None, total: int, run_dir: Path | None) -> str:
    """One line for a write that failed mid-run (disk full, read-only, ...): which file, why,
    how many rollouts are on disk and how to resume."""
    where = f"cannot write {exc.filename}" if exc.filename else "cannot write the run's files"
    reason = exc.strerror or str(exc)
    fix = "free space" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "fix that"
    if run_dir is None or saved is None:
        return f"{where}: {reason}; no rollouts were run; {fix} and rerun the same command"
    return (
        f"{where}: {reason}; {saved} of {total} rollouts are saved in {run_dir}; "
        f"{fix} and rerun the same command to resume"
    )


def with_filename(exc: OSError, path: Path) -> OSError:
    """`exc`, with `path` as its filename when it names none (a failed write or flush)."""
    if exc.filename:
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), str(path))
