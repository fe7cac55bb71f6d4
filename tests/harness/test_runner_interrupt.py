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
