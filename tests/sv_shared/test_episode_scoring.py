"""A scoring function that raises becomes an errored rollout, never a silent reward of 0."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import verifiers as vf
from verifiers.utils.async_utils import maybe_await

from security_verifiers.evaluation.records import rollout_row
from sv_shared.episode_scoring import (
    SCORING_ERROR,
    WORKERS_ENV,
    MemoizedScorer,
    component_rubric,
    default_scoring_workers,
    scoring_executor,
)


def _scorer(fail: bool) -> MemoizedScorer:
    def score(completion, info):
        if fail:
            raise RuntimeError("sandbox vanished")
        return {"tests": 1.0, "format": 1.0}

    return MemoizedScorer(score, key=lambda completion, info: (info["id"], str(completion)))


def test_failure_reads_zero_and_reports_the_error(caplog):
    rubric = component_rubric(_scorer(True), ("tests", "format"), {"tests": 1.0}, vf.Parser())
    funcs = {f.__name__: f for f in rubric.funcs}
    with caplog.at_level(logging.ERROR):
        values = {name: f(completion="x", info={"id": "e1"}) for name, f in funcs.items()}
    assert values == {"tests": 0.0, "format": 0.0, SCORING_ERROR: 1.0}
    assert "sandbox vanished" in caplog.text and "e1" in caplog.text
    assert rubric.weights[-1] == 0.0  # the error metric never moves the reward


def test_success_reports_no_error():
    rubric = component_rubric(_scorer(False), ("tests", "format"), {"tests": 1.0}, vf.Parser())
    funcs = {f.__name__: f for f in rubric.funcs}
    assert funcs[SCORING_ERROR](completion="x", info={"id": "e1"}) == 0.0
    assert funcs["tests"](completion="x", info={"id": "e1"}) == 1.0


def test_harness_marks_the_rollout_errored():
    output = {
        "completion": "x",
        "info": {"id": "e1"},
        "metrics": {"tests": 0.0, SCORING_ERROR: 1.0},
    }
    row = rollout_row(output, parser=None, component_names={"tests"}, run_attempt=1)
    assert row["error"] and "reward computation raised" in row["error"]
    clean = {**output, "metrics": {"tests": 1.0, SCORING_ERROR: 0.0}}
    assert (
        rollout_row(clean, parser=None, component_names={"tests"}, run_attempt=1)["error"] is None
    )


# --------------------------------------------------------------------- off the event loop
def _slow_scorer(delay: float, calls: list[str]) -> MemoizedScorer:
    def score(completion, info):
        calls.append(threading.current_thread().name)
        time.sleep(delay)
        return {"tests": 1.0, "format": 0.5}

    return MemoizedScorer(score, key=lambda completion, info: (info["id"], str(completion)))


def test_rubric_scores_in_the_pool_without_blocking_the_loop():
    calls: list[str] = []
    scorer = _slow_scorer(0.3, calls)
    rubric = component_rubric(scorer, ("tests", "format"), {"tests": 1.0}, vf.Parser())
    funcs = {f.__name__: f for f in rubric.funcs}
    assert all(not rubric._is_group_func(f) for f in rubric.funcs)

    async def main() -> tuple[list[float], int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        # every component of one episode at once: one computation, shared by all
        values = await asyncio.gather(
            *(maybe_await(f, completion="x", info={"id": "e1"}) for f in funcs.values())
        )
        task.cancel()
        return values, ticks

    values, ticks = asyncio.run(main())
    assert values == [1.0, 0.5, 0.0]
    assert scorer.computed == 1 and len(calls) == 1
    assert calls[0].startswith("sv-scoring")  # not the event loop's thread
    assert ticks >= 5  # the loop kept running while the episode was scored


def test_concurrent_episodes_score_in_parallel_and_once_each():
    lock, active, peak, calls = threading.Lock(), [0], [0], []
    both_running = threading.Barrier(2, timeout=10)

    def score(completion, info):
        with lock:
            calls.append(info["id"])
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        both_running.wait()  # passes only if two episodes are being scored at the same time
        with lock:
            active[0] -= 1
        return {"tests": 1.0}

    pool = ThreadPoolExecutor(max_workers=2)
    scorer = MemoizedScorer(score, key=lambda c, info: info["id"], executor=pool)

    async def main() -> list:
        infos = [{"id": f"e{i}"} for i in range(4)]
        return await asyncio.gather(*(scorer.ascore("x", info) for info in infos for _ in range(3)))

    results = asyncio.run(main())
    pool.shutdown()
    assert len(results) == 12 and scorer.computed == 4 and sorted(calls) == ["e0", "e1", "e2", "e3"]
    assert peak[0] == 2


def test_sync_and_async_callers_share_one_in_flight_computation():
    calls: list[str] = []
    scorer = _slow_scorer(0.2, calls)

    async def main() -> tuple:
        pending = asyncio.ensure_future(scorer.ascore("x", {"id": "e1"}))
        await asyncio.sleep(0.05)  # the pool has started the computation
        direct = await asyncio.to_thread(scorer, "x", {"id": "e1"})
        return await pending, direct

    first, second = asyncio.run(main())
    assert first == second and scorer.computed == 1


def test_async_failure_reports_the_error(caplog):
    rubric = component_rubric(_scorer(True), ("tests",), {"tests": 1.0}, vf.Parser())

    async def main() -> dict:
        return {
            f.__name__: await maybe_await(f, completion="x", info={"id": "e9"})
            for f in rubric.funcs
        }

    with caplog.at_level(logging.ERROR):
        values = asyncio.run(main())
    assert values == {"tests": 0.0, SCORING_ERROR: 1.0}
    assert "e9" in caplog.text


def test_workers_from_the_environment(monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "3")
    assert default_scoring_workers() == 3
    monkeypatch.setenv(WORKERS_ENV, "0")
    with pytest.raises(ValueError, match=WORKERS_ENV):
        default_scoring_workers()
    monkeypatch.delenv(WORKERS_ENV)
    assert 1 <= default_scoring_workers() <= 4
    assert scoring_executor(2)._max_workers == 2
    assert scoring_executor() is scoring_executor()
