"""What an environment tells the dataset pipeline about its data.

Each environment package exposes ``data_adapter() -> DataAdapter``. The harness's generic
pipeline (``sv data build``, ``sv synth``) does everything else: schema validation, dedup,
grouped splits, contamination checks, provenance and the dataset card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter


@dataclass(frozen=True)
class Facets:
    """How the pipeline sees one row.

    ``group``: rows that must stay in one split (same base config, source function, session).
    ``text``: the content compared for duplicates and near duplicates (what a model is shown).
    """

    label: str
    scenario: str
    group: str
    text: str


@dataclass(frozen=True)
class SourceRequest:
    """Arguments of ``sv data build <env> --source NAME [--path P] [--seed S] [--option k=v]``."""

    path: str | None = None
    seed: int = 42
    options: Mapping[str, str] = field(default_factory=dict)


def reject_unknown_options(source: str, options: Iterable[str], valid: Iterable[str]) -> None:
    """Raise ValueError naming the options of `source` that are not in `valid` (the valid
    ones are listed in the order given)."""
    valid = list(valid)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(
            f"unknown option(s) for {source}: {', '.join(unknown)} "
            f"(valid: {', '.join(valid) or 'none'})"
        )


@dataclass(frozen=True)
class SourceData:
    """Rows from one source, with the provenance recorded in ``metadata.json``."""

    rows: Sequence[Any]
    name: str
    license: str
    origin: str
    """Where the rows came from: a path, a hub id, or ``generated``."""
    revision: str = ""
    """A content hash of the input files, or a generator version."""
    notes: Mapping[str, Any] = field(default_factory=dict)
    rejected: Sequence[tuple[str, str]] = ()
    """(where, why) for input records the source could not turn into rows."""


class Rejected(Exception):
    """A synthetic candidate that cannot be used; ``stage`` is ``schema`` or ``verify``."""

    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage = stage
        self.reason = reason


@dataclass(frozen=True)
class SynthSeed:
    """A seed template: the prompt shown to the generating model and what it asks for."""

    id: str
    messages: Sequence[Mapping[str, str]]
    target: Mapping[str, Any]
    """What the prompt requests (e.g. the scenario); the verifier decides the actual label."""
    max_tokens: int = 400
    example_texts: Sequence[str] = ()
    """Facet texts of examples shown in the prompt: a candidate that copies one is rejected."""
    example_groups: Sequence[str | None] = ()
    """The examples' groups (parallel to ``example_texts``): a candidate may be a near
    variant of an example of its own group (a function's other vulnerable version)."""


@dataclass(frozen=True)
class SynthRecipe:
    """The environment-specific half of ``sv synth``.

    ``parse(seed, completion, row_id)`` turns a completion into a row (schema validation) or
    raises :class:`Rejected` with stage ``schema``. ``verify(seed, row)`` labels the row with
    the environment's own verifiers (rule oracle, policy tools, tests, judge) and returns the
    labelled row, or raises :class:`Rejected` with stage ``verify`` when it cannot be verified.
    """

    seeds: Callable[[int], Sequence[SynthSeed]]
    parse: Callable[[SynthSeed, str, str], Any]
    verify: Callable[[SynthSeed, Any], Any]
    verifier: str
    """What labels the candidates, with its version (recorded in metadata.json)."""
    redact_completions: bool = False
    """Store only hashes of raw completions (unsafe text, E5/E6)."""
    example_containment: float | None = 0.8
    """Reject candidates reusing this share of an example's word 3-grams (an example plus a
    clause); None for recipes whose candidates are meant to be edits of the example."""


@dataclass(frozen=True)
class DataAdapter:
    """Everything the generic pipeline needs to know about one environment's rows."""

    env_id: str
    row_type: Any
    """A pydantic model or dataclass: the schema every row is validated against."""
    sources: Mapping[str, Callable[[SourceRequest], SourceData]]
    facets: Callable[[Any], Facets]
    versions: Callable[[], Mapping[str, str]]
    """Generator and verifier versions (tool, rule pack, model) recorded as provenance."""
    description: str
    default_source: str = "synthetic"
    assign_split: Callable[[Any, str], Any] | None = None
    """For rows that carry their split in a field: return the row with that field set."""
    synth: SynthRecipe | None = None
    labels: Sequence[str] = ()
    """The label vocabulary, when fixed (used for label-balance reports)."""
    recheck: Callable[[Any], list[str]] | None = None
    """Re-run the environment's own verification of one built row (e.g. E3's sandboxed
    validation); the problems found, empty when the row still holds (`sv data validate
    --recheck`)."""

    def schema(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.row_type)

    def to_json(self, row: Any) -> dict[str, Any]:
        return self.schema().dump_python(row, mode="json")

    def from_json(self, data: Any) -> Any:
        return self.schema().validate_python(data)
