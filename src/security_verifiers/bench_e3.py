"""`make bench` (E3 part): the cost of one full E3 reward and its throughput on this machine.

One computation = parse the answer, apply its diff, run every hidden test in the bubblewrap
sandbox, scan the patched module with Bandit and Semgrep, and score. Reported: the median
time of one computation run alone (the reference), the share of each stage, and rewards/hour
when `--workers` computations run at once (the way the harness scores concurrent rollouts),
as a ratio against the sequential reference measured in the same process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rich.console import Console
from rich.table import Table

from sv_env_code_vulnerability.answer import parse_repair
from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.diffs import apply_patch
from sv_env_code_vulnerability.environment import episode_info
from sv_env_code_vulnerability.execution import run_tests
from sv_env_code_vulnerability.reward import RepairWeights
from sv_env_code_vulnerability.scanners import run_bandit, run_semgrep
from sv_env_code_vulnerability.scoring import score_repair

Episode = tuple[dict[str, Any], str]


def _episodes(count: int) -> list[Episode]:
    items = load_items("all")[:count]
    return [
        (episode_info(item), json.dumps({"diff": item.reference_diff, "explanation": "bench"}))
        for item in items
    ]


def _full_reward(episode: Episode) -> float:
    info, reply = episode
    start = time.perf_counter()
    parts = score_repair(parse_repair(reply), info, RepairWeights())
    if parts["repaired"] != 1.0:
        raise RuntimeError(f"{info['id']}: the reference fix did not repair the item: {parts}")
    return time.perf_counter() - start


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _stages(episode: Episode) -> dict[str, float]:
    """Each stage of one computation, timed on its own."""
    info, reply = episode
    module = info["module_file"]
    answer = parse_repair(reply).answer
    assert answer is not None
    patched = apply_patch(answer.diff, {module: info["vulnerable"]}).files[module]
    tests = {info["functional_file"]: info["functional_tests"]}
    tests[info["security_file"]] = info["security_tests"]
    return {
        "apply diff": _timed(lambda: apply_patch(answer.diff, {module: info["vulnerable"]})),
        "sandboxed tests": _timed(lambda: run_tests({module: patched}, tests)),
        "bandit": _timed(lambda: run_bandit(patched, module)),
        "semgrep": _timed(lambda: run_semgrep(patched, module)),
    }


def _throughput(episodes: list[Episode], workers: int) -> float:
    """Rewards per hour with `workers` computations in flight."""
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(_full_reward, episodes))
    return len(episodes) * 3600 / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    episodes = _episodes(args.episodes)
    _full_reward(episodes[0])  # warm-up: imports, semgrep rule compilation
    sequential = [_full_reward(episode) for episode in episodes]
    stages = [_stages(episode) for episode in episodes]
    serial_rate = len(sequential) * 3600 / sum(sequential)
    parallel_rate = _throughput(episodes, args.workers)
    median = statistics.median(sequential)

    table = Table(title="E3: one full reward (apply diff + sandboxed tests + Bandit + Semgrep)")
    for column in ("measure", "value", "ratio"):
        table.add_column(column, justify="right")
    table.add_row("median s, one at a time (reference)", f"{median:.3f}", "1.00×")
    for name in stages[0]:
        stage_median = statistics.median(s[name] for s in stages)
        table.add_row(f"  {name} median s", f"{stage_median:.3f}", f"{stage_median / median:.2f}×")
    table.add_row("rewards/hour, sequential", f"{serial_rate:,.0f}", "1.00×")
    table.add_row(f"rewards/hour, {args.workers} concurrent", f"{parallel_rate:,.0f}",
                  f"{parallel_rate / serial_rate:.2f}×")  # fmt: skip
    Console(width=120).print(table)
    print(json.dumps({"median_s": median, "rewards_per_hour_sequential": serial_rate,
                      f"rewards_per_hour_{args.workers}_workers": parallel_rate}))  # fmt: skip


if __name__ == "__main__":
    main()
