"""`FreshRows`: how a curriculum draws new rows from an environment's generator (the
`fresh_rows` hook of its spec) and hands them to training as a file the environment loads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FreshRows:
    """An environment's generator, as a curriculum uses it."""

    generate: Callable[[int, int], list[Any]]
    """(size, seed) -> that many new rows (items of the generator, not yet chat rows)."""
    group: Callable[[Any], str]
    """The scenario a row belongs to (what an eval's results rows call `scenario`)."""
    label: Callable[[Any], str]
    """A row's gold label."""
    write: Callable[[list[Any], Path], None]
    """Write rows to a file the environment loads."""
    file_env_args: Callable[[Path], dict[str, str]]
    """The env args that load such a file (all of it, as one split)."""


__all__ = ["FreshRows"]
