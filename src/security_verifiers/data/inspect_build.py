"""`sv data validate` and `sv data stats` on a built dataset directory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from security_verifiers.data.adapters import adapter_for_build
from security_verifiers.data.contamination import split_contamination
from security_verifiers.data.fingerprint import DEFAULT_NEAR_DUP_THRESHOLD
from security_verifiers.data.summaries import split_summary
from sv_shared.data import DataAdapter, Facets
from sv_shared.data.splits import SPLIT_NAMES
from sv_shared.data.store import DatasetStoreError, file_sha256, read_jsonl_rows, read_metadata


@dataclass
class BuildCheck:
    build: Path
    problems: list[str] = field(default_factory=list)
    rows: dict[str, list[Any]] = field(default_factory=dict)
    contamination: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _read_splits(build: Path, adapter: DataAdapter, check: BuildCheck, metadata: dict) -> None:
    recorded = metadata.get("splits", {})
    for name in SPLIT_NAMES:
        path = build / f"{name}.jsonl"
        if not path.is_file():
            check.problems.append(f"{path}: missing")
            continue
        expected = recorded.get(name, {}).get("sha256")
        if expected and file_sha256(path) != expected:
            check.problems.append(f"{path}: sha256 differs from metadata.json ({expected})")
        try:
            check.rows[name] = read_jsonl_rows(path, adapter.from_json)
        except DatasetStoreError as exc:
            check.problems.append(str(exc))
            continue
        n = recorded.get(name, {}).get("n")
        if n is not None and n != len(check.rows[name]):
            check.problems.append(f"{path}: {len(check.rows[name])} rows, metadata says {n}")


def _adapter(build: Path, adapter: DataAdapter | None) -> tuple[DataAdapter, dict[str, Any]]:
    if adapter is None:
        return adapter_for_build(build)
    return adapter, read_metadata(build)


def validate_build(
    build: Path,
    adapter: DataAdapter | None = None,
    *,
    recheck: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> BuildCheck:
    """Schema, hashes, counts, unique ids, disjoint groups and contamination of a build
    (the adapter defaults to the one of the environment named in its metadata); with
    `recheck`, also the environment's own verification of every row (`DataAdapter.recheck`)."""
    adapter, metadata = _adapter(build, adapter)
    check = BuildCheck(build=build)
    _read_splits(build, adapter, check, metadata)
    if recheck:
        if adapter.recheck is None:
            check.problems.append(f"{adapter.env_id} has no row re-check (--recheck)")
        else:
            everything = [(name, row) for name, rows in check.rows.items() for row in rows]
            for done, (name, row) in enumerate(everything, 1):
                row_id = adapter.to_json(row).get("id")
                check.problems += [f"{name}/{row_id}: {p}" for p in adapter.recheck(row)]
                if progress is not None:
                    progress(done, len(everything))
    seen: dict[str, str] = {}
    for name, rows in check.rows.items():
        for row in rows:
            row_id = str(adapter.to_json(row).get("id"))
            if row_id in seen:
                check.problems.append(f"id {row_id!r} appears in {seen[row_id]} and {name}")
            seen.setdefault(row_id, name)
    facets = facets_by_split(adapter, check.rows)
    threshold = metadata.get("dedup", {}).get("threshold") or DEFAULT_NEAR_DUP_THRESHOLD
    check.contamination = split_contamination(facets, threshold=threshold)
    for pair, found in check.contamination["pairs"].items():
        if found["shared_groups"]:
            check.problems.append(f"{pair}: {found['shared_groups']} groups span both splits")
        if found["exact"] or found["near"]:
            check.problems.append(
                f"{pair}: {found['exact']} exact and {found['near']} near-duplicate rows shared"
            )
    return check


def facets_by_split(adapter: DataAdapter, rows: dict[str, list[Any]]) -> dict[str, list[Facets]]:
    return {name: [adapter.facets(r) for r in part] for name, part in rows.items()}


def build_stats(build: Path, adapter: DataAdapter | None = None) -> dict[str, Any]:
    """Label balance, scenario coverage and lengths per split, recomputed from the files."""
    adapter, metadata = _adapter(build, adapter)
    check = BuildCheck(build=build)
    _read_splits(build, adapter, check, metadata)
    if check.problems and not check.rows:
        raise DatasetStoreError("; ".join(check.problems))
    facets = facets_by_split(adapter, check.rows)
    per_split = {name: split_summary(f, adapter.labels) for name, f in facets.items()}
    scenarios = sorted({s for f in facets.values() for s in (x.scenario for x in f)})
    coverage = {
        scenario: [name for name, f in facets.items() if any(x.scenario == scenario for x in f)]
        for scenario in scenarios
    }
    return {
        "env_id": adapter.env_id,
        "build": str(build),
        "splits": per_split,
        "scenario_coverage": coverage,
        "scenarios_missing_from_test": [s for s, where in coverage.items() if "test" not in where],
    }
