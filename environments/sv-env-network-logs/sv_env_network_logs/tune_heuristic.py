"""Tune the heuristic baseline's weights and thresholds on synthetic data only.

``python -m sv_env_network_logs.tune_heuristic`` runs a deterministic coordinate ascent over a
fixed grid per parameter, maximising the mean E1 reward (default rubric weights and payoffs) on
the default synthetic train + dev splits, and writes ``heuristic_params.json`` next to this
module with the generator version and the content hashes of the data it was tuned on. The
test split is only reported, never used for a choice. ``--check`` exits 1 when the file is
stale (other generator version or data). Evidence weights keep their sign (a rule written as
benign evidence stays benign); ties keep the current value.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from sv_env_network_logs.dataset import (
    DEFAULT_DATASET_SEED,
    DEFAULT_DATASET_SIZE,
    content_hash,
    load_flows,
)
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.generator import GENERATOR_VERSION
from sv_env_network_logs.heuristic import DEFAULT_PARAMS, PARAMS_FILE, TUNABLE, heuristic_predict
from sv_env_network_logs.probes import answer, reward

OBJECTIVE = "mean reward (default rubric) on the synthetic train + dev splits"
_WEIGHT_STEPS = tuple(x / 4 for x in range(0, 13))  # 0 .. 3 by 0.25
_GRIDS: dict[str, tuple[float, ...]] = {
    "malicious_at": tuple(x / 4 for x in range(2, 13)),  # 0.5 .. 3
    "benign_at": tuple(-x / 4 for x in range(1, 11)),  # -0.25 .. -2.5
    "ssh_short_s": (5.0, 10.0, 15.0, 30.0, 60.0),
    "udp_flood_pkts": (5.0, 10.0, 20.0, 50.0, 100.0),
    "icmp_flood_pkts": (5.0, 10.0, 20.0, 50.0, 100.0),
}


def grid(name: str) -> tuple[float, ...]:
    """Candidate values: a fixed grid, or sign-preserving weights 0..±3 (both signs if 0)."""
    if name in _GRIDS:
        return _GRIDS[name]
    default = DEFAULT_PARAMS[name]
    if default > 0:
        return _WEIGHT_STEPS
    if default < 0:
        return tuple(-x for x in _WEIGHT_STEPS)
    return tuple(sorted({-x for x in _WEIGHT_STEPS[:7]} | set(_WEIGHT_STEPS[:7])))


@cache
def _reward(label: str, confidence: float, gold: str) -> float:
    return reward(answer(label, confidence), {"gold": gold})


def mean_reward(items: Sequence[LabeledFlow], params: Mapping[str, float]) -> float:
    total = 0.0
    for item in items:
        label, confidence, _ = heuristic_predict(item.flow, params)
        total += _reward(label, confidence, item.label)
    return total / len(items) if items else 0.0


def tune(
    items: Sequence[LabeledFlow], start: Mapping[str, float], passes: int = 2
) -> dict[str, float]:
    """Coordinate ascent: for each parameter in turn, the grid value with the best reward."""
    params = dict(start)
    best = mean_reward(items, params)
    for _ in range(passes):
        improved = False
        for name in TUNABLE:
            current = params[name]
            for value in grid(name):
                if value == current:
                    continue
                score = mean_reward(items, params | {name: value})
                if score > best + 1e-9:
                    best, params[name], improved = score, value, True
        if not improved:
            break
    return params


def data_record() -> dict[str, object]:
    train, _ = load_flows("synthetic", split="train")
    dev, _ = load_flows("synthetic", split="dev")
    return {
        "generator_version": GENERATOR_VERSION,
        "seed": DEFAULT_DATASET_SEED,
        "size": DEFAULT_DATASET_SIZE,
        "train_hash": content_hash(train),
        "dev_hash": content_hash(dev),
    }


def run(out: Path, passes: int) -> dict[str, object]:
    train, _ = load_flows("synthetic", split="train")
    dev, _ = load_flows("synthetic", split="dev")
    test, _ = load_flows("synthetic", split="test")
    params = tune([*train, *dev], DEFAULT_PARAMS, passes)
    result = {
        "objective": OBJECTIVE,
        "data": data_record(),
        "reward": {
            "train_dev_default": round(mean_reward([*train, *dev], DEFAULT_PARAMS), 4),
            "train_dev_tuned": round(mean_reward([*train, *dev], params), 4),
            "dev_tuned": round(mean_reward(dev, params), 4),
            "test_tuned_report_only": round(mean_reward(test, params), 4),
        },
        "params": {k: params[k] for k in TUNABLE},
    }
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def check(path: Path) -> list[str]:
    """Problems that make ``path`` stale for the current generator and default data."""
    if not path.is_file():
        return [f"{path} is missing"]
    recorded = json.loads(path.read_text(encoding="utf-8")).get("data", {})
    current = data_record()
    return [
        f"{k}: {recorded.get(k)!r} != {v!r}" for k, v in current.items() if recorded.get(k) != v
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PARAMS_FILE)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="exit 1 if the params are stale")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.out)
        for line in problems:
            print(line)
        return 1 if problems else 0
    result = run(args.out, args.passes)
    print(json.dumps(result["reward"], indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
