"""Finding and reading built datasets: ``<root>/<env-id>/<date>[.<n>]/<split>.jsonl``.

The root is ``$SV_DATASETS_DIR`` or ``outputs/datasets``. A dataset is referred to by a
directory path, by its build name (``2026-11-21`` or ``2026-11-21.2``) or as ``latest``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sv_shared.data.splits import SPLIT_NAMES

BUILD_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:\.(\d+))?$")
METADATA_FILE = "metadata.json"


class DatasetStoreError(ValueError):
    """A dataset reference or file that cannot be used; the message names it."""


def datasets_root() -> Path:
    return Path(os.environ.get("SV_DATASETS_DIR") or "outputs/datasets")


def _build_order(path: Path) -> tuple[str, int]:
    match = BUILD_NAME.match(path.name)
    assert match is not None
    return match.group(1), int(match.group(2) or 1)


def list_builds(env_id: str, root: Path | None = None) -> list[Path]:
    """Complete builds of ``env_id`` (those with a metadata.json), oldest first."""
    base = (root or datasets_root()) / env_id
    if not base.is_dir():
        return []
    builds = [
        p for p in base.iterdir() if BUILD_NAME.match(p.name) and (p / METADATA_FILE).is_file()
    ]
    return sorted(builds, key=_build_order)


def next_build_name(env_id: str, date: str, root: Path | None = None) -> str:
    """``date`` for the first build of the day, then ``date.2``, ``date.3`` ..."""
    base = (root or datasets_root()) / env_id
    taken = {p.name for p in base.iterdir()} if base.is_dir() else set()
    if date not in taken:
        return date
    n = 2
    while f"{date}.{n}" in taken:
        n += 1
    return f"{date}.{n}"


def resolve_build(env_id: str, ref: str = "latest", root: Path | None = None) -> Path:
    """The build directory that ``ref`` (a path, a build name or ``latest``) refers to."""
    ref = str(ref).strip()
    candidate = Path(ref).expanduser()
    if ref not in ("", "latest") and (candidate.is_dir() or "/" in ref or ref.startswith(".")):
        if not (candidate / METADATA_FILE).is_file():
            raise DatasetStoreError(f"{candidate}: not a built dataset (no {METADATA_FILE})")
        return candidate
    builds = list_builds(env_id, root)
    where = (root or datasets_root()) / env_id
    if not builds:
        raise DatasetStoreError(
            f"no built dataset for {env_id} under {where}; run `sv data build {env_id}`"
        )
    if ref in ("", "latest"):
        return builds[-1]
    for build in builds:
        if build.name == ref:
            return build
    names = ", ".join(b.name for b in builds)
    raise DatasetStoreError(f"no build '{ref}' of {env_id} under {where}; available: {names}")


def read_metadata(build: Path) -> dict[str, Any]:
    path = build / METADATA_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetStoreError(f"{path}: unreadable ({exc})") from None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def read_jsonl_rows(path: Path, from_json: Callable[[Any], Any]) -> list[Any]:
    """Rows of one JSONL file, each validated; errors name the file, line and field."""
    rows: list[Any] = []
    with path.open("r", encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append(from_json(json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DatasetStoreError(f"{path}: line {line_no}: invalid JSON ({exc})") from None
            except ValidationError as exc:
                raise DatasetStoreError(
                    f"{path}: line {line_no}: {describe_validation_error(exc)}"
                ) from None
    return rows


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem of a pydantic error as ``field: message``."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "row"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


@dataclass(frozen=True)
class BuiltDataset:
    rows: list[Any]
    info: dict[str, Any]


def load_built_split(
    env_id: str,
    ref: str,
    split: str,
    from_json: Callable[[Any], Any],
    root: Path | None = None,
) -> BuiltDataset:
    """Rows of one split (or ``all``) of a built dataset, checked against its recorded hashes."""
    if split not in (*SPLIT_NAMES, "all"):
        raise DatasetStoreError(f"unknown split {split!r}; valid: train, dev, test, all")
    build = resolve_build(env_id, ref, root)
    metadata = read_metadata(build)
    if metadata.get("env_id") not in (None, env_id):
        raise DatasetStoreError(f"{build}: built for {metadata.get('env_id')}, not {env_id}")
    recorded = metadata.get("splits", {})
    rows: list[Any] = []
    hashes: dict[str, str] = {}
    for name in SPLIT_NAMES if split == "all" else (split,):
        path = build / f"{name}.jsonl"
        if not path.is_file():
            raise DatasetStoreError(f"{path}: missing")
        actual = file_sha256(path)
        expected = recorded.get(name, {}).get("sha256")
        if expected and expected != actual:
            raise DatasetStoreError(
                f"{path}: content changed since it was built ({actual} != {expected}); "
                f"rebuild it with `sv data build` or restore the file"
            )
        hashes[name] = actual
        rows.extend(read_jsonl_rows(path, from_json))
    info = {
        "source": "dataset",
        "dataset": str(build),
        "build": build.name,
        "split": split,
        "n": len(rows),
        "content_hash": hashes[split] if split != "all" else _combined(hashes),
        "built_from": [s.get("name") for s in metadata.get("sources", [])],
        "license": metadata.get("license", ""),
    }
    return BuiltDataset(rows=rows, info=info)


def load_built_rows(
    env_id: str,
    ref: str,
    split: str,
    from_json: Callable[[Any], Any],
    error: Callable[[str], Exception] = DatasetStoreError,
    context: str = "",
) -> tuple[list[Any], dict[str, Any]]:
    """`load_built_split` as (rows, provenance info), for an environment's loader: a store
    problem is raised as `error` (the environment's own data error), its message prefixed with
    `context`."""
    try:
        built = load_built_split(env_id, ref, split, from_json)
    except DatasetStoreError as exc:
        raise error(f"{context}{exc}") from None
    return list(built.rows), built.info


def _combined(hashes: dict[str, str]) -> str:
    joined = "\n".join(f"{k}={v}" for k, v in sorted(hashes.items()))
    return f"sha256:{hashlib.sha256(joined.encode()).hexdigest()}"


def build_provenance(info: dict[str, Any]) -> dict[str, Any]:
    """What an environment records in ``sv_dataset_info`` about the build it read."""
    return {
        "dataset": info["dataset"],
        "build": info["build"],
        "split": info["split"],
        "revision": info["content_hash"],
        "license": info["license"],
    }
