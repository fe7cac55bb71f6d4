"""`python -m security_verifiers.reward_bench e7`: the cost of one reward computation."""

from __future__ import annotations

import argparse
import json
import time

from .reward import total


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    for i in range(args.episodes):
        total("even" if i % 2 else "odd", "even")
    result = {"episodes": args.episodes, "median_s": (time.perf_counter() - start) / args.episodes}
    print(json.dumps(result))
    return result
