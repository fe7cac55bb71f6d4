"""Bootstrap intervals and the paired comparison of two runs' example-level rewards.

The paired difference is `b - a` over examples present in both runs. Its 95% interval is a
percentile bootstrap of the mean difference; the two-sided p-value is a sign-flip permutation
test (exact for up to 16 pairs, otherwise Monte Carlo), so identical runs give difference 0,
interval [0, 0] and p = 1. Everything is seeded and deterministic.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sv_shared.metrics import bootstrap_ci

EXACT_MAX_PAIRS = 16
TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairedResult:
    """Mean of `b - a` over paired examples, its 95% CI and a two-sided p-value."""

    n: int
    mean_a: float
    mean_b: float
    difference: float
    ci95: tuple[float, float]
    p_value: float


def mean_ci(
    values: Sequence[float], *, seed: int = 0, n_resamples: int = 2000
) -> tuple[float, tuple[float, float]] | None:
    """(mean, percentile-bootstrap 95% CI); a constant gives a point interval; empty gives None."""
    if len(values) == 0:
        return None
    low, high = bootstrap_ci(list(values), seed=seed, n_resamples=n_resamples)
    return float(np.mean(values)), (low, high)


def sign_flip_p_value(
    differences: Sequence[float], *, seed: int = 0, n_resamples: int = 10_000
) -> float:
    """Two-sided p-value of H0 'differences are symmetric about 0' by flipping their signs."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        raise ValueError("sign_flip_p_value needs at least one difference")
    observed = abs(d.mean())
    if d.size <= EXACT_MAX_PAIRS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
        means = np.abs(signs @ d) / d.size
        return float(np.mean(means >= observed - TOLERANCE))
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(n_resamples, d.size))
    extreme = int(np.sum(np.abs(signs @ d) / d.size >= observed - TOLERANCE))
    return (1 + extreme) / (1 + n_resamples)


def paired_bootstrap(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
) -> PairedResult:
    """Compare two runs' rewards keyed by example; only keys present in both are used."""
    keys = sorted(set(a) & set(b))
    if not keys:
        raise ValueError("the two runs have no examples in common")
    va = np.array([a[k] for k in keys], dtype=float)
    vb = np.array([b[k] for k in keys], dtype=float)
    diff = vb - va
    low, high = bootstrap_ci(list(diff), seed=seed, n_resamples=n_resamples)
    return PairedResult(
        n=len(keys),
        mean_a=float(va.mean()),
        mean_b=float(vb.mean()),
        difference=float(diff.mean()),
        ci95=(low, high),
        p_value=sign_flip_p_value(diff, seed=seed),
    )
