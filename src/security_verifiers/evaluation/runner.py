"""Run models on an environment through verifiers and write the run's artifacts.

Per model: resolve it, open one OpenAI-compatible client, run rollouts concurrently with
`env.run_rollout`, append each finished rollout to results.jsonl, then write summary.json and
the final metadata.json. Re-running the same command resumes an unfinished run.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import random
import time
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import datasets
import httpx2
import openai
import verifiers as vf
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from security_verifiers.environments import EnvEntry, baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.opponent import start_opponent
from security_verifiers.evaluation.preflight import (
    check_sampling,
    check_writable_dir,
    with_filename,
    write_failed_message,
)
from security_verifiers.evaluation.provenance import (
    PACKAGES,
    code_version,
    git_state,
    package_versions,
    platform_info,
)
from security_verifiers.evaluation.records import failed_row, rollout_row
from security_verifiers.evaluation.rollout_copy import check_rollout_log, with_rollout_copy
from security_verifiers.evaluation.run_store import SUMMARY, RunStore, find_resumable, read_json
from security_verifiers.evaluation.stored_text import STORED_TEXT_CAP_CHARS
from security_verifiers.evaluation.summary import is_answer, print_summary_table, summarize
from security_verifiers.models.capabilities import RequestPlan
from security_verifiers.models.chat_client import (
    RETRYABLE_KINDS,
    ROLLOUT_USAGE,
    HarnessChatClient,
    RolloutUsage,
)
from security_verifiers.models.clients import build_client, check_endpoint, request_plan
from security_verifiers.models.local_server import LocalServerPool
from security_verifiers.models.pricing import PRICES_AS_OF, cost_usd
from security_verifiers.models.providers.registry import provider_for, resolve_model, serve
from security_verifiers.models.response_cache import ResponseCache
from security_verifiers.models.spec import ModelSpec, redact, redact_url
from security_verifiers.signals import keep_sigterm_handler
from sv_shared.env_args import allowed_env_args, check_env_args
from sv_shared.env_config import config_of
from sv_shared.rollout_logging import build_rollout_logger
from sv_shared.spec import LoadedEnvInfo

T = TypeVar("T")


class PlainProgress:
    """Progress as plain log lines on a console that is not a terminal (CI, `nohup`, a pipe):
    `done/total`, errors, rate and ETA every `interval_s` seconds, and once at the end."""

    def __init__(
        self,
        label: str,
        *,
        total: int,
        done: int,
        console: Console,
        interval_s: float,
        enabled: bool,
    ) -> None:
        self.label, self.total, self.start_done = label, total, done
        self.done, self.failed = done, 0
        self.console, self.interval_s, self.enabled = console, interval_s, enabled
        self._started = time.monotonic()
        self._task: asyncio.Task | None = None

    def advance(self, *, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)

    def line(self) -> str:
        elapsed = time.monotonic() - self._started
        new = self.done - self.start_done
        rate = new / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = _duration(left / rate) if rate > 0 else "unknown"
        errors = f", {self.failed} errored" if self.failed else ""
        return (
            f"{self.label}: {self.done}/{self.total} rollouts{errors}, "
            f"{rate * 60:.1f}/min, elapsed {_duration(elapsed)}, ETA {eta}"
        )

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            self.console.print(self.line(), markup=False, highlight=False)

    async def __aenter__(self) -> PlainProgress:
        if self.enabled:
            self._started = time.monotonic()
            self.console.print(self.line(), markup=False, highlight=False)
            self._task = asyncio.create_task(self._tick())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            self.console.print(self.line(), markup=False, highlight=False)


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


@dataclass
class ModelRun:
    """The outcome of evaluating one model."""

    spec: ModelSpec
    run_dir: Path
    summary: dict[str, Any]
    resumed_rows: int


def load_env(entry: EnvEntry, env_args: Mapping[str, Any]) -> vf.Environment:
    """Load through verifiers, turning dataset and argument mistakes into user errors.

    Unknown argument names (and, for a typed config, ill-typed values) are rejected before
    anything is built when the environment declares what it accepts (`sv_shared.env_config`,
    `sv_shared.env_args`) or has no `**kwargs` catch-all.
    """
    module = entry.module()
    load = getattr(module, "load_environment", lambda: None)
    config, allowed = config_of(load), allowed_env_args(load)
    try:
        if config is not None:  # names and types, in one line, before anything is built
            config.from_args(entry.env_id, env_args)
        elif allowed is not None:
            check_env_args(entry.env_id, env_args, allowed)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    datasets.disable_progress_bars()
    try:
        with keep_sigterm_handler():  # verifiers' would make SIGTERM exit(143) at once
            return vf.load_environment(entry.env_id, **env_args)
    except RuntimeError as exc:  # verifiers wraps whatever load_environment raised
        cause = exc.__cause__ or exc
        if isinstance(cause, (ValueError, TypeError, OSError)):
            raise UserError(_load_problem(entry, env_args, cause)) from None
        raise
    except (ValueError, TypeError, OSError) as exc:
        raise UserError(_load_problem(entry, env_args, exc)) from None


def _load_problem(entry: EnvEntry, env_args: Mapping[str, Any], exc: BaseException) -> str:
    """One line for a failed load; a decode error names the file it came from."""
    if isinstance(exc, UnicodeDecodeError):
        where = env_args.get("path") or env_args.get("dataset") or "an input file"
        return (
            f"cannot load {entry.env_id}: {where} is not UTF-8 text "
            f"({exc.reason} at byte {exc.start}); is it a binary or compressed file?"
        )
    return redact_url(f"cannot load {entry.env_id}: {exc}")


def _note_skipped_rows(env: vf.Environment, console: Console) -> None:
    """Say so when a lenient load (`strict=false`) dropped malformed input rows."""
    info = LoadedEnvInfo.of(env).dataset_info
    skipped = info.get("skipped") if isinstance(info, Mapping) else None
    if isinstance(skipped, int) and skipped > 0:
        where = info.get("path") or info.get("source") or env.env_id
        console.print(
            f"[yellow]note: {skipped} malformed input row(s) of {redact_url(str(where))} were "
            "skipped (strict=false); the reasons are in the load log and metadata.json "
            "'dataset'[/yellow]"
        )


def select_inputs(env: vf.Environment, n: int | None, seed: int) -> list[dict[str, Any]]:
    """The first `n` examples of the evaluation set in an order fixed by `seed`."""
    dataset = env.get_eval_dataset()
    total = len(dataset)
    if total == 0:
        raise UserError(_no_examples_message(env))
    if n is not None and n < 1:
        raise UserError(f"-n {n}: give a positive number of examples, or -1 for all {total}")
    if n is not None and n > total:
        raise UserError(
            f"N={n} is larger than the dataset ({total} examples in {env.env_id}); "
            f"use -n {total} or fewer"
        )
    order = list(range(total))
    random.Random(seed).shuffle(order)
    chosen = order[: n if n is not None else total]
    return [dataset[i] for i in chosen]


def _no_examples_message(env: vf.Environment) -> str:
    """Why the evaluation set is empty: an input file without rows, or what was left out."""
    info = LoadedEnvInfo.of(env).dataset_info
    info = info if isinstance(info, Mapping) else {}
    path, skipped, excluded = info.get("path"), info.get("skipped"), info.get("excluded")
    if path and info.get("split") in (None, "all") and not skipped and not excluded:
        return redact_url(
            f"{path} has no rows (the file is empty or holds only a header); "
            f"{env.env_id} has nothing to evaluate"
        )
    parts = [f"{key} {info[key]}" for key in ("source", "path", "split") if info.get(key)]
    if skipped:
        parts.append(f"{skipped} malformed row(s) skipped")
    if excluded:
        parts.append(f"rows left out: {excluded}")
    where = f" ({', '.join(parts)})" if parts else ""
    return redact_url(f"{env.env_id} has no examples to evaluate{where}")


def new_run_store(model_dir: Path, run_fingerprint: str) -> RunStore:
    """A fresh run directory named `<UTC time>-<fingerprint[:8]>` (suffixed if taken)."""
    stem = f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{run_fingerprint[:8]}"
    candidate, suffix = model_dir / stem, 1
    while candidate.exists():
        suffix += 1
        candidate = model_dir / f"{stem}-{suffix}"
    candidate.mkdir(parents=True)
    return RunStore(candidate)


def fingerprint(parts: Mapping[str, Any]) -> str:
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def check_config(config: EvalConfig) -> None:
    """Values that cannot work and folders that cannot be written, before any request."""
    check_sampling(config.seed, config.temperature, config.top_p, config.max_tokens)
    check_writable_dir(config.output_root, "--output-dir")
    if config.cache_dir is not None:
        check_writable_dir(config.cache_dir, "--cache-dir")
    if config.rollout_log is not None:
        check_rollout_log(config.rollout_log)


ROLLOUT_LIMITER: contextvars.ContextVar[asyncio.Semaphore | None] = contextvars.ContextVar(
    "sv_rollout_limiter", default=None
)
"""A limit shared by several models' rollouts (a sweep's per-provider concurrency)."""
PLAIN_PROGRESS: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sv_plain_progress", default=False
)
"""Progress as plain lines even on a terminal (models running side by side)."""


async def evaluate(
    config: EvalConfig,
    console: Console | None = None,
    *,
    parallel_models: bool = False,
    limiters: Mapping[str, asyncio.Semaphore] | None = None,
) -> list[ModelRun]:
    """Evaluate every model in `config.models`; returns their runs (artifacts are on disk).

    ``parallel_models`` runs the models side by side (those of a serial provider, local
    models, one after another); ``limiters`` maps a provider kind to a semaphore every
    rollout of that provider's models holds while it runs."""
    console = console or Console(stderr=True)
    logging.getLogger("verifiers").setLevel(logging.CRITICAL)
    check_config(config)
    entry = resolve_env(config.env)
    baselines = baseline_policies(entry)
    repeated = sorted({name for name in config.models if config.models.count(name) > 1})
    if repeated:
        raise UserError(f"--models: '{repeated[0]}' is listed more than once")
    specs = [
        resolve_model(
            name, baselines=baselines, base_url=config.base_url, api_key_env=config.api_key_env
        )
        for name in config.models
    ]
    slugs = [spec.slug for spec in specs]
    same = next((spec for spec in specs if slugs.count(spec.slug) > 1), None)
    if same is not None:
        raise UserError(f"--models: two names evaluate the same model '{same.name}'")
    for spec in specs:  # a bad --capability fails here, before any request
        plan_for(config, spec)
    cache = ResponseCache(config.cache_dir) if config.cache_dir else None
    runs: list[ModelRun] = []
    with LocalServerPool() as local_servers:
        opponent = await start_opponent(config, entry, local_servers, cache)
        try:
            env_args = {**config.env_args, **(opponent.env_args() if opponent else {})}
            loading = time.perf_counter()
            if config.show_progress:
                console.print(f"[dim]Loading {entry.env_id} ...[/dim]")
            env = load_env(entry, env_args)
            # the one LoadedEnvInfo field the harness sets: alone, not via attach(), so the
            # environment's own sv_* attributes stay as it left them (test_tournament reads it)
            env.sv_target = opponent.spec.name if opponent else None
            inputs = select_inputs(env, config.n, config.seed)
            _note_skipped_rows(env, console)
            if config.show_progress:
                console.print(
                    f"[dim]Loaded {entry.env_id} in {_duration(time.perf_counter() - loading)}; "
                    f"evaluating {len(inputs)} examples with {len(specs)} model(s)[/dim]"
                )

            def job(spec: ModelSpec) -> Coroutine[Any, Any, ModelRun]:
                limiter = (limiters or {}).get(provider_for(spec).kind)
                return _limited(
                    _evaluate_with_server(
                        config, entry, env, inputs, spec, baselines, cache, console, local_servers
                    ),
                    limiter,
                    plain=parallel_models,
                )

            together = [s for s in specs if parallel_models and not provider_for(s).serial]
            done: dict[str, ModelRun] = {}
            tasks = [asyncio.ensure_future(job(spec)) for spec in together]
            try:
                for spec, run in zip(together, await asyncio.gather(*tasks), strict=True):
                    done[spec.name] = run
            except BaseException:
                await cancel_all(tasks)
                raise
            for spec in specs:
                if spec.name not in done:
                    done[spec.name] = await job(spec)
            runs = [done[spec.name] for spec in specs]
        finally:
            if opponent is not None:
                await opponent.client.close()
    print_summary_table([(run.spec.name, run.summary) for run in runs], console)
    for run in runs:
        console.print(f"[dim]{run.spec.name}: {run.run_dir}[/dim]")
    return runs


async def _limited(
    coro: Coroutine[Any, Any, T], limiter: asyncio.Semaphore | None, *, plain: bool
) -> T:
    """Run ``coro`` with ``limiter`` held by each of its rollouts (and plain progress)."""
    ROLLOUT_LIMITER.set(limiter)
    PLAIN_PROGRESS.set(plain)
    return await coro


async def _evaluate_with_server(
    config: EvalConfig,
    entry: EnvEntry,
    env: vf.Environment,
    inputs: Sequence[dict[str, Any]],
    spec: ModelSpec,
    baselines: Mapping[str, Any],
    cache: ResponseCache | None,
    console: Console,
    local_servers: LocalServerPool,
) -> ModelRun:
    """Evaluate one model, loading it first when it is a local GGUF (llama.cpp in-process, or
    its server with SV_LOCAL_BACKEND=server) or an `hf:` checkpoint (transformers server):
    whatever its provider's `serve` starts."""
    served = serve(spec, local_servers, console)
    spec, server = served.spec, served.server
    try:
        run = await _evaluate_model(
            config, entry, env, inputs, spec, baselines, cache, console, served.transport
        )
    except UserError as exc:
        if server is not None and not server.alive():
            raise UserError(
                f"{exc}\nthe local model server exited during the run; its log ends:\n"
                f"{server.log_tail()}"
            ) from None
        raise
    if run.summary.get("n_errors") and server is not None and not server.alive():
        raise UserError(
            f"{run.summary['n_errors']} rollouts for '{spec.name}' got no answer: the local "
            f"model server exited during the run; its log ends:\n{server.log_tail()}"
        )
    return run


async def _evaluate_model(
    config: EvalConfig,
    entry: EnvEntry,
    env: vf.Environment,
    inputs: Sequence[dict[str, Any]],
    spec: ModelSpec,
    baselines: Mapping[str, Any],
    cache: ResponseCache | None,
    console: Console,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> ModelRun:
    plan = plan_for(config, spec)
    client = build_client(
        spec,
        baselines=baselines,
        cache=cache,
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
        transport=transport,
        plan=plan,
    )
    try:
        await check_endpoint(client, spec)
        return await _run_rollouts(config, entry, env, inputs, spec, client, cache, console, plan)
    finally:
        await client.close()


def plan_for(config: EvalConfig, spec: ModelSpec) -> RequestPlan:
    """How this run's requests to `spec` are rewritten (`models.capabilities`)."""
    return request_plan(
        spec,
        overrides=config.capability_overrides,
        reasoning_effort=config.reasoning_effort,
        reasoning_budget=config.reasoning_budget,
    )


def sampling_args_for(config: EvalConfig, env: vf.Environment, spec: ModelSpec) -> dict[str, Any]:
    """The config's sampling arguments plus, when enabled, the schema constraint for `spec`."""
    args = config.sampling_args()
    enabled = config.json_schema
    if enabled is None:
        enabled = LoadedEnvInfo.of(env).structured_output_default
    schema = LoadedEnvInfo.of(env).answer_schema
    if enabled and schema:
        constraint = provider_for(spec).response_format(schema)
        if constraint is not None:
            args["response_format"] = constraint
    return args


def _run_identity(
    config: EvalConfig,
    env: vf.Environment,
    inputs: Sequence[dict[str, Any]],
    spec: ModelSpec,
    sampling: Mapping[str, Any],
    plan: RequestPlan,
) -> dict[str, Any]:
    """What makes two runs the same run: data, model, request, reward configuration. The code
    version is added by the caller (`code_version`), so a change of code is told apart."""
    keys = [(row.get("info") or {}).get("id", row["example_id"]) for row in inputs]
    return {
        "env_id": env.env_id,
        "env_args": redact(config.env_args),
        "dataset_hash": LoadedEnvInfo.of(env).dataset_info.get("content_hash"),
        "examples_hash": fingerprint({"keys": keys}),
        "model": spec.name,
        "model_id": spec.model_id,
        "base_url": provider_for(spec).identity_url(spec),
        "gguf": str(spec.gguf) if spec.gguf else None,
        "sampling_args": dict(sampling),
        "request": plan.describe(sampling),
        "truncated": config.truncated,
        "reward_config": LoadedEnvInfo.of(env).reward_config,
        "target": LoadedEnvInfo.of(env).target,
        "seed": config.seed,
        "n": len(inputs),
    }


async def _run_rollouts(
    config: EvalConfig,
    entry: EnvEntry,
    env: vf.Environment,
    inputs: Sequence[dict[str, Any]],
    spec: ModelSpec,
    client: Any,
    cache: ResponseCache | None,
    console: Console,
    plan: RequestPlan,
) -> ModelRun:
    sampling = sampling_args_for(config, env, spec)
    provider = provider_for(spec)
    concurrency = 1 if provider.serial else config.max_concurrent
    identity = _run_identity(config, env, inputs, spec, sampling, plan)
    config_fingerprint = fingerprint(identity)
    code = code_version(entry.module(), entry.env_id)
    run_fingerprint = fingerprint({**identity, "code": code})
    model_dir = config.output_root / f"{entry.env_id}--{spec.slug}"
    store = None
    if config.resume:
        found = find_resumable(model_dir, run_fingerprint, config_fingerprint)
        if found.complete is not None:
            return _already_complete(found.complete, spec, env, console)
        if found.other_code is not None:
            changed = code_changes((found.other_code.metadata() or {}).get("code"), code)
            console.print(
                f"[yellow]note: {found.other_code.dir} was started with other code "
                f"({changed}); its rows are not mixed with this code's: starting a new run "
                "(the old one is kept)[/yellow]"
            )
        store = found.resumable
    previous = store.metadata() if store else None
    if store is None:
        try:
            store = new_run_store(model_dir, run_fingerprint)
        except OSError as exc:
            raise UserError(write_failed_message(exc, None, len(inputs), None)) from None
    with stop_on_write_failure(store, len(inputs)):
        locked = store.lock()
    if not locked:
        raise UserError(f"{store.dir} is being written by another sv process; wait or use --fresh")
    loaded = store.load_results()
    kept = [row for row in loaded if is_answer(row) or not retryable(row)]
    done = {row["example_id"] for row in kept}
    retrying = len({row["example_id"] for row in loaded if not is_answer(row)} - done)
    kept = list({row["example_id"]: row for row in kept}.values())
    with stop_on_write_failure(store, len(inputs)):
        store.rewrite_results(kept)
    attempt = int((previous or {}).get("attempts", 0)) + 1
    todo = [row for row in inputs if row["example_id"] not in done]

    metadata: dict[str, Any] = {
        **identity,
        "fingerprint": run_fingerprint,
        "run_id": store.dir.name,
        "status": "running",
        "attempts": attempt,
        "env": entry.key,
        "model_kind": spec.kind,
        **provider.metadata(spec),
        "dataset": LoadedEnvInfo.of(env).dataset_info or None,
        "tool_versions": LoadedEnvInfo.of(env).tool_versions,
        "config_fingerprint": config_fingerprint,
        "code": code,
        "git": git_state(),
        "attempt_history": [
            *((previous or {}).get("attempt_history") or []),
            {
                "attempt": attempt,
                "started_at": datetime.now(UTC).isoformat(),
                "git": git_state(),
                "code": code,
            },
        ],
        "packages": package_versions((*PACKAGES, entry.env_id)),
        "platform": platform_info(),
        "max_concurrent": concurrency,
        "structured_output": (sampling.get("response_format") or {}).get("type"),
        "max_retries": config.max_retries,
        "timeout_s": config.timeout_s,
        "cache": None,
        "started_at": (previous or {}).get("started_at") or datetime.now(UTC).isoformat(),
        "resumed_rows": len(kept),
        "stored_reply_cap_chars": STORED_TEXT_CAP_CHARS,
    }
    with stop_on_write_failure(store, len(inputs)):
        store.write_metadata(redact(metadata))
    if kept or retrying:
        again = f"; retrying the {retrying} that errored" if retrying else ""
        console.print(
            f"Resuming {store.dir}: {len(kept)} of {len(inputs)} rollouts already scored{again}"
        )

    vf_client = HarnessChatClient(client, plan, truncated_is_error=config.truncated == "error")
    if notice := plan.notice(sampling):
        console.print(f"[dim]{spec.name}: {notice}[/dim]")
    with stop_on_write_failure(store, len(inputs)):
        own_log = build_rollout_logger(
            store.results_path,
            run_name=f"{entry.env_id}--{spec.slug}/{store.dir.name}",
            summary_path=store.dir / SUMMARY,
        )
        rollout_log = with_rollout_copy(
            own_log, config.rollout_log, model=spec.name, env_id=entry.env_id,
            run_id=store.dir.name,
        )  # fmt: skip
    info = LoadedEnvInfo.of(env)
    components = (info.reward_config or {}).get("weights")
    state_columns = list(info.state_columns)
    semaphore = asyncio.Semaphore(concurrency)
    shared_limit = ROLLOUT_LIMITER.get()
    plain_only = PLAIN_PROGRESS.get()
    started = time.perf_counter()
    status = "interrupted"
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not (config.show_progress and console.is_terminal) or plain_only,
        transient=True,
    )
    plain = PlainProgress(
        f"{entry.key} · {spec.name}",
        total=len(inputs),
        done=len(kept),
        console=console,
        interval_s=config.progress_interval_s,
        enabled=config.show_progress and (plain_only or not console.is_terminal),
    )

    results_path = store.results_path

    async def one(row: dict[str, Any], task_id: Any) -> None:
        async with semaphore, shared_limit or contextlib.nullcontext():
            usage = RolloutUsage()
            ROLLOUT_USAGE.set(usage)  # this task's context: its model calls add to it
            try:
                output = await env.run_rollout(
                    row, vf_client, spec.model_id, sampling, state_columns=state_columns
                )
                result = rollout_row(
                    output, env.parser, attempt, components, state_columns, reasoning=usage
                )
            except openai.AuthenticationError:
                raise UserError(
                    f"{spec.base_url} rejected the API key from ${spec.api_key_env} (401)"
                ) from None
            except Exception as exc:  # recorded per rollout; resume retries it
                result = failed_row(row, exc, attempt)
            try:
                rollout_log.log(result)
            except OSError as exc:  # disk full, ...: ends the run (see write_error below)
                raise with_filename(exc, results_path) from None
            progress.advance(task_id)
            plain.advance(failed=not is_answer(result))

    finished = False
    write_error: OSError | None = None
    tasks: list[asyncio.Future[None]] = []
    try:
        with progress:
            async with plain:
                task_id = progress.add_task(
                    f"{entry.key} · {spec.name}", total=len(inputs), completed=len(kept)
                )
                tasks = [asyncio.ensure_future(one(row, task_id)) for row in todo]
                await asyncio.gather(*tasks)
        finished = True
    except OSError as exc:  # a result could not be saved: send no more requests
        write_error = exc
        await cancel_all(tasks)
        with contextlib.suppress(OSError):
            rollout_log.close()
    finally:
        retrieve_exceptions(tasks)
        rows = store.load_results()
        if finished:
            scored = {row["example_id"] for row in rows if is_answer(row)}
            every = all(row["example_id"] in scored for row in inputs)
            status = "complete" if every else "partial"
        elapsed = time.perf_counter() - started
        metadata.update(
            _final_fields(config, spec, rows, elapsed, len(todo), cache, status, attempt)
        )
        metadata["request"] = {**identity["request"], "changes_seen": dict(plan.seen)}
        try:
            store.write_metadata(redact(metadata))
        except OSError as exc:
            write_error = write_error or exc
        store.unlock()
        if not finished and write_error is None:
            with contextlib.suppress(OSError):  # a full disk must not hide the interrupt
                rollout_log.close()
            console.print(
                f"[yellow]Stopped: {len(rows)} of {len(inputs)} rollouts saved in {store.dir}; "
                f"rerun the same command to resume.[/yellow]"
            )

    summary: dict[str, Any] = {}
    if write_error is None:
        summary = summarize(
            rows,
            payoffs=LoadedEnvInfo.of(env).payoffs,
            seed=config.seed,
            env_metrics=LoadedEnvInfo.of(env).metrics,
        )
        summary.update({"model": spec.name, "env_id": env.env_id, "run_id": store.dir.name})
        summary = redact(summary)
        try:
            rollout_log.log_summary(summary)
        except OSError as exc:  # a run without summary.json is resumed (find_resumable)
            write_error = with_filename(exc, store.dir / SUMMARY)
    with contextlib.suppress(OSError):  # every line was flushed when it was written
        rollout_log.close()
    if write_error is not None:
        raise UserError(write_failed_message(write_error, len(rows), len(inputs), store.dir))
    return ModelRun(spec=spec, run_dir=store.dir, summary=summary, resumed_rows=len(kept))


@contextlib.contextmanager
def stop_on_write_failure(store: RunStore, total: int) -> Iterator[None]:
    """A failed write (disk full, read-only, ...) ends the run in one line naming the file,
    what is saved and how to resume."""
    try:
        yield
    except OSError as exc:
        store.unlock()
        saved = len(store.load_results())
        raise UserError(write_failed_message(exc, saved, total, store.dir)) from None


async def cancel_all(tasks: Sequence[asyncio.Future[Any]]) -> None:
    """Cancel the tasks still running and wait until they have stopped."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def code_changes(before: Any, now: Mapping[str, Any]) -> str:
    """What differs between two `code_version` records, in words."""
    if not isinstance(before, Mapping):
        return "its code version was not recorded"
    names = {"env_code_sha256": "environment code", "sv_shared_sha256": "sv_shared",
             "harness_sha256": "harness code"}  # fmt: skip
    changed = [label for key, label in names.items() if before.get(key) != now.get(key)]
    old_packages, new_packages = before.get("packages") or {}, now.get("packages") or {}
    changed += [
        f"{name} {old_packages.get(name)} -> {version}"
        for name, version in new_packages.items()
        if old_packages.get(name) != version
    ]
    return ", ".join(changed) or "code"


def _price_record(config: EvalConfig, price: tuple[float, float] | None) -> dict[str, Any]:
    """The price a run's cost was computed with, and where it came from."""
    if config.price_usd_per_mtok:
        source = "--price-in/--price-out"
    else:
        source = f"list price as of {PRICES_AS_OF}" if price else "unknown"
    return {
        "input": price[0] if price else None,
        "output": price[1] if price else None,
        "source": source,
    }


def retryable(row: Mapping[str, Any]) -> bool:
    """An errored row a rerun retries: a transient failure, not one the same request repeats
    (a prompt over the context, a reply cut by the cap, a rejected request)."""
    return row.get("error_kind") in RETRYABLE_KINDS or row.get("error_kind") is None


def _already_complete(
    store: RunStore, spec: ModelSpec, env: vf.Environment, console: Console
) -> ModelRun:
    """The finished run of this exact command: nothing is requested again."""
    console.print(f"already complete: {store.dir} (pass --fresh to run it again)")
    summary = read_json(store.dir / SUMMARY) or {}
    summary = {**summary, "model": spec.name, "env_id": env.env_id, "run_id": store.dir.name}
    return ModelRun(spec=spec, run_dir=store.dir, summary=summary, resumed_rows=0)


def run_interruptible(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)`, except that a task a Ctrl-C ended is not reported at exit. The
    KeyboardInterrupt lands in whichever task runs at that moment (a rollout, the progress
    line, an HTTP client's); asyncio would print that task's traceback ("Task exception was
    never retrieved") after the run's own message."""
    with asyncio.Runner() as runner:
        runner.get_loop().set_exception_handler(_skip_interrupted_tasks)
        return runner.run(coro)


def _skip_interrupted_tasks(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if not isinstance(context.get("exception"), KeyboardInterrupt):
        loop.default_exception_handler(context)


def retrieve_exceptions(tasks: list[asyncio.Future[Any]]) -> None:
    """Mark the finished tasks' exceptions as seen. A Ctrl-C that lands while a rollout task
    runs ends that task with KeyboardInterrupt and stops the loop; unretrieved, asyncio would
    print its traceback ("Task exception was never retrieved") after the run's own message."""
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()


def _final_fields(
    config: EvalConfig,
    spec: ModelSpec,
    rows: Sequence[Mapping[str, Any]],
    elapsed: float,
    attempted: int,
    cache: ResponseCache | None,
    status: str,
    attempt: int,
) -> dict[str, Any]:
    provider = provider_for(spec)
    tokens_in = sum(int(r.get("tokens", {}).get("input", 0)) for r in rows)
    tokens_out = sum(int(r.get("tokens", {}).get("output", 0)) for r in rows)
    tokens_reasoning = sum(int(r.get("tokens", {}).get("reasoning", 0) or 0) for r in rows)
    price = config.price_usd_per_mtok or provider.price(spec.model_id)
    this_attempt = [r for r in rows if r.get("attempt") == attempt]
    new_in = sum(int(r.get("tokens", {}).get("input", 0)) for r in this_attempt)
    new_out = sum(int(r.get("tokens", {}).get("output", 0)) for r in this_attempt)
    return {
        "status": status,
        "finished_at": datetime.now(UTC).isoformat(),
        "n_completed": len(rows),
        "n_scored": sum(1 for r in rows if is_answer(r)),
        "n_errors": sum(1 for r in rows if not is_answer(r)),
        "timings": {
            "this_attempt_s": round(elapsed, 3),
            "rollouts_this_attempt": attempted,
            "rollouts_per_hour": round(attempted / elapsed * 3600, 1) if elapsed > 0 else None,
            "output_tokens_per_s": round(new_out / elapsed, 2) if elapsed > 0 else None,
            "total_tokens_per_s": round((new_in + new_out) / elapsed, 2) if elapsed > 0 else None,
        },
        "token_usage": {"input": tokens_in, "output": tokens_out, "reasoning": tokens_reasoning},
        "cost_usd": cost_usd(tokens_in, tokens_out, price, free=provider.free),
        "price_usd_per_mtok": None if provider.free else _price_record(config, price),
        "cache": cache.stats() if cache else None,
    }
