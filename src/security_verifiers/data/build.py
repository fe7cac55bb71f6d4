"""`sv data build`: validate, deduplicate, split, check and record one environment's data."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from security_verifiers.data.card import dataset_card
from security_verifiers.data.contamination import split_contamination
from security_verifiers.data.dedup import deduplicate
from security_verifiers.data.fingerprint import DEFAULT_NEAR_DUP_THRESHOLD
from security_verifiers.data.rows_io import write_jsonl
from security_verifiers.data.summaries import split_summary
from security_verifiers.errors import UserError
from security_verifiers.evaluation.provenance import git_state, package_versions
from sv_shared.data import DataAdapter, Facets, SourceData, SourceRequest, grouped_split
from sv_shared.data.splits import SPLIT_NAMES, check_fractions
from sv_shared.data.store import (
    DatasetStoreError,
    datasets_root,
    describe_validation_error,
    file_sha256,
    next_build_name,
    read_jsonl_rows,
)

SCHEMA_VERSION = 1


@dataclass
class ValidationReport:
    rows_in: int = 0
    invalid: int = 0
    duplicate_ids: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows_in": self.rows_in,
            "invalid": self.invalid,
            "duplicate_ids": self.duplicate_ids,
            "valid": self.rows_in - self.invalid - self.duplicate_ids,
        }


def validate_rows(adapter: DataAdapter, rows: Sequence[Any]) -> tuple[list[Any], ValidationReport]:
    """Round-trip every row through the schema (JSON out, validated back in); ids unique."""
    report = ValidationReport(rows_in=len(rows))
    seen: set[str] = set()
    valid: list[Any] = []
    for index, row in enumerate(rows):
        try:
            data = adapter.to_json(row)
            checked = adapter.from_json(json.loads(json.dumps(data)))
        except ValidationError as exc:
            report.invalid += 1
            report.rejected.append(
                {"index": index, "stage": "schema", "reason": describe_validation_error(exc)}
            )
            continue
        except (TypeError, ValueError) as exc:
            report.invalid += 1
            report.rejected.append({"index": index, "stage": "schema", "reason": str(exc)})
            continue
        row_id = str(data.get("id", index))
        if row_id in seen:
            report.duplicate_ids += 1
            report.rejected.append(
                {"index": index, "id": row_id, "stage": "schema", "reason": "duplicate id"}
            )
            continue
        seen.add(row_id)
        valid.append(checked)
    return valid, report


def _memoized_facets(adapter: DataAdapter) -> Callable[[Any], Facets]:
    """``adapter.facets`` computed once per row object (rendering can be costly)."""
    cache: dict[int, tuple[Any, Facets]] = {}

    def facets_of(row: Any) -> Facets:
        hit = cache.get(id(row))
        if hit is None or hit[0] is not row:
            hit = (row, adapter.facets(row))
            cache[id(row)] = hit
        return hit[1]

    return facets_of


def schema_fingerprint(adapter: DataAdapter) -> dict[str, str]:
    schema = adapter.schema().json_schema(mode="serialization")
    blob = json.dumps(schema, sort_keys=True).encode()
    return {
        "type": getattr(adapter.row_type, "__name__", str(adapter.row_type)),
        "sha256": f"sha256:{hashlib.sha256(blob).hexdigest()}",
    }


def row_id(adapter: DataAdapter, row: Any) -> str:
    return str(adapter.to_json(row).get("id"))


@dataclass(frozen=True)
class BuildOptions:
    source: str | None = None
    request: SourceRequest = field(default_factory=SourceRequest)
    fractions: tuple[float, float, float] = (0.7, 0.15, 0.15)
    near_dup_threshold: float | None = DEFAULT_NEAR_DUP_THRESHOLD
    root: Path | None = None
    date: str | None = None
    synth_runs: tuple[Path, ...] = ()
    """`sv synth` output directories whose accepted rows join the build."""


def load_source(adapter: DataAdapter, options: BuildOptions) -> SourceData:
    name = options.source or adapter.default_source
    if name not in adapter.sources:
        known = ", ".join(adapter.sources)
        raise UserError(f"{adapter.env_id}: unknown source '{name}'; available: {known}")
    try:
        return adapter.sources[name](options.request)
    except (ValueError, OSError) as exc:
        raise UserError(f"{adapter.env_id}: source '{name}': {exc}") from None


def build_dataset(adapter: DataAdapter, options: BuildOptions) -> Path:
    """Build one dataset directory and return it (written atomically: nothing half-written)."""
    try:
        fractions = check_fractions(options.fractions)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    sources = [
        load_source(adapter, options),
        *(synth_source(adapter, p) for p in options.synth_runs),
    ]
    rows, validation = validate_rows(adapter, [row for data in sources for row in data.rows])
    if not rows:
        raise UserError(f"{adapter.env_id}: the sources produced no valid rows")
    facets_of = _memoized_facets(adapter)
    rows, dedup = deduplicate(
        rows, facets_of, lambda r: row_id(adapter, r), threshold=options.near_dup_threshold
    )
    for index, removed_id, reason in dedup.removed:
        validation.rejected.append(
            {"stage": "dedup", "id": removed_id, "reason": reason, "index": index}
        )
    splits = grouped_split(
        rows,
        group=lambda r: facets_of(r).group,
        stratum=lambda r: (facets_of(r).label, facets_of(r).scenario),
        fractions=fractions,
        seed=options.request.seed,
    )
    facets = {name: [facets_of(r) for r in part] for name, part in splits.items()}
    if adapter.assign_split is not None:
        splits = {
            name: [adapter.assign_split(r, name) for r in part] for name, part in splits.items()
        }
    contamination = split_contamination(
        facets, threshold=options.near_dup_threshold or DEFAULT_NEAR_DUP_THRESHOLD
    )
    root = options.root or datasets_root()
    date = options.date or datetime.now(UTC).strftime("%Y-%m-%d")
    name = next_build_name(adapter.env_id, date, root)
    final = root / adapter.env_id / name
    staging = root / adapter.env_id / f".{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        split_meta: dict[str, Any] = {}
        for split_name in SPLIT_NAMES:
            path = staging / f"{split_name}.jsonl"
            write_jsonl(path, (adapter.to_json(r) for r in splits[split_name]))
            split_meta[split_name] = {
                "file": path.name,
                "sha256": file_sha256(path),
                **split_summary(facets[split_name], adapter.labels),
            }
        rejections = [r for data in sources for r in _source_rejections(data)]
        write_jsonl(staging / "rejected.jsonl", validation.rejected + rejections)
        metadata = {
            "schema_version": SCHEMA_VERSION,
            "env_id": adapter.env_id,
            "build": name,
            "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
            "description": adapter.description,
            "license": "; ".join(dict.fromkeys(data.license for data in sources)),
            "sources": [_source_meta(data) for data in sources],
            "seed": options.request.seed,
            "fractions": dict(zip(SPLIT_NAMES, fractions, strict=True)),
            "versions": {**adapter.versions(), **_tool_versions()},
            "row_schema": schema_fingerprint(adapter),
            "validation": validation.to_dict(),
            "dedup": {"threshold": options.near_dup_threshold, **dedup.to_dict()},
            "counts": {"total": len(rows), **{k: len(v) for k, v in splits.items()}},
            "splits": split_meta,
            "contamination": contamination,
            "code": git_state(),
        }
        (staging / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
        (staging / "README.md").write_text(dataset_card(metadata))
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def synth_source(adapter: DataAdapter, run: Path) -> SourceData:
    """The accepted rows of an `sv synth` run as a build source."""
    accepted, meta_path = run / "accepted.jsonl", run / "metadata.json"
    if not accepted.is_file() or not meta_path.is_file():
        raise UserError(f"{run}: not a finished `sv synth` run (accepted.jsonl, metadata.json)")
    metadata = json.loads(meta_path.read_text(encoding="utf-8"))
    if metadata.get("env_id") != adapter.env_id:
        raise UserError(f"{run}: synthesized for {metadata.get('env_id')}, not {adapter.env_id}")
    try:
        rows = read_jsonl_rows(accepted, adapter.from_json)
    except DatasetStoreError as exc:
        raise UserError(str(exc)) from None
    return SourceData(
        rows=rows,
        name=f"synth:{metadata['model']['name']}",
        license=metadata.get("license", "generated"),
        origin=str(run),
        revision=file_sha256(accepted),
        notes={"verifier": metadata.get("verifier"), "results": metadata.get("results", {})},
    )


def _source_meta(data: SourceData) -> dict[str, Any]:
    return {
        "name": data.name,
        "origin": data.origin,
        "license": data.license,
        "revision": data.revision,
        "rows": len(data.rows),
        "rejected_at_source": len(data.rejected),
        "notes": dict(data.notes),
    }


def _source_rejections(data: SourceData) -> list[dict[str, Any]]:
    return [{"stage": "source", "where": where, "reason": why} for where, why in data.rejected]


def _tool_versions() -> dict[str, str]:
    found = package_versions(("security-verifiers", "sv-shared", "verifiers", "datasketch"))
    return {name: version or "unknown" for name, version in found.items()}
