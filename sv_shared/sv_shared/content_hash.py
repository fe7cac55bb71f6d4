"""The content hashes environments record for their datasets (`sv_dataset_info.content_hash`).

Two historical forms, kept byte-for-byte so recorded hashes (golden files, run identities) stay
valid: one digest over the whole canonical JSON list, or `sha256:` over one line per item.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any


def json_sha256(
    value: Any, *, default: Callable[[Any], Any] | None = None, prefix: bool = False
) -> str:
    """SHA-256 hex of `value`'s JSON with sorted keys (`sha256:`-prefixed with `prefix`)."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=default).encode())
    return f"sha256:{digest.hexdigest()}" if prefix else digest.hexdigest()


def lines_sha256(lines: Iterable[str]) -> str:
    """``sha256:<hex>`` over each line followed by a newline; order-sensitive by design (a
    dataset is a sequence: evaluation order, `max_examples` prefixes)."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return f"sha256:{digest.hexdigest()}"


__all__ = ["json_sha256", "lines_sha256"]
