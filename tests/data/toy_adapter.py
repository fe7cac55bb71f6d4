"""A tiny in-memory environment adapter for testing the generic dataset pipeline."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sv_shared.data import DataAdapter, Facets, SourceData, SourceRequest

WORDS = tuple(f"{letter}{letter}{i}" for i, letter in enumerate("abcdefghijklmnopqrstuvwxyz"))


class ToyRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    text: str
    label: str
    scenario: str
    group: str


def toy_rows(n_groups: int = 40, per_group: int = 3) -> list[ToyRow]:
    """Groups of rows with distinct word salads; rows of one group are near duplicates."""
    rows = []
    for g in range(n_groups):
        label = "bad" if g % 2 else "good"
        scenario = f"{label}/{'ab'[g % 4 // 2]}"
        base = " ".join(WORDS[(g * 7 + k * 3) % len(WORDS)] + str(g * 31 + k) for k in range(24))
        for i in range(per_group):
            rows.append(
                ToyRow(
                    id=f"g{g}-{i}",
                    text=f"{base} tail{i}",
                    label=label,
                    scenario=scenario,
                    group=f"g{g}",
                )
            )
    return rows


def toy_adapter(rows: list | None = None, name: str = "sv-env-network-logs") -> DataAdapter:
    """Pretends to be E1 (so store lookups by env id work) with toy rows."""
    payload = toy_rows() if rows is None else rows

    def load(request: SourceRequest) -> SourceData:
        if request.options:
            raise ValueError(f"unknown option(s): {', '.join(request.options)}")
        return SourceData(
            rows=payload,
            name="toy",
            license="CC0-1.0",
            origin="generated",
            revision="toy-v1",
            rejected=[("input line 9", "unparseable")],
        )

    return DataAdapter(
        env_id=name,
        row_type=ToyRow,
        sources={"toy": load},
        facets=lambda r: Facets(label=r.label, scenario=r.scenario, group=r.group, text=r.text),
        versions=lambda: {"generator": "toy-v1", "verifier": "none"},
        description="Toy rows for pipeline tests.",
        default_source="toy",
        labels=("good", "bad"),
    )
