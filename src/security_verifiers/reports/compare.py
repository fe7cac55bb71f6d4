"""Paired comparisons between runs: one for two runs, or every pair within an environment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from security_verifiers.errors import UserError
from security_verifiers.reports.compat import incompatibilities
from security_verifiers.reports.runs import Run
from security_verifiers.reports.stats import PairedResult, paired_bootstrap


@dataclass(frozen=True)
class Comparison:
    """`b` against `a`: a paired result, or the reason the runs cannot be compared."""

    a: Run
    b: Run
    result: PairedResult | None
    reason: str | None = None

    @property
    def note(self) -> str:
        """Which side was not complete ('' when both were): its errored rows are left out."""
        flagged = [f"{side} {run.status}" for side, run in (("A", self.a), ("B", self.b))
                   if not run.is_complete]  # fmt: skip
        return ", ".join(flagged)


def _label(run: Run) -> str:
    return f"{run.model} ({run.run_id})"


def _unscored(a: Run, b: Run) -> str | None:
    empty = [run for run in (a, b) if not run.scored_rows]
    if not empty:
        return None
    names = " and ".join(f"{r.model} ({r.run_id})" for r in empty)
    return f"no scored rollouts in {names} (every rollout errored)"


def compare_runs(a: Run, b: Run, *, seed: int = 0) -> PairedResult:
    """Paired bootstrap of `b - a` over examples scored in both runs (errored rollouts left
    out); incompatible, disjoint or unscored runs are a UserError."""
    differing = incompatibilities(a, b)
    if differing:
        raise UserError(
            f"cannot compare {_label(a)} with {_label(b)}: different {', '.join(differing)}"
        )
    if reason := _unscored(a, b):
        raise UserError(f"cannot compare {_label(a)} with {_label(b)}: {reason}")
    try:
        return paired_bootstrap(a.rewards_by_key(), b.rewards_by_key(), seed=seed)
    except ValueError:
        raise UserError(
            f"cannot compare {_label(a)} with {_label(b)}: no examples in common"
        ) from None


def pairwise(runs: Sequence[Run], *, seed: int = 0) -> list[Comparison]:
    """Every pair of runs (in the given order); incompatible pairs carry their reason."""
    out: list[Comparison] = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            differing = incompatibilities(a, b)
            if differing:
                out.append(Comparison(a, b, None, f"different {', '.join(differing)}"))
                continue
            if reason := _unscored(a, b):
                out.append(Comparison(a, b, None, reason))
                continue
            try:
                out.append(Comparison(a, b, compare_runs(a, b, seed=seed)))
            except UserError:
                out.append(Comparison(a, b, None, "no scored examples in common"))
    return out
