"""Versioned datasets: the adapter each environment provides, grouped splits, and the store
that environments read built datasets from (``outputs/datasets/<env>/<date>/``)."""

from sv_shared.data.adapter import (
    DataAdapter,
    Facets,
    Rejected,
    SourceData,
    SourceRequest,
    SynthRecipe,
    SynthSeed,
    reject_unknown_options,
)
from sv_shared.data.splits import SPLIT_NAMES, grouped_split, stable_unit
from sv_shared.data.store import (
    BuiltDataset,
    DatasetStoreError,
    datasets_root,
    list_builds,
    load_built_split,
    resolve_build,
)

__all__ = [
    "SPLIT_NAMES",
    "BuiltDataset",
    "DataAdapter",
    "DatasetStoreError",
    "Facets",
    "Rejected",
    "SourceData",
    "SourceRequest",
    "SynthRecipe",
    "SynthSeed",
    "datasets_root",
    "grouped_split",
    "list_builds",
    "load_built_split",
    "reject_unknown_options",
    "resolve_build",
    "stable_unit",
]
