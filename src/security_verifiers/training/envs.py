"""Loading the environments a recipe trains on: training split, config reward weights, rows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from security_verifiers.environments import EnvEntry, resolve_env
from security_verifiers.errors import UserError
from sv_shared.spec import LoadedEnvInfo

T = TypeVar("T")


class LoopThread:
    """A private asyncio loop in a daemon thread: environment clients (and the async code of
    verifiers) stay bound to one loop for the whole training run, whoever calls in."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="sv-env")
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops training like Ctrl-C (checkpoint saved, status `interrupted`).

    verifiers' Environment installs a SIGTERM handler that exits at once (status 143); it is
    replaced for the duration of training and restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@dataclass
class TrainingEnv:
    """One environment loaded for training, with the rows it trains on."""

    key: str
    entry: EnvEntry
    env: Any
    rows: list[dict[str, Any]]
    split: str
    """"train" when the environment has one; otherwise "all" (no held-out split exists)."""

    @property
    def dataset_hash(self) -> str | None:
        return LoadedEnvInfo.of(self.env).dataset_info.get("content_hash")

    @property
    def prompt_style(self) -> str:
        """How the prompts are rendered ("default" or "compact"; see the env's prompts.py)."""
        info = LoadedEnvInfo.of(self.env).dataset_info
        return str(info.get("prompt_style") or "default")

    def reward_config(self) -> Any:
        return LoadedEnvInfo.of(self.env).reward_config


def load_training_env(
    name: str,
    env_args: dict[str, Any],
    *,
    reward_weights: dict[str, float] | None = None,
    max_examples: int | None = None,
    field: str = "envs",
    source: Path | None = None,
) -> TrainingEnv:
    """Load `name` through verifiers with `env_args` (+ reward weights) and take its rows.

    The rows are the evaluation set of the environment loaded with `split=train` (E1-E4); E5
    and E6 ship one set only, so they train on all of it (recorded as split "all") unless
    `dataset=` names a build, whose train split they then use.
    """
    from security_verifiers.evaluation.runner import load_env

    entry = resolve_env(name)
    args = dict(env_args)
    if reward_weights:
        args["reward_weights"] = dict(reward_weights)
    try:
        env = load_env(entry, args)
    except UserError as exc:
        where = f"{source}: {field}.{name}" if source else f"{field}.{name}"
        raise UserError(f"{where}: {exc}") from None
    dataset = env.get_eval_dataset()
    rows = [dict(dataset[i]) for i in range(len(dataset))]
    if max_examples is not None:
        rows = rows[:max_examples]
    info = LoadedEnvInfo.of(env).dataset_info
    split = str(info.get("split") or args.get("split") or "all")
    if entry.spec.build_only_split and info.get("source") != "dataset":
        split = "all"  # only a build of `sv data build` gives them a held-out split
    return TrainingEnv(entry.key, entry, env, rows, split)


def row_info(row: dict[str, Any]) -> dict[str, Any]:
    """A row's `info` as a dict (datasets may store it as a JSON string)."""
    info = row.get("info") or {}
    if isinstance(info, str):
        info = json.loads(info)
    return info if isinstance(info, dict) else {}


def row_key(row: dict[str, Any]) -> str:
    """A stable id of a row: its `info.id` when present, else its example id."""
    return str(row_info(row).get("id", row.get("example_id")))
