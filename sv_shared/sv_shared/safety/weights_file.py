"""Reading and writing the judges' JSON weight files, plain or gzip-compressed.

Compressed files are written byte-for-byte reproducibly (no name or time in the gzip
header), so a version hash over the file's bytes names the weights alone.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from sv_shared.safety.types import JudgeError


def read_weights(path: str | Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path`` (``.gz`` is decompressed); JudgeError naming the file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise JudgeError(f"{path}: cannot read {what}: {exc}") from None
    if not isinstance(data, dict):
        raise JudgeError(f"{path}: {what} is not a JSON object")
    return data


def write_weights(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path``, gzip-compressed reproducibly when it ends in ``.gz``."""
    path = Path(path)
    data = text.encode("utf-8")
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as f:
            f.write(data)
        data = buffer.getvalue()
    path.write_bytes(data)
