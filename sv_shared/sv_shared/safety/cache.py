"""Verdict cache: in memory, optionally persisted as JSONL under a directory; thread-safe."""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

from sv_shared.safety.types import (
    JudgeError,
    Message,
    SafetyJudge,
    Verdict,
    check_conversation,
)

CACHE_FILE = "verdicts.jsonl"


def cache_key(backend_id: str, model: str, conversation: Sequence[Message]) -> str:
    """sha256 over the backend id, the model and the canonical JSON of the conversation."""
    canonical = json.dumps(
        check_conversation(conversation),
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    payload = f"{backend_id}\n{model}\n{canonical}".encode()
    return hashlib.sha256(payload).hexdigest()


class VerdictCache:
    """Key -> :class:`Verdict`; with ``cache_dir`` every new verdict is appended to a JSONL file
    there and earlier ones are loaded at start (unreadable lines are skipped with a warning)."""

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self._lock = threading.Lock()
        self._memory: dict[str, Verdict] = {}
        self.hits = 0
        self.misses = 0
        self.path: Path | None = None
        if cache_dir is not None:
            directory = Path(cache_dir)
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JudgeError(
                    f"cannot create verdict cache directory {directory}: {exc}"
                ) from None
            self.path = directory / CACHE_FILE
            self._load(self.path)

    def _load(self, path: Path) -> None:
        if not path.exists():
            return
        with path.open(encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    self._memory[row["key"]] = Verdict.from_dict(row["verdict"])
                except (ValueError, KeyError, TypeError):
                    warnings.warn(
                        f"{path}:{line_number}: unreadable cache line skipped", stacklevel=3
                    )

    def __len__(self) -> int:
        return len(self._memory)

    def get(self, key: str) -> Verdict | None:
        """The cached verdict, counting a hit or a miss."""
        with self._lock:
            verdict = self._memory.get(key)
            if verdict is None:
                self.misses += 1
            else:
                self.hits += 1
            return verdict

    def put(self, key: str, verdict: Verdict) -> None:
        """Store ``verdict`` (and append it to the JSONL file when persistent)."""
        with self._lock:
            self._memory[key] = verdict
            if self.path is not None:
                line = json.dumps({"key": key, "verdict": verdict.to_dict()}, sort_keys=True)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")


class CachedJudge:
    """A :class:`SafetyJudge` that asks ``judge`` only for conversations it has not seen."""

    def __init__(
        self, judge: SafetyJudge, backend_id: str, model: str, cache: VerdictCache
    ) -> None:
        self.judge = judge
        self.name = judge.name
        self.backend_id = backend_id
        self.model = model
        self.cache = cache

    def verdict(self, conversation: Sequence[Message]) -> Verdict:
        """The cached verdict, or the wrapped judge's (then cached)."""
        key = cache_key(self.backend_id, self.model, conversation)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        verdict = self.judge.verdict(conversation)
        self.cache.put(key, verdict)
        return verdict
