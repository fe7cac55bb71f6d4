"""The data adapter of an environment, looked up by short name, id or build directory."""

from __future__ import annotations

from pathlib import Path

from security_verifiers.environments import EnvEntry, resolve_env
from security_verifiers.errors import UserError
from sv_shared.data import DataAdapter
from sv_shared.data.store import DatasetStoreError, read_metadata


def adapter_for(entry: EnvEntry) -> DataAdapter:
    entry.module()  # a clear error when the environment is not installed
    factory = entry.hook("data_adapter")  # EnvSpec.data_adapter
    if factory is None:
        raise UserError(f"{entry.env_id} has no dataset pipeline (no data_adapter())")
    return factory()


def adapter_for_build(build: Path) -> tuple[DataAdapter, dict]:
    """The adapter of the environment a built dataset belongs to, and its metadata."""
    try:
        metadata = read_metadata(build)
    except DatasetStoreError as exc:
        raise UserError(str(exc)) from None
    env_id = metadata.get("env_id")
    if not env_id:
        raise UserError(f"{build / 'metadata.json'}: field env_id is missing")
    return adapter_for(resolve_env(env_id)), metadata
