"""The base -> SFT -> RL table: classification eval runs of several checkpoints on the same
examples, with 95% bootstrap CIs and paired bootstrap differences against the first run.

`python -m security_verifiers.training.compare BASE_RUN SFT_RUN RL_RUN --labels base,sft,rl`
prints Markdown (and writes it with `--out`). Runs must be comparable (same dataset hash,
split, seed, examples and reward config — `sv report`'s rule); otherwise it says why.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.reports.compat import incompatibilities
from security_verifiers.reports.runs import Run, load_run
from security_verifiers.reports.stats import mean_ci, paired_bootstrap

Row = dict[str, Any]


def _key(row: Row) -> str:
    key = row.get("example_key")
    return str(key if key is not None else f"id:{row.get('example_id')}")


def _parsed(row: Row) -> dict[str, Any] | None:
    parsed = row.get("parsed")
    return parsed if isinstance(parsed, dict) and not row.get("error") else None


def format_valid(row: Row) -> float | None:
    return 1.0 if _parsed(row) is not None else 0.0


def accuracy(row: Row) -> float | None:
    parsed = _parsed(row)
    return 1.0 if parsed is not None and parsed.get("label") == row.get("gold") else 0.0


#: Gold labels of the negative class; every other gold label is a positive (attack, phish).
NEGATIVE_LABELS = frozenset({"Benign", "Legitimate"})


def recall(row: Row) -> float | None:
    """On positive-gold rows: 1 if the label is the gold one; an abstention, an invalid answer
    and an errored row count as misses (they catch nothing). None on negative rows."""
    gold = row.get("gold")
    if gold is None or gold in NEGATIVE_LABELS:
        return None
    parsed = _parsed(row)
    return 1.0 if parsed is not None and parsed.get("label") == gold else 0.0


def abstain_rate(row: Row) -> float | None:
    parsed = _parsed(row)
    return 1.0 if parsed is not None and parsed.get("label") == "Abstain" else 0.0


def brier(row: Row) -> float | None:
    """`(confidence - 1[correct])^2` for answered (valid, non-abstain) rows, else None."""
    parsed = _parsed(row)
    if parsed is None or parsed.get("label") == "Abstain" or parsed.get("confidence") is None:
        return None
    correct = float(parsed.get("label") == row.get("gold"))
    return (float(parsed["confidence"]) - correct) ** 2


def reward(row: Row) -> float | None:
    """The scored reward; None for an errored rollout (never counted as an answer)."""
    if row.get("error") or row.get("reward") is None:
        return None
    return float(row["reward"])


METRICS: list[tuple[str, Callable[[Row], float | None], bool]] = [
    ("format-valid rate", format_valid, True),
    ("accuracy", accuracy, True),
    ("recall (abstain = miss)", recall, True),
    ("abstain rate", abstain_rate, False),
    ("Brier (answered; lower is better)", brier, False),
    ("mean reward", reward, True),
]


def _answered(run: Run) -> list[tuple[str, str, float | None]]:
    """(gold, label, confidence) of every valid answer (abstentions included)."""
    out = []
    for row in run.rows:
        parsed = _parsed(row)
        if parsed is None or row.get("gold") is None:
            continue
        confidence = parsed.get("confidence")
        number = None
        if isinstance(confidence, int | float) and not isinstance(confidence, bool):
            number = float(confidence)
        out.append((str(row["gold"]), str(parsed.get("label")), number))
    return out


def ece_with_ci(
    run: Run, *, seed: int = 0, n_resamples: int = 1000
) -> tuple[float, tuple[float, float]] | None:
    """Expected calibration error (10 bins, answered rows) and a percentile-bootstrap 95% CI
    over rows (ECE is not a per-row mean, so it gets no paired difference)."""
    import numpy as np

    from sv_shared.metrics import expected_calibration_error

    rows = _answered(run)

    def ece(sample: Sequence[tuple[str, str, float | None]]) -> float | None:
        golds, labels, confs = zip(*sample, strict=True) if sample else ((), (), ())
        return expected_calibration_error(list(golds), list(labels), list(confs))

    point = ece(rows)
    if point is None:
        return None
    rng = np.random.default_rng(seed)
    draws = [
        ece([rows[i] for i in rng.integers(0, len(rows), len(rows))]) for _ in range(n_resamples)
    ]
    values = np.array([d for d in draws if d is not None], dtype=float)
    return point, (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))


def by_key(run: Run, metric: Callable[[Row], float | None]) -> dict[str, float]:
    out = {}
    for row in run.rows:
        value = metric(row)
        if value is not None:
            out[_key(row)] = value
    return out


def _fmt(value: float | None, ci: tuple[float, float] | None = None, sign: bool = False) -> str:
    if value is None:
        return "—"
    text = f"{value:+.3f}" if sign else f"{value:.3f}"
    return (
        f"{text} [{ci[0]:+.3f}, {ci[1]:+.3f}]"
        if sign and ci
        else (f"{text} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else text)
    )


def comparison_table(runs: Sequence[Run], labels: Sequence[str], *, seed: int = 0) -> str:
    """Markdown: one row per run (value [95% CI], n), then paired differences vs the first."""
    base = runs[0]
    for run in runs[1:]:
        differing = incompatibilities(base, run)
        if differing:
            raise UserError(f"{run.path} is not comparable with {base.path}: {differing}")
    header = ["checkpoint", "n", *(name for name, _, _ in METRICS), "ECE (answered)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, run in zip(labels, runs, strict=True):
        cells = [label, str(len(run.rows))]
        for _, metric, _ in METRICS:
            values = list(by_key(run, metric).values())
            stats = mean_ci(values, seed=seed)
            cell = "—" if stats is None else _fmt(stats[0], stats[1])
            if metric is brier:
                cell += f" (n={len(values)})"
            cells.append(cell)
        calibration = ece_with_ci(run, seed=seed)
        cells.append("—" if calibration is None else _fmt(*calibration))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Paired bootstrap differences (later minus earlier; 95% CI; sign-flip p):", ""]
    header = ["comparison", *(name for name, _, _ in METRICS)]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    pairs = [(0, i) for i in range(1, len(runs))] + [(i - 1, i) for i in range(2, len(runs))]
    for i, j in pairs:
        cells = [f"{labels[j]} − {labels[i]}"]
        for _, metric, _ in METRICS:
            a, b = by_key(runs[i], metric), by_key(runs[j], metric)
            try:
                result = paired_bootstrap(a, b, seed=seed)
            except ValueError:
                cells.append("—")
                continue
            p = "p<0.001" if result.p_value < 0.001 else f"p={result.p_value:.3f}"
            cell = f"{_fmt(result.difference, result.ci95, sign=True)} {p}"
            if metric is brier:
                cell += f" (n={result.n})"
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="eval run directories, in order (base first)")
    parser.add_argument("--labels", default=None, help="comma-separated names, one per run")
    parser.add_argument("--out", type=Path, default=None, help="also write the Markdown here")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    runs = [load_run(p) for p in args.runs]
    labels = args.labels.split(",") if args.labels else [r.model for r in runs]
    if len(labels) != len(runs):
        raise SystemExit("error: --labels needs one name per run")
    try:
        table = comparison_table(runs, labels, seed=args.seed)
    except UserError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(table)
    if args.out:
        args.out.write_text(table)


if __name__ == "__main__":
    main()
