"""`sv probe eN`: run an environment's reward-hacking probe suite and print its table.

Each environment package that ships a probe suite names it in its spec (`EnvSpec.probe_suite`,
by convention `<package>.probes:probe_suite`). The command
prints probe | kind | mean reward | share of the way from the reward's minimum to the reference
solution | limit | verdict, writes the report as JSON when asked, and exits 1 when a known hack
is above its limit (so `make probes` fails CI the same way).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from security_verifiers.environments import ENVIRONMENTS, EnvEntry, resolve_env
from security_verifiers.errors import UserError
from sv_shared.probes import ProbeReport, ProbeSuite, run_probes
from sv_shared.spec import load_hook


def load_suite(entry: EnvEntry, name: str | None = None) -> ProbeSuite:
    """The environment's probe suite (`EnvSpec.probe_suite`, or the one of
    `EnvSpec.more_probe_suites` called `name`); a clear error when there is none."""
    entry.module()  # a clear error when the environment is not installed
    if name is not None:
        ref = entry.spec.more_probe_suites.get(name)
        if ref is None:
            known = ", ".join(sorted(entry.spec.more_probe_suites)) or "none"
            raise UserError(f"--suite: {entry.key} has no probe suite {name!r} (known: {known})")
        return load_hook(ref)()
    factory = entry.hook("probe_suite")
    if factory is None:
        raise UserError(f"{entry.key} ({entry.env_id}) ships no probe suite yet")
    return factory()


def available_suites() -> list[EnvEntry]:
    """Installed environments whose spec names a probe suite."""
    found = []
    for entry in ENVIRONMENTS.values():
        try:
            if entry.spec.probe_suite:
                entry.module()
                found.append(entry)
        except UserError:
            continue
    return found


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def probe(
    envs: Annotated[
        list[str] | None,
        typer.Argument(help="Environments (e2 e3 ...); default: every environment with a suite."),
    ] = None,
    n: Annotated[
        int | None, typer.Option("-n", "--limit", help="Episodes per suite (default: all).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Episode order seed.")] = 42,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Run only this probe (repeatable).")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the reports as JSON here.")
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress lines on stderr.")] = False,
    suite_name: Annotated[
        str | None,
        typer.Option(
            "--suite", help="Run the environment's named extra suite (e.g. e3 --suite detect)."
        ),
    ] = None,
) -> None:
    """Score adversarial policies with an environment's own reward; exit 1 if a hack pays."""
    if n is not None and n < 1:
        raise UserError(f"--limit must be at least 1, got {n}")
    entries = [resolve_env(e) for e in envs] if envs else available_suites()
    if not entries:
        raise UserError("no installed environment ships a probe suite")
    reports: list[ProbeReport] = []
    if suite_name is not None and len(entries) != 1:
        raise UserError("--suite names one environment's suite: give exactly one environment")
    for entry in entries:
        suite = load_suite(entry, suite_name)
        try:
            report = run_probes(
                suite,
                limit=n,
                seed=seed,
                only=only or (),
                progress=None if quiet else _progress,
            )
        except ValueError as exc:
            raise UserError(str(exc)) from None
        reports.append(report)
        typer.echo(report.table())
        typer.echo("")
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps([r.to_json() for r in reports], indent=2) + "\n")
    failures = [(r.env, row.name) for r in reports for row in r.failures]
    if failures:
        listed = ", ".join(f"{env}:{name}" for env, name in failures)
        typer.echo(f"FAIL: hacks above their limit: {listed}", err=True)
        raise typer.Exit(1)
