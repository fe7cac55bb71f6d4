"""What a researcher needs to reproduce a run: code version, package versions, platform."""

from __future__ import annotations

import functools
import hashlib
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGES = (
    "security-verifiers",
    "sv-shared",
    "verifiers",
    "openai",
    "datasets",
    "pydantic",
    "numpy",
)


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_state(cwd: Path | None = None) -> dict[str, Any]:
    """Commit and dirty flag of the checkout the harness runs from (None outside git)."""
    here = cwd or Path(__file__).resolve().parent
    commit = _git(["rev-parse", "HEAD"], here)
    status = _git(["status", "--porcelain", "--untracked-files=no"], here)
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def platform_info() -> dict[str, str]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


CODE_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".rego", ".toml", ".txt", ".csv", ".jsonl")
"""Files whose content decides a reward: code, rules, shipped data and parameters."""


@functools.cache
def tree_hash(root: str) -> str:
    """sha256 over the relative paths and contents of the code files under `root`."""
    digest = hashlib.sha256()
    base = Path(root)
    for path in sorted(base.rglob("*")):
        if path.suffix not in CODE_SUFFIXES or "__pycache__" in path.parts or not path.is_file():
            continue
        digest.update(path.relative_to(base).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def code_version(env_module: ModuleType, env_package: str) -> dict[str, Any]:
    """What decides how a rollout is called and scored: content hashes of the environment
    package's, `sv_shared`'s and the harness's model and evaluation code (edits count,
    committed or not) and the versions of the packages they run on. Part of the run
    fingerprint, so a resumed run never mixes scoring versions."""
    import sv_shared

    harness = Path(__file__).resolve().parents[1]
    env_root = Path(env_module.__file__ or "").resolve().parent
    return {
        "env_code_sha256": tree_hash(str(env_root)),
        "sv_shared_sha256": tree_hash(str(Path(sv_shared.__file__).resolve().parent)),
        "harness_sha256": hashlib.sha256(
            (tree_hash(str(harness / "evaluation")) + tree_hash(str(harness / "models"))).encode()
        ).hexdigest(),
        "packages": package_versions((*PACKAGES, env_package)),
    }
