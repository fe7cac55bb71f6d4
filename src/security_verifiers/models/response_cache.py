"""An opt-in on-disk cache of model responses, keyed on the full request."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


class ResponseCache:
    """One file per response under `root/<key[:2]>/<key>.json`; writes are atomic."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(method: str, url: str, body: bytes) -> str:
        """sha256 over method, URL and the body re-serialised canonically (sorted keys)."""
        try:
            canonical = json.dumps(
                json.loads(body or b"null"), sort_keys=True, separators=(",", ":")
            )
        except ValueError:
            canonical = body.decode("utf-8", "replace")
        return hashlib.sha256(f"{method}\n{url}\n{canonical}".encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            content = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        self.hits += 1
        return content

    def put(self, key: str, content: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            os.replace(tmp, path)
        except BaseException:  # disk full, ...: leave no half-written temporary file
            Path(tmp).unlink(missing_ok=True)
            raise

    def stats(self) -> dict[str, int | str]:
        return {"dir": str(self.root), "hits": self.hits, "misses": self.misses}
