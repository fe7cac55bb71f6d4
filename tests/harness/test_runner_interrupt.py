"""A rollout task that ended with an exception while the run stopped leaves no stray traceback."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from security_verifiers.evaluation.runner import retrieve_exceptions


def _run_with_failed_task(retrieve: bool) -> None:
    async def fails() -> None:
        raise ValueError("stand-in for the KeyboardInterrupt a Ctrl-C raises inside a task")

    async def main() -> None:
        tasks = [asyncio.ensure_future(fails()), asyncio.ensure_future(asyncio.sleep(10))]
        await asyncio.sleep(0.01)
        tasks[1].cancel()
        if retrieve:
            retrieve_exceptions(tasks)
        del tasks

    asyncio.run(main())
    gc.collect()


@pytest.mark.parametrize("retrieve", [False, True])
def test_retrieved_task_exceptions_are_not_logged(caplog, retrieve: bool) -> None:
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _run_with_failed_task(retrieve)
    logged = any("never retrieved" in r.getMessage() for r in caplog.records)
    assert logged is not retrieve


def _interrupted_task_run(run) -> None:
    """A task that a Ctrl-C ended (KeyboardInterrupt raised inside it), left unretrieved."""

    async def interrupted() -> None:
        raise KeyboardInterrupt

    async def main() -> None:
        asyncio.ensure_future(interrupted())  # noqa: RUF006 (left unretrieved on purpose)
        await asyncio.sleep(1)

    with pytest.raises(KeyboardInterrupt):
        run(main())
    gc.collect()


@pytest.mark.parametrize("interruptible", [False, True])
def test_a_task_a_ctrl_c_ended_is_not_reported_at_exit(caplog, interruptible: bool) -> None:
    """`sv eval` and `sv tournament` run under `run_interruptible`: the Ctrl-C may land in any
    task (the progress line, an HTTP client's), not only in a rollout's."""
    from security_verifiers.evaluation.runner import run_interruptible

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _interrupted_task_run(run_interruptible if interruptible else asyncio.run)
    logged = any("never retrieved" in r.getMessage() for r in caplog.records)
    assert logged is not interruptible
