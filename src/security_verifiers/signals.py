"""SIGTERM stops `sv` the way Ctrl-C does: what finished is saved, the exit status is 130.

verifiers' Environment replaces the SIGTERM handler whenever one is constructed (with
`exit(143)` at once: no final metadata, no "interrupted" line, exit status 143), so the harness
builds environments under :func:`keep_sigterm_handler`. (Its SIGINT handler, which raises
KeyboardInterrupt, is left in place: Ctrl-C behaves as it always has.)
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

REPEAT_WINDOW_S = 1.0
"""A second SIGTERM this soon after the first is the same request: `make` forwards the SIGTERM
it got to its child, so a process group's `sv` receives two at once (a second Ctrl-C, by
contrast, stops at once)."""

_last_sigterm: list[float] = []


def sigterm_as_sigint(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handler: run the SIGINT handler in place (verifiers' or Python's, which raise
    KeyboardInterrupt; asyncio's, which cancels the run), so the run saves and stops."""
    now = time.monotonic()
    if _last_sigterm and now - _last_sigterm[0] < REPEAT_WINDOW_S:
        return
    _last_sigterm[:] = [now]
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt  # SIGINT ignored (a background job) or not a Python handler


def install_sigterm_handler() -> None:
    """Make SIGTERM act as Ctrl-C in this process (main thread only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, sigterm_as_sigint)


@contextlib.contextmanager
def keep_sigterm_handler() -> Iterator[None]:
    """Restore the SIGTERM handler after the block (constructing a verifiers Environment
    replaces it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if saved is not None:
            signal.signal(signal.SIGTERM, saved)
