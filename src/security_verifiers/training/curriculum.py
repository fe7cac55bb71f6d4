"""Error-driven curriculum: more generator data for the classes the SFT model gets wrong.

`make train-curriculum SFT=<checkpoint>` (or `python -m security_verifiers.training.curriculum`):

1. **probe** — evaluate the SFT checkpoint on the *dev* split (never test) and rank the
   generator's scenarios by how often the model's label misses the gold one (an abstention on
   an item with a clear gold label counts as a miss);
2. **generate** — draw a fresh corpus from the environment's generator (the `fresh_rows` hook
   of its spec; E1: flows) with a seed the built-in dataset does not use, keep `--per-class`
   rows of each targeted scenario plus a `--replay` sample of every other scenario (so the
   model does not forget them), and write them as a file the environment loads;
3. **train** — continue SFT from the checkpoint on those flows (gold labels with calibrated
   confidences, the same recipe as the first SFT); with `--control`, also continue on a uniform
   sample of the same fresh corpus with the same number of examples and steps, so the gain of
   *targeting* is separated from the gain of more data;
4. **compare** — evaluate before / after (/ control) on the same test items and write the paired
   bootstrap table (`training/compare.py`) and per-scenario accuracy on the targeted classes.

Every stage runs as its own process, logged to `<out>/<stage>.log`; `<out>/curriculum.json`
records the targeted classes, the data counts, the checkpoints, the runs and the timings.

The environment is the SFT config's `data.env` (or `--env`); the default config is
`configs/sft/<key>.yaml` of the first environment with a generator for curricula.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from security_verifiers.environments import EnvEntry, default_env, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.training.config import SFTRecipe, load_recipe
from security_verifiers.training.proof import Stages, eval_model_name, run_dir, sv_command
from sv_shared.curriculum import FreshRows

#: Seed of the fresh generator corpus (the built-in dataset uses another one).
FRESH_SEED = 7_777
#: Answer budget of the evals when the environment's spec has no proof task to take it from.
DEFAULT_MAX_TOKENS = 48


def fresh_rows(entry: EnvEntry) -> FreshRows:
    """The environment's generator for curricula (its spec's `fresh_rows`)."""
    fresh = entry.hook("fresh_rows")
    if fresh is None:
        raise UserError(
            f"environment '{entry.env_id}' has no generator for a curriculum "
            f"(its spec sets no fresh_rows)"
        )
    return fresh


def _rows(run: Path) -> list[dict[str, Any]]:
    with (run / "results.jsonl").open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _label(row: dict[str, Any]) -> str | None:
    parsed = row.get("parsed")
    return parsed.get("label") if isinstance(parsed, dict) else None


def error_rates(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """scenario -> (misses, items) over scored rows; a miss is any label but the gold one."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.get("error") or row.get("reward") is None:
            continue
        entry = counts[str(row.get("scenario") or "?")]
        entry[1] += 1
        entry[0] += int(_label(row) != row.get("gold"))
    return {name: (miss, total) for name, (miss, total) in counts.items()}


def pick_targets(
    rates: dict[str, tuple[int, int]], *, min_items: int, min_rate: float, max_classes: int
) -> list[str]:
    """The scenarios with the highest miss rate (at least `min_items` probed, rate >=
    `min_rate`), worst first; ties broken by name for determinism."""
    eligible = [
        (miss / total, name)
        for name, (miss, total) in rates.items()
        if total >= min_items and miss / total >= min_rate
    ]
    eligible.sort(key=lambda pair: (-pair[0], pair[1]))
    return [name for _, name in eligible[:max_classes]]


def replay_quota(
    chosen: list[Any],
    others: list[Any],
    corpus: list[Any],
    replay: int,
    label_of: Callable[[Any], str],
) -> dict:
    """Replay rows per label (`label_of`), so that targeted + replay keeps the corpus's label
    shares as far as `replay` allows. Without this, targeting mostly attack classes shifted the
    label prior and the model traded accuracy for recall (issue 21's first curriculum run)."""
    shares = Counter(map(label_of, corpus))
    have = Counter(map(label_of, chosen))
    available = Counter(map(label_of, others))
    total = len(chosen) + replay
    labels = sorted(shares)
    deficit = {
        label: max(0.0, total * shares[label] / len(corpus) - have[label]) for label in labels
    }
    if sum(deficit.values()) == 0:
        deficit = {label: float(shares[label]) for label in labels}
    scale = replay / sum(deficit.values())
    quota = {label: min(available[label], int(deficit[label] * scale)) for label in labels}
    by_remainder = sorted(labels, key=lambda label: -(deficit[label] * scale % 1))
    while sum(quota.values()) < replay:  # hand out what rounding and small pools left over
        open_labels = [label for label in by_remainder if quota[label] < available[label]]
        if not open_labels:
            break
        for label in open_labels[: replay - sum(quota.values())]:
            quota[label] += 1
    return quota


def curriculum_flows(
    targets: list[str],
    *,
    per_class: int,
    replay: int,
    corpus_size: int,
    seed: int,
    fresh: FreshRows | None = None,
) -> tuple[list[Any], list[Any], dict[str, int]]:
    """(targeted, uniform control, counts): rows of a fresh generator corpus (`fresh`; default:
    the first environment's with one). Targeted = `per_class` rows of each target scenario +
    `replay` rows of the others, per label so that the label shares stay the corpus's
    (`replay_quota`); the control is a uniform sample of the same corpus with the same size."""
    if fresh is None:
        fresh = fresh_rows(resolve_env(default_env("fresh_rows")))
    corpus = fresh.generate(corpus_size, seed)
    by_scenario: dict[str, list[Any]] = defaultdict(list)
    for flow in corpus:
        by_scenario[fresh.group(flow)].append(flow)
    rng = random.Random(seed)
    chosen: list[Any] = []
    for name in targets:
        pool = by_scenario.get(name, [])
        chosen += rng.sample(pool, min(per_class, len(pool)))
    targeted = set(targets)
    others = [flow for flow in corpus if fresh.group(flow) not in targeted]
    for label, count in replay_quota(chosen, others, corpus, replay, fresh.label).items():
        pool = [flow for flow in others if fresh.label(flow) == label]
        chosen += rng.sample(pool, min(count, len(pool)))
    control = rng.sample(corpus, len(chosen))
    counts = Counter(map(fresh.group, chosen))
    return chosen, control, dict(sorted(counts.items()))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sft", required=True, help="SFT checkpoint directory to start from")
    parser.add_argument("--config", type=Path, default=None,
                        help="SFT recipe (default: configs/sft/<env>.yaml)")  # fmt: skip
    parser.add_argument("--env", default=None, help="environment (default: the config's)")
    parser.add_argument("--probe-n", type=int, default=400, help="dev items probed")
    parser.add_argument("-n", "--num-examples", type=int, default=200, help="test items")
    parser.add_argument("--per-class", type=int, default=60, help="fresh flows per target class")
    parser.add_argument("--replay", type=int, default=160, help="fresh flows of other classes")
    parser.add_argument("--max-classes", type=int, default=6)
    parser.add_argument("--min-rate", type=float, default=0.3, help="miss rate to target")
    parser.add_argument("--min-items", type=int, default=4, help="probed items per class")
    parser.add_argument("--corpus-size", type=int, default=12_000)
    parser.add_argument("--seed", type=int, default=FRESH_SEED, help="fresh corpus seed")
    parser.add_argument("--control", action="store_true", help="also train a uniform control")
    parser.add_argument("--eval-backend", choices=["hf", "llama"], default="llama")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="eval answer budget (default: the env's proof budget)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: outputs/curriculum/<env>)")  # fmt: skip
    parser.add_argument("--set", dest="sets", action="append", default=[],
                        help="extra --set for the continued SFT")  # fmt: skip
    args = parser.parse_args(argv)
    for name in ("probe_n", "num_examples", "per_class", "max_classes", "min_items"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not Path(args.sft).is_dir():
        parser.error(f"--sft {args.sft}: not a checkpoint directory")
    try:
        _resolve_env(args)
    except UserError as exc:
        parser.error(str(exc))
    return args


def _resolve_env(args: argparse.Namespace) -> None:
    """Fill in the environment (`--env`, else the config's `data.env`), the config and output
    defaults, and `config_env` (the config's own environment)."""
    entry = resolve_env(args.env) if args.env else None
    if args.config is None:
        key = entry.key if entry else default_env("fresh_rows")
        args.config = Path(f"configs/sft/{key}.yaml")
    config_env = resolve_env(load_recipe(args.config, SFTRecipe).data.env)
    entry = entry or config_env
    fresh_rows(entry)
    proof = entry.spec.proof
    if args.max_tokens is None:
        args.max_tokens = proof.max_tokens if proof else DEFAULT_MAX_TOKENS
    elif args.max_tokens < 1:
        raise UserError("--max-tokens must be at least 1")
    args.env, args.config_env = entry.key, config_env.key
    if args.out is None:
        args.out = Path(f"outputs/curriculum/{entry.key}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    fresh = fresh_rows(resolve_env(args.env))
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    stages = Stages(out, args.threads)
    sv = sv_command()

    def evaluate(name: str, checkpoint: str, split: str, count: int) -> Path:
        root = out / "evals" / name
        model = eval_model_name(checkpoint, args.eval_backend, stages)
        stages.run(f"eval-{name}", [
            *sv, "eval", args.env, "--models", model, "-n", str(count), "--seed", "42",
            "--max-tokens", str(args.max_tokens), "--truncated", "score", "--fresh", "--quiet",
            "--no-cache", "--output-dir", str(root),
            "--env-arg", f"split={split}", "--env-arg", "prompt_style=compact",
        ])  # fmt: skip
        return run_dir(root)

    probe = evaluate("probe-dev", args.sft, "dev", args.probe_n)
    rates = error_rates(_rows(probe))
    targets = pick_targets(
        rates, min_items=args.min_items, min_rate=args.min_rate, max_classes=args.max_classes
    )
    print(f"targets: {targets}", file=sys.stderr, flush=True)
    if not targets:
        print("no scenario reaches the miss-rate threshold; nothing to target", file=sys.stderr)
        return 0
    chosen, control, counts = curriculum_flows(
        targets, per_class=args.per_class, replay=args.replay,
        corpus_size=args.corpus_size, seed=args.seed, fresh=fresh,
    )  # fmt: skip
    data = {"targeted": out / "targeted.jsonl", "control": out / "control.jsonl"}
    fresh.write(chosen, data["targeted"])
    fresh.write(control, data["control"])
    env_sets = [f"data.env={args.env}"] if args.env != args.config_env else []

    def train(name: str) -> str:
        file_args = fresh.file_env_args(data[name]).items()
        sets = [
            *env_sets, *(f"data.env_args.{key}={value}" for key, value in file_args),
            "data.env_args.prompt_style=compact", f"data.max_examples={len(chosen)}", *args.sets,
            *([f"threads={args.threads}"] if args.threads else []),
        ]  # fmt: skip
        return stages.run(f"sft-{name}", [
            *sv, "train", "sft", "--config", str(args.config), "--model", args.sft,
            "--output-root", str(out / "checkpoints" / name),
            *[part for pair in sets for part in ("--set", pair)],
        ])  # fmt: skip

    checkpoints = {"before": args.sft, "targeted": train("targeted")}
    if args.control:
        checkpoints["control"] = train("control")
    runs = {label: evaluate(f"test-{label}", ckpt, "test", args.num_examples)
            for label, ckpt in checkpoints.items()}  # fmt: skip
    table = out / "table.md"
    stages.run("compare", [
        sys.executable, "-m", "security_verifiers.training.compare", *map(str, runs.values()),
        "--labels", ",".join(runs), "--out", str(table),
    ])  # fmt: skip
    per_class = {
        label: {name: rate for name, rate in error_rates(_rows(run)).items() if name in targets}
        for label, run in runs.items()
    }
    lines = ["", "Targeted classes on the test items (misses / items):", ""]
    lines.append("| class | " + " | ".join(runs) + " |")
    lines.append("|---|" + "---|" * len(runs))
    for name in targets:
        cells = [f"{m}/{t}" for m, t in (per_class[label].get(name, (0, 0)) for label in runs)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = table.read_text() + "\n".join(lines) + "\n"
    table.write_text(text)
    summary = {
        "probe_run": str(probe), "probe_miss_rates": rates, "targets": targets,
        "targeted_counts": counts, "examples": len(chosen), "fresh_seed": args.seed,
        "checkpoints": checkpoints, "runs": {k: str(v) for k, v in runs.items()},
        "timings_s": stages.timings,
    }  # fmt: skip
    (out / "curriculum.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
