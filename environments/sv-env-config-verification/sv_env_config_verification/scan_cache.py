"""Cache of per-tool scan results keyed by (tool, tool version, rules hash, kind, content hash).

An in-memory LRU, optionally backed by a directory of JSON files (one per key, written
atomically) so that results survive processes. Results with an error are never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from .tools import ToolResult


def cache_key(tool: str, version: str, rules_hash: str, kind: str, content_hash: str) -> str:
    """The sha256 key of one (tool, tool version, rules hash, config kind, content hash)."""
    return hashlib.sha256(
        "\0".join((tool, version, rules_hash, kind, content_hash)).encode()
    ).hexdigest()


class ScanCache:
    """LRU of `ToolResult`s (`maxsize` entries) plus an optional on-disk JSON store."""

    def __init__(self, maxsize: int = 4096, directory: str | Path | None = None) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be >= 1")
        self.maxsize = maxsize
        self.directory = Path(directory) if directory is not None else None
        self._mem: OrderedDict[str, ToolResult] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ToolResult | None:
        with self._lock:
            if key in self._mem:
                self._mem.move_to_end(key)
                self.hits += 1
                return _copy(self._mem[key])
        result = self._load(key)
        with self._lock:
            if result is None:
                self.misses += 1
                return None
            self.hits += 1
            self._remember(key, result)
        return _copy(result)

    def put(self, key: str, result: ToolResult) -> None:
        if result.error is not None or not result.available:
            return
        with self._lock:
            self._remember(key, _copy(result))
        if self.directory is not None:
            path = self._path(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(result.to_json(), fh, sort_keys=True)
            os.replace(tmp, path)

    def clear(self) -> None:
        with self._lock:
            self._mem.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._mem)

    def _remember(self, key: str, result: ToolResult) -> None:
        self._mem[key] = result
        self._mem.move_to_end(key)
        while len(self._mem) > self.maxsize:
            self._mem.popitem(last=False)

    def _load(self, key: str) -> ToolResult | None:
        if self.directory is None:
            return None
        try:
            return ToolResult.from_json(json.loads(self._path(key).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None


def _copy(result: ToolResult) -> ToolResult:
    return ToolResult.from_json(result.to_json())
