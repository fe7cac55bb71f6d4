"""Score an episode once, serve every reward component from that one result, off the event loop.

Verifiers calls each reward function of a rubric separately. Environments whose scoring is
expensive (applying a patch, scanning, running tests) wrap one scoring function in a
`MemoizedScorer` and expose each component as a rubric function reading from it.

Concurrency: verifiers awaits the rubric's functions on its event loop, where every other
rollout of the run is waiting on its model call. A scoring function that runs there (a tool
scan, a sandboxed test run) stalls them all, so the component functions built here hand the
scoring to a bounded, process-wide thread pool (`scoring_executor`; size `SV_SCORING_WORKERS`,
default ``min(4, cpu count)``) and await it. Threads, not processes: scoring functions close
over parsers, judges and memories that do not pickle, and their heavy parts already run
outside the GIL (subprocesses for the sandbox and semgrep; checkov serialises itself).
Memoisation is safe under that concurrency: the first request for a key starts the one
computation and every other request for the same key (another component of the same episode,
or the same completion again) waits on that in-flight future; a key is never scored twice
while its result is in the LRU memo.

A scoring function that raises must not pass for a model's failure (verifiers would quietly
score it 0): the scorer logs the exception and reports the `scoring_error` metric, which the
evaluation harness turns into an errored (retryable) rollout.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from sv_shared.vf_compat import vf

ScoreFn = Callable[[Any, Mapping[str, Any]], Mapping[str, float]]
KeyFn = Callable[[Any, Mapping[str, Any]], Hashable]
SCORING_ERROR = "scoring_error"
"""Metric set to 1.0 when the episode's scoring function raised."""
WORKERS_ENV = "SV_SCORING_WORKERS"
"""Environment variable: the number of scoring worker threads per process."""

log = logging.getLogger(__name__)

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def default_scoring_workers() -> int:
    """`$SV_SCORING_WORKERS` if set (>= 1), else ``min(4, os.cpu_count())``."""
    configured = os.environ.get(WORKERS_ENV, "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise ValueError(f"{WORKERS_ENV} must be an integer, got {configured!r}") from None
        if value < 1:
            raise ValueError(f"{WORKERS_ENV} must be >= 1, got {value}")
        return value
    return max(1, min(4, os.cpu_count() or 1))


def scoring_executor(workers: int | None = None) -> ThreadPoolExecutor:
    """The process-wide scoring pool; ``workers`` (else `default_scoring_workers`) resizes it.

    Resizing replaces the pool for new work; computations already submitted finish on the old
    one.
    """
    global _pool, _pool_size
    size = default_scoring_workers() if workers is None else int(workers)
    if size < 1:
        raise ValueError(f"scoring workers must be >= 1, got {size}")
    with _pool_lock:
        if _pool is None or (workers is not None and size != _pool_size):
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="sv-scoring")
            _pool_size = size
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def run_in_scoring_pool(fn: Callable[..., Any], *args: Any) -> Future:
    """Submit `fn(*args)` to the scoring pool (used for warm-ups that must not block a loop)."""
    return scoring_executor().submit(fn, *args)


class MemoizedScorer:
    """`score(completion, info)` computed once per `key(completion, info)` (LRU-bounded).

    `ascore` (what the rubric functions await) runs the computation on `executor` (default:
    the process-wide `scoring_executor`); calling the scorer directly computes in the calling
    thread. Both share results and in-flight computations, so a key is scored once.
    """

    def __init__(
        self,
        score: ScoreFn,
        key: KeyFn,
        memo_size: int = 4096,
        executor: Executor | None = None,
    ) -> None:
        self._score = score
        self._key = key
        self._memo: OrderedDict[Hashable, Mapping[str, float]] = OrderedDict()
        self._memo_size = memo_size
        self._inflight: dict[Hashable, Future] = {}
        self._lock = threading.Lock()
        self._executor = executor
        self.computed = 0
        """How many times the scoring function ran (tests, benchmarks)."""

    def _claim(self, key: Hashable) -> tuple[Mapping[str, float] | None, Future | None, bool]:
        """(memoised result, or the key's in-flight future and whether the caller owns it)."""
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key], None, False
            future = self._inflight.get(key)
            if future is not None:
                return None, future, False
            future = self._inflight[key] = Future()
            return None, future, True

    def _compute(self, key: Hashable, future: Future, completion: Any, info: Mapping) -> None:
        """Score, publish to the memo, resolve the in-flight future (never raises)."""
        try:
            result = self._score_safely(completion, info)
        except BaseException as exc:  # KeyboardInterrupt etc.: waiters must not hang
            with self._lock:
                self._inflight.pop(key, None)
            future.set_exception(exc)
            raise
        with self._lock:
            self.computed += 1
            self._memo[key] = result
            self._memo.move_to_end(key)
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
            self._inflight.pop(key, None)
        future.set_result(result)

    def __call__(self, completion: Any, info: Mapping[str, Any]) -> Mapping[str, float]:
        key = self._key(completion, info)
        done, future, owner = self._claim(key)
        if future is None:
            return done  # type: ignore[return-value]
        if owner:
            self._compute(key, future, completion, info)
        return future.result()

    async def ascore(self, completion: Any, info: Mapping[str, Any]) -> Mapping[str, float]:
        """The episode's result, computed in the scoring pool without blocking the loop."""
        key = self._key(completion, info)
        done, future, owner = self._claim(key)
        if future is None:
            return done  # type: ignore[return-value]
        if owner:
            executor = self._executor or scoring_executor()
            try:
                executor.submit(self._compute, key, future, completion, info)
            except RuntimeError:  # the pool was shut down (resized): compute here instead
                self._compute(key, future, completion, info)
        return await asyncio.wrap_future(future)

    def _score_safely(self, completion: Any, info: Mapping[str, Any]) -> Mapping[str, float]:
        try:
            return self._score(completion, info)
        except Exception:
            log.exception("scoring failed for episode %s", info.get("id"))
            return {SCORING_ERROR: 1.0}


async def _component_value(scorer: MemoizedScorer, completion: Any, info: Any, name: str) -> float:
    return float((await scorer.ascore(completion, info)).get(name, 0.0))


def component_rubric(
    scorer: MemoizedScorer,
    names: Sequence[str],
    weights: Mapping[str, float],
    parser: vf.Parser,
) -> vf.Rubric:
    """A rubric with one function per name; names absent from `weights` weigh 0 (metrics).

    Every component reads 0 and `scoring_error` reads 1 when scoring raised. Called from a
    running event loop (verifiers' rubric), a component returns an awaitable that scores in
    the pool; called without one (scripts, tests), it returns the float directly.
    """

    def component(name: str) -> Callable[..., Any]:
        def reward(completion: Any, info: Mapping[str, Any], **_: Any) -> Any:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return float(scorer(completion, info).get(name, 0.0))
            return _component_value(scorer, completion, info, name)

        reward.__name__ = name
        return reward

    all_names = (*names, SCORING_ERROR)
    return vf.Rubric(
        funcs=[component(n) for n in all_names],
        weights=[float(weights.get(n, 0.0)) for n in all_names],
        parser=parser,
    )
