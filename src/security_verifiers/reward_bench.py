"""`make bench` (reward part): each environment's reward micro-benchmark, in turn.

    python -m security_verifiers.reward_bench [ENV ...] [-- ARGS ...]

Runs the `main(argv)` its spec's `reward_bench` hook names for every environment given (any
name `sv` accepts), or for every installed environment that has one when none is given, each
after a heading line. ARGS after ``--`` go to every benchmark run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from security_verifiers.environments import EnvEntry, entries_with, resolve_env
from security_verifiers.errors import UserError

Bench = Callable[[list[str]], object]


def benchmarks(names: Sequence[str]) -> list[tuple[EnvEntry, Bench]]:
    """(entry, its `reward_bench` main) of each named environment, or of all that have one."""
    entries = [resolve_env(name) for name in names] if names else entries_with("reward_bench")
    found: list[tuple[EnvEntry, Bench]] = []
    for entry in entries:
        main = entry.hook("reward_bench")
        if main is None:
            raise UserError(f"environment '{entry.key}' ({entry.env_id}) has no reward benchmark")
        found.append((entry, main))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("envs", nargs="*", metavar="ENV", help="default: every one that has one")
    opts = parser.parse_args(args)
    try:
        runs = benchmarks(opts.envs)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for entry, bench in runs:
        print(f"== {entry.key} ({entry.env_id}): reward micro-benchmark", flush=True)
        bench(list(extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
