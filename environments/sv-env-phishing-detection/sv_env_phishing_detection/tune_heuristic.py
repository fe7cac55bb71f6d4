"""Tune the heuristic baseline on the synthetic dev split (never on real mail).

    python -m sv_env_phishing_detection.tune_heuristic [--out PATH] [--check]

Each synthetic dev email is rendered as the environment shows it and its indicators are
extracted once; each candidate (weights of the lure-text indicators, `PHISHING_AT`,
`LEGITIMATE_AT`) answers every email and is scored with the environment's own reward (default
weights and payoffs). Stage one searches a grid over one shared lure-text weight and the two
thresholds; stage two adjusts each lure-text weight in turn (two passes). Ties keep the
earlier candidate, so the result is deterministic. The winner is written as JSON with the
generator version and a hash of the dev data, next to its mean reward on train and dev.
`--check` only reports whether the shipped file is current (exit 1 when it is not).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from itertools import product
from pathlib import Path
from typing import Any

from .answer import TriageParser
from .dataset import DEFAULT_SEED, DEFAULT_SIZE, load_synthetic
from .environment import episode
from .generator import GENERATOR_VERSION
from .heuristic import PRIOR_WEIGHTS, TUNING_FILE, HeuristicParams, answer_for, load_tuning
from .indicators import CATALOGUE, LURE_TEXT_INDICATORS, extract_indicators
from .records import EmailRecord
from .rendered import parse_rendered_email
from .reward import TriageWeights, default_payoffs
from .scoring import score_answer
from .sources import records_hash

SHARED_WEIGHTS = (0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5)
PHISHING_AT = (1.8, 2.0, 2.2, 2.5)
LEGITIMATE_AT = (1.0, 1.2, 1.5)
"""At least 1.0: one weak signal (urgency alone, weight 1.0) is never worth an abstention."""
SINGLE_WEIGHTS = (0.3, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5)
DEFAULT_OUT = Path(__file__).with_name("data") / TUNING_FILE


class _Scorer:
    """Mean weighted reward of heuristic answers, memoised per (email, answer)."""

    def __init__(self, records: Sequence[EmailRecord]) -> None:
        self.rows = [episode(r, comparable=False) for r in records]
        self.found = [
            extract_indicators(parse_rendered_email(row["question"])) for row in self.rows
        ]
        self.parser = TriageParser()
        self.payoffs = default_payoffs()
        self.weights = TriageWeights().as_dict()
        self.cache: dict[tuple[int, str], float] = {}

    def reward(self, params: HeuristicParams) -> float:
        total = 0.0
        for i, (row, found) in enumerate(zip(self.rows, self.found, strict=True)):
            completion = json.dumps(answer_for(found, params))
            key = (i, completion)
            if key not in self.cache:
                parts = score_answer(completion, row["answer"], row["info"], self.parser,
                                     self.payoffs, CATALOGUE)  # fmt: skip
                self.cache[key] = sum(w * parts[name] for name, w in self.weights.items())
            total += self.cache[key]
        return total / max(1, len(self.rows))


def _params(lure: dict[str, float], phishing_at: float, legitimate_at: float) -> HeuristicParams:
    return HeuristicParams({**PRIOR_WEIGHTS, **lure}, phishing_at, legitimate_at)


def _best(scorer: _Scorer, candidates: Iterable[HeuristicParams]) -> tuple[HeuristicParams, float]:
    best: tuple[HeuristicParams, float] | None = None
    for params in candidates:
        value = scorer.reward(params)
        if best is None or value > best[1] + 1e-12:
            best = (params, value)
    assert best is not None
    return best


def tune(dev: Sequence[EmailRecord]) -> tuple[HeuristicParams, float]:
    """The best parameters on `dev` and their mean reward."""
    scorer = _Scorer(dev)
    grid = (
        _params(dict.fromkeys(LURE_TEXT_INDICATORS, w), p, lo)
        for w, p, lo in product(SHARED_WEIGHTS, PHISHING_AT, LEGITIMATE_AT)
        if lo < p
    )
    params, value = _best(scorer, grid)
    for _ in range(2):
        for name in LURE_TEXT_INDICATORS:
            lure = {k: params.weights[k] for k in LURE_TEXT_INDICATORS}
            options = (_params(lure | {name: w}, params.phishing_at, params.legitimate_at)
                       for w in (params.weights[name], *SINGLE_WEIGHTS))  # fmt: skip
            params, value = _best(scorer, options)
    return params, value


def tuning_record(size: int = DEFAULT_SIZE, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Tune on the dev split and describe the result (what the JSON file holds)."""
    dev, train = load_synthetic("dev", size, seed), load_synthetic("train", size, seed)
    params, dev_reward = tune(dev)
    return {
        "generator_version": GENERATOR_VERSION,
        "size": size,
        "seed": seed,
        "tuned_on": "synthetic dev split",
        "dev_hash": records_hash(dev),
        "params": {
            "weights": {k: params.weights[k] for k in LURE_TEXT_INDICATORS},
            "phishing_at": params.phishing_at,
            "legitimate_at": params.legitimate_at,
        },
        "mean_reward": {
            "dev": round(dev_reward, 4),
            "train": round(_Scorer(train).reward(params), 4),
        },
    }


def is_current(tuned: dict[str, Any] | None, size: int = DEFAULT_SIZE,
               seed: int = DEFAULT_SEED) -> bool:  # fmt: skip
    """Whether a tuning record matches the generator version and dev data of today."""
    return (
        bool(tuned)
        and tuned.get("generator_version") == GENERATOR_VERSION
        and tuned.get("dev_hash") == records_hash(load_synthetic("dev", size, seed))
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="only check the shipped file")
    args = parser.parse_args(argv)
    if args.check:
        current = is_current(load_tuning())
        print("heuristic tuning is current" if current else "heuristic tuning is stale: rerun")
        return 0 if current else 1
    record = tuning_record()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
