"""`sv`: the Security Verifiers command line."""

from __future__ import annotations

import inspect
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import pydantic
import typer
from rich.console import Console
from rich.markup import escape

from security_verifiers.data.cli import data_app, synth_command
from security_verifiers.env_file import load_env_file
from security_verifiers.environments import (
    ENVIRONMENTS,
    baseline_policies,
    default_env,
    resolve_env,
)
from security_verifiers.errors import Interrupted, RolloutsFailed, UserError
from security_verifiers.models.capabilities import DEFAULT_REASONING_BUDGET
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL, local_runtime_available
from security_verifiers.models.providers.registry import providers
from security_verifiers.models.spec import redact_url
from security_verifiers.signals import install_sigterm_handler

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Security Verifiers: evaluate models on executable-reward security environments.",
)
console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
DEFAULT_OFFLINE_MODEL = "heuristic"


def parse_env_args(pairs: list[str], json_blob: str | None) -> dict[str, Any]:
    """`key=value` pairs (values read as JSON when they parse, else as strings) over a JSON blob."""
    args: dict[str, Any] = {}
    if json_blob:
        try:
            loaded = json.loads(json_blob)
        except json.JSONDecodeError as exc:
            raise UserError(f"--env-args is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UserError("--env-args must be a JSON object")
        args.update(loaded)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--env-arg '{pair}': expected KEY=VALUE")
        try:
            args[key] = json.loads(raw)
        except json.JSONDecodeError:
            args[key] = raw
    return args


def default_models(api_key_env: str, base_url: str | None, env: str | None = None) -> list[str]:
    """A remote model when a key is configured, else the local LLM (or, without it, the
    built-in heuristic)."""
    if os.environ.get(api_key_env) and not base_url and not os.environ.get("OPENAI_BASE_URL"):
        return [DEFAULT_REMOTE_MODEL]
    offline = DEFAULT_LOCAL_MODEL if local_runtime_available() else DEFAULT_OFFLINE_MODEL
    key = resolve_env(env).key if env else default_env()
    console.print(
        f"[dim]No models given and no ${api_key_env}: using '{offline}'. "
        f"Pass --models to choose (see `sv models {key}`).[/dim]"
    )
    return [offline]


def check_eval_numbers(n: int, max_concurrent: int, max_retries: int, timeout: float) -> None:
    """One-line errors for option values that cannot work (before anything is loaded)."""
    if n == 0 or n < -1:
        raise UserError(f"-n {n}: give a positive number of examples, or -1 for all")
    if max_concurrent < 1:
        raise UserError(f"--max-concurrent {max_concurrent}: must be 1 or more")
    if max_retries < 0:
        raise UserError(f"--max-retries {max_retries}: must be 0 or more")
    if not timeout > 0:
        raise UserError(f"--timeout {timeout}: must be more than 0 seconds")


def check_reasoning_options(effort: str | None, budget: int, max_tokens: int) -> None:
    """One-line errors for reasoning options that cannot work."""
    from security_verifiers.models.capabilities import REASONING_EFFORTS

    if effort is not None and effort not in REASONING_EFFORTS:
        choices = ", ".join(REASONING_EFFORTS)
        raise UserError(f"--reasoning-effort {effort}: expected one of {choices}")
    if budget < 0:
        raise UserError(f"--reasoning-budget {budget}: must be 0 or more")
    if max_tokens < 1:
        raise UserError(f"--max-tokens {max_tokens}: must be 1 or more")


def config_error(exc: pydantic.ValidationError) -> UserError:
    """The first problem of an invalid configuration, as one line naming the option."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or "configuration"
    return UserError(f"--{field.replace('_', '-')}: {first.get('msg', 'invalid value')}")


def failed_rollouts_message(runs: Sequence[Any]) -> str | None:
    """One line when some rollouts got no answer: how many, why (by kind, the first error of
    each) and what fits — a retry for transient failures, a change for the others."""
    from security_verifiers.models.chat_client import HINTS

    errored = [(run, run.summary.get("n_errors") or 0) for run in runs]
    errored = [(run, k) for run, k in errored if k]
    if not errored:
        return None
    total = sum(run.summary.get("n_rollouts") or 0 for run, _ in errored)
    count = sum(k for _, k in errored)
    models = ", ".join(f"'{run.spec.name}'" for run, _ in errored)
    kinds: dict[str, int] = {}
    firsts: dict[str, str] = {}
    for run, _ in errored:
        for kind, k in (run.summary.get("errors_by_kind") or {}).items():
            kinds[kind] = kinds.get(kind, 0) + k
        for kind, text in (run.summary.get("first_error_by_kind") or {}).items():
            firsts.setdefault(kind, text)
    if not kinds:  # a summary written before error kinds existed
        first = next((run.summary.get("first_error") for run, _ in errored), None)
        return (
            f"{count} of {total} rollouts ({models}) got no answer from the model and are not "
            f"scored{f' (first: {first})' if first else ''}; rerun the same command to retry them"
        )
    parts = []
    for kind, k in sorted(kinds.items(), key=lambda item: -item[1]):
        first = firsts.get(kind)
        parts.append(
            f"{k} {kind}{f' (first: {first})' if first else ''}: {HINTS.get(kind, HINTS['error'])}"
        )
    return (
        f"{count} of {total} rollouts ({models}) got no answer from the model and are not "
        f"scored — " + "; ".join(parts)
    )


@app.command("eval")
def eval_command(
    env: Annotated[str, typer.Argument(help="Environment: e1 or sv-env-network-logs, ...")],
    models: Annotated[
        str, typer.Option("--models", "-m", help="Comma-separated model names.")
    ] = "",
    n: Annotated[int, typer.Option("-n", "--num-examples", help="Examples; -1 = all.")] = 32,
    seed: Annotated[int, typer.Option(help="Example order and sampling seed.")] = 42,
    max_concurrent: Annotated[int, typer.Option(help="Concurrent rollouts per model.")] = 16,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    top_p: Annotated[float | None, typer.Option(help="Nucleus sampling.")] = None,
    max_tokens: Annotated[
        int,
        typer.Option(help="Answer token limit (reasoning models get --reasoning-budget more)."),
    ] = 512,
    reasoning_effort: Annotated[
        str | None,
        typer.Option(
            help="Reasoning effort (none, minimal, low, medium, high, xhigh) for models that "
            "accept it; dropped, and recorded, for the others."
        ),
    ] = None,
    reasoning_budget: Annotated[
        int,
        typer.Option(help="Completion tokens reserved for reasoning on top of --max-tokens."),
    ] = DEFAULT_REASONING_BUDGET,
    truncated: Annotated[
        str,
        typer.Option(
            "--truncated",
            help="A reply cut by the token cap: 'error' (an error row, left out of the "
            "metrics) or 'score' (scored as it stands, when a short cap is by design).",
        ),
    ] = "error",
    capability: Annotated[
        list[str] | None,
        typer.Option(
            "--capability",
            help="KEY=VALUE overriding what the model accepts (temperature, top_p, seed, "
            "reasoning_effort: true/false; token_param; reasoning; family). See `sv models`.",
        ),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible base URL (vLLM, TGI, OpenRouter).")
    ] = None,
    api_key_env: Annotated[str, typer.Option(help="Variable holding the API key.")] = (
        "OPENAI_API_KEY"
    ),
    env_arg: Annotated[
        list[str] | None, typer.Option("--env-arg", help="KEY=VALUE for load_environment.")
    ] = None,
    env_args: Annotated[
        str | None, typer.Option("--env-args", help="JSON object for load_environment.")
    ] = None,
    target: Annotated[
        str | None,
        typer.Option(help="Opponent model for environments with one (E5: the attacked model)."),
    ] = None,
    output_dir: Annotated[Path, typer.Option("--output-dir", help="Artifact root.")] = Path(
        "outputs/evals"
    ),
    out: Annotated[Path | None, typer.Option("--out", "-o", hidden=True)] = None,
    cache: Annotated[
        bool, typer.Option("--cache/--no-cache", help="Reuse identical responses from disk.")
    ] = False,
    cache_dir: Annotated[Path, typer.Option(help="Response cache location.")] = Path(
        "outputs/cache/responses"
    ),
    rollout_log: Annotated[
        Path | None,
        typer.Option(
            "--rollout-log",
            help="Also append every rollout record to this JSONL file (results.jsonl stays the "
            "record).",
        ),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start a new run instead of resuming.")
    ] = False,
    max_retries: Annotated[int, typer.Option(help="Retries on 429/5xx/timeouts.")] = 5,
    timeout: Annotated[float, typer.Option(help="Per-request timeout, seconds.")] = 120.0,
    price_in: Annotated[float | None, typer.Option(help="USD per 1M input tokens.")] = None,
    price_out: Annotated[float | None, typer.Option(help="USD per 1M output tokens.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    json_schema: Annotated[
        bool | None,
        typer.Option(
            "--json-schema/--no-json-schema",
            help="Ask for schema-constrained JSON (llama.cpp, vLLM, OpenAI, Anthropic, Gemini). "
            "Default: per env.",
        ),
    ] = None,
) -> None:
    """Evaluate models on an environment; artifacts go to OUTPUT_DIR/<env>--<model>/<run_id>/."""
    from security_verifiers.evaluation.config import EvalConfig
    from security_verifiers.evaluation.runner import evaluate, run_interruptible

    check_eval_numbers(n, max_concurrent, max_retries, timeout)
    check_reasoning_options(reasoning_effort, reasoning_budget, max_tokens)
    if truncated not in ("error", "score"):
        raise UserError(f"--truncated {truncated}: expected error or score")
    names = [m for m in (s.strip() for s in models.split(",")) if m] or default_models(
        api_key_env, base_url, env
    )
    price = (price_in, price_out) if price_in is not None and price_out is not None else None
    try:
        config = EvalConfig(
            env=env,
            models=names,
            n=None if n == -1 else n,
            seed=seed,
            max_concurrent=max_concurrent,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            reasoning_effort=reasoning_effort,
            reasoning_budget=reasoning_budget,
            capability_overrides=capability or [],
            truncated=truncated,
            env_args=parse_env_args(env_arg or [], env_args),
            target=target,
            output_root=out or output_dir,
            cache_dir=cache_dir if cache else None,
            rollout_log=rollout_log,
            resume=not fresh,
            base_url=base_url,
            api_key_env=api_key_env,
            max_retries=max_retries,
            timeout_s=timeout,
            price_usd_per_mtok=price,
            show_progress=not quiet,
            json_schema=json_schema,
        )
    except pydantic.ValidationError as exc:
        raise config_error(exc) from None
    try:
        runs = run_interruptible(evaluate(config, console))
    except KeyboardInterrupt:
        raise Interrupted from None
    message = failed_rollouts_message(runs)
    if message:
        raise RolloutsFailed(message)


@app.command("tournament")
def tournament_command(
    attackers: Annotated[str, typer.Option(help="Comma-separated attacker models (E5 policy).")],
    defenders: Annotated[str, typer.Option(help="Comma-separated defender (target) models.")],
    n: Annotated[int, typer.Option("-n", "--num-examples", help="Behaviors per cell.")] = 16,
    seed: Annotated[int, typer.Option(help="Behavior order and sampling seed.")] = 42,
    max_tokens: Annotated[int, typer.Option(help="Attacker completion token limit.")] = 256,
    env_arg: Annotated[
        list[str] | None, typer.Option("--env-arg", help="KEY=VALUE for E5's load_environment.")
    ] = None,
    output_dir: Annotated[Path, typer.Option(help="Tournament root.")] = Path(
        "outputs/tournaments"
    ),
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Attack-success matrix: every attacker against every defender on E5."""
    from security_verifiers.evaluation.config import EvalConfig
    from security_verifiers.evaluation.runner import run_interruptible
    from security_verifiers.tournament import play_round, print_matrix

    def names(value: str) -> list[str]:
        return [m for m in (s.strip() for s in value.split(",")) if m]

    if not names(attackers) or not names(defenders):
        raise typer.BadParameter("give at least one attacker and one defender")
    check_eval_numbers(n, 1, 0, 1.0)
    try:
        base = EvalConfig(env=default_env("needs_target"), models=[], seed=seed,
                          n=None if n == -1 else n,
                          max_tokens=max_tokens, env_args=parse_env_args(env_arg or [], None),
                          show_progress=not quiet and sys.stderr.isatty())  # fmt: skip
    except pydantic.ValidationError as exc:
        raise config_error(exc) from None
    try:
        result = run_interruptible(
            play_round(names(attackers), names(defenders), base, output_dir, console)
        )
    except KeyboardInterrupt:
        raise Interrupted from None
    print_matrix(result, console)
    errored = 0
    for runs in result.runs.values():
        for run_dir in runs.values():
            summary_path = Path(run_dir) / "summary.json"
            if summary_path.is_file():
                errored += json.loads(summary_path.read_text()).get("n_errors") or 0
    if errored:
        raise RolloutsFailed(
            f"{errored} rollouts got no answer from a model; the matrix leaves them out "
            f"(their errors are in the runs' results.jsonl under {result.directory})"
        )


from security_verifiers.evaluation.sweep_command import eval_set  # noqa: E402
from security_verifiers.gate.command import gate, scoreboard  # noqa: E402
from security_verifiers.probe_command import probe  # noqa: E402
from security_verifiers.reports.command import report as _report  # noqa: E402
from security_verifiers.reports.export_command import export_inspect  # noqa: E402
from security_verifiers.reports.sample_command import sample  # noqa: E402
from security_verifiers.sim2real.command import sim2real  # noqa: E402
from security_verifiers.tracking import track  # noqa: E402
from security_verifiers.training.cli import train_app  # noqa: E402


def with_output_dir(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` with its `out` option spelled `--output-dir` (as in `sv eval`); `--out` / `-o`
    stay accepted as a hidden alias. Other parameters pass through unchanged."""
    signature = inspect.signature(command, eval_str=True)
    if "out" not in signature.parameters or "output_dir" in signature.parameters:
        return command
    original = signature.parameters["out"]
    help_text = "Output folder."
    for meta in getattr(original.annotation, "__metadata__", ()):
        help_text = getattr(meta, "help", None) or help_text
    if original.default not in (None, inspect.Parameter.empty):
        help_text = f"{help_text} (default: {original.default})"
    params = []
    for param in signature.parameters.values():
        if param.name != "out":
            params.append(param)
            continue
        params.append(
            param.replace(
                name="output_dir",
                annotation=Annotated[Path | None, typer.Option("--output-dir", help=help_text)],
                default=None,
            )
        )
        params.append(
            param.replace(
                annotation=Annotated[Path | None, typer.Option("--out", "-o", hidden=True)],
                default=None,
            )
        )

    def wrapper(**kwargs: Any) -> Any:
        chosen = kwargs.pop("output_dir", None) or kwargs.pop("out", None)
        kwargs.pop("out", None)
        return command(**kwargs, **({"out": chosen} if chosen is not None else {}))

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__doc__ = command.__doc__
    wrapper.__name__ = getattr(command, "__name__", "command")
    return wrapper


report = with_output_dir(_report)
app.command("report")(report)
app.command("eval-set")(eval_set)
app.command("sample")(sample)
app.command("export-inspect")(export_inspect)
app.command("gate")(gate)
app.command("probe")(probe)
app.command("scoreboard")(scoreboard)
app.command("sim2real")(sim2real)
app.add_typer(data_app, name="data")
app.command("synth")(with_output_dir(synth_command))
app.command("track")(track)
app.add_typer(train_app, name="train")


@app.command("envs")
def envs_command(
    env: Annotated[str | None, typer.Argument(help="Show this environment only.")] = None,
    args: Annotated[
        bool, typer.Option("--args", help="Print the environment's arguments (typed config).")
    ] = False,
    key: Annotated[
        str | None, typer.Option("--key", help="Print only the short name of this environment.")
    ] = None,
) -> None:
    """List the environments (every installed package that registers an EnvSpec)."""
    if key is not None:
        typer.echo(resolve_env(key).key)
        return
    if args and env is None:
        raise UserError("--args: name the environment, e.g. `sv envs network-logs --args`")
    if env is not None:
        from security_verifiers.env_config_view import format_args

        entry = resolve_env(env)
        typer.echo(
            format_args(entry) if args else f"{entry.key}\t{entry.env_id}\t{entry.spec.summary}"
        )
        return
    for entry in ENVIRONMENTS.values():
        typer.echo(f"{entry.key}\t{entry.env_id}")


@app.command("new-env")
def new_env_command(
    name: Annotated[str, typer.Argument(help="Name, e.g. `dns-tunnels` -> sv-env-dns-tunnels.")],
    key: Annotated[
        str | None, typer.Option(help="Short key (default: one past the largest installed).")
    ] = None,
    dest: Annotated[Path, typer.Option(help="Folder to create it in.")] = Path("environments"),
) -> None:
    """Create an environment package from the template (tests/example_env)."""
    from security_verifiers.new_env import create

    target = create(name, dest, key)
    typer.echo(f"created {target}")
    typer.echo("next: make setup; sv envs; sv probe <key>; see its README.md")


@app.command("models")
def models_command(
    env: Annotated[
        str | None, typer.Argument(help="Environment (default: the first `sv envs` lists).")
    ] = None,
) -> None:
    """The built-in models of an environment (oracles marked) and the other model providers."""
    entry = resolve_env(env or default_env())
    oracles = entry.spec.oracles
    typer.echo(f"Built-in models of {entry.key} ({entry.env_id}), answered in-process:")
    names = sorted(baseline_policies(entry))
    width = max((len(n) for n in names), default=0)
    for name in names:
        note = f"oracle: {oracles[name]}" if name in oracles else "baseline (sees the prompt only)"
        typer.echo(f"  {name:<{width}}  {note}")
    if oracles:
        typer.echo("  (oracles read the labels or the scoring tools: an upper bound, not a model)")
    sections: dict[str, list[tuple[str, str]]] = {}
    for provider in providers():
        if lines := provider.help_lines():
            sections.setdefault(provider.section, []).extend(lines)
    for section, lines in sections.items():
        typer.echo(f"{section}:")
        for form, note in lines:
            typer.echo(f"  {form}  {note}")
    typer.echo("What each family accepts (matched by model id; --capability KEY=VALUE overrides):")
    for provider in providers():
        for pattern, caps in provider.capability_table():
            rejects = [n for n in ("temperature", "top_p", "seed") if not getattr(caps, n)]
            typer.echo(
                f"  {provider.kind:<10} {caps.family:<20} /{pattern}/  {caps.token_param}"
                f"{', no ' + '/'.join(rejects) if rejects else ''}"
                f"{', reasoning_effort' if caps.reasoning_effort else ''}"
                f"{', reasoning: ' + caps.reasoning if caps.reasons else ''}"
            )


@app.command("serve")
def serve_command(
    env: Annotated[
        str | None,
        typer.Argument(help="Environment whose baseline to serve (default: the first listed)."),
    ] = None,
    policy: Annotated[str, typer.Option(help="Built-in model to serve.")] = "heuristic",
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8000,
    latency: Annotated[float, typer.Option(help="Simulated seconds per completion.")] = 0.0,
) -> None:
    """Serve a built-in model over the OpenAI chat-completions protocol on 127.0.0.1."""
    from security_verifiers.serving import PolicyServer, serve_forever

    policies = baseline_policies(resolve_env(env or default_env()))
    if policy not in policies:
        raise UserError(f"unknown built-in model '{policy}'; available: {', '.join(policies)}")
    console.print(f"Serving '{policy}' at http://127.0.0.1:{port}/v1 (Ctrl-C to stop)")
    serve_forever(PolicyServer(policies[policy], policy, latency_s=latency), port=port)


def main() -> None:
    """Entry point: user mistakes print one line and exit 2 (usage errors too); rollouts that
    got no answer from the model exit 1 (rerunning retries them); Ctrl-C or SIGTERM exits 130
    after saving what finished and stopping any local model server. Variables of ./.env that
    are not set already are set first (`env_file`; SV_NO_DOTENV=1 skips it)."""
    install_sigterm_handler()
    try:
        load_env_file()
        app()
    except UserError as exc:
        console.print(
            f"[red]error:[/red] {escape(redact_url(str(exc)))}", highlight=False, soft_wrap=True
        )
        raise SystemExit(2) from None
    except RolloutsFailed as exc:
        console.print(
            f"[red]error:[/red] {escape(redact_url(str(exc)))}", highlight=False, soft_wrap=True
        )
        raise SystemExit(1) from None
    except (Interrupted, KeyboardInterrupt):
        console.print("[yellow]interrupted[/yellow]")
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
