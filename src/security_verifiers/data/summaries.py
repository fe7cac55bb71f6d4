"""Label balance, scenario coverage and length statistics of a split."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from sv_shared.data import Facets


def length_stats(lengths: Sequence[int]) -> dict[str, float]:
    if not lengths:
        return {"min": 0, "p50": 0, "p90": 0, "max": 0, "mean": 0.0}
    values = np.asarray(lengths)
    return {
        "min": int(values.min()),
        "p50": int(np.percentile(values, 50)),
        "p90": int(np.percentile(values, 90)),
        "max": int(values.max()),
        "mean": round(float(values.mean()), 1),
    }


def split_summary(facets: Sequence[Facets], labels: Sequence[str] = ()) -> dict[str, Any]:
    """n, label counts (every known label listed, zeros included), scenarios, groups, lengths."""
    label_counts = Counter(f.label for f in facets)
    ordered = {label: label_counts.get(label, 0) for label in labels}
    ordered.update({k: v for k, v in sorted(label_counts.items()) if k not in ordered})
    return {
        "n": len(facets),
        "groups": len({f.group for f in facets}),
        "labels": ordered,
        "scenarios": dict(sorted(Counter(f.scenario for f in facets).items())),
        "text_chars": length_stats([len(f.text) for f in facets]),
    }
