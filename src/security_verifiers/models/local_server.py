"""Running llama-cpp-python's OpenAI-compatible server for local GGUF models.

The harness starts one server per GGUF file on a free 127.0.0.1 port, waits until it answers,
reuses it for every run in the same process, and stops it at the end — on success, on errors
and on Ctrl-C. The child runs in its own process group and is told by the kernel to exit if
the harness dies (PR_SET_PDEATHSIG), so no server outlives the harness.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from security_verifiers.errors import UserError
from security_verifiers.models.server_process import (  # noqa: F401 (re-exported)
    PR_SET_PDEATHSIG,
    LlamaSettings,
    ServerProcess,
    free_port,
    local_threads,
)

if TYPE_CHECKING:
    from security_verifiers.models.local_inprocess import InProcessLlama


@dataclass
class LlamaCppServer(LlamaSettings, ServerProcess):
    """One `python -m llama_cpp.server` child process serving `gguf` as `alias`."""

    startup_timeout_s: float = 180.0
    port: int = 0
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    log_prefix = "sv-llama-server-"

    def command(self) -> list[str]:
        flags = [part for key, value in self.llama_kwargs().items()
                 for part in (f"--{key}", str(value))]  # fmt: skip
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.gguf),
            "--model_alias", self.alias,
            "--host", "127.0.0.1",
            "--port", str(self.port),
            *flags,
            "--verbose", "False",
        ]  # fmt: skip


LOCAL_BACKEND_ENV = "SV_LOCAL_BACKEND"
LOCAL_BACKENDS = ("inprocess", "server")
"""How local GGUF models run: ``inprocess`` (default; `local_inprocess.InProcessLlama`, one
`llama_cpp.Llama` in this process) or ``server`` (a `LlamaCppServer` child over HTTP)."""


def local_backend() -> str:
    """The local backend chosen by ``$SV_LOCAL_BACKEND`` (default ``inprocess``)."""
    value = os.environ.get(LOCAL_BACKEND_ENV, "").strip().lower() or LOCAL_BACKENDS[0]
    if value not in LOCAL_BACKENDS:
        raise UserError(
            f"{LOCAL_BACKEND_ENV}={value!r}: expected one of {', '.join(LOCAL_BACKENDS)}"
        )
    return value


class LocalServerPool:
    """Local models started by this process, keyed by GGUF path; `close()` stops them all."""

    def __init__(self) -> None:
        self._servers: dict[Path, Any] = {}

    def get(self, gguf: Path, alias: str) -> LlamaCppServer | InProcessLlama:
        """A running model for `gguf` (the backend `local_backend()` picks): the one already
        started, or a new one. Either has `base_url`, `transport()`, `alive()`, `stop()`."""
        server = self._servers.get(gguf)
        if server is not None and server.alive():
            return server
        if local_backend() == "server":
            server = LlamaCppServer(gguf=gguf, alias=alias)
        else:
            from security_verifiers.models.local_inprocess import InProcessLlama

            server = InProcessLlama(gguf=gguf, alias=alias)
        server.start()
        self._servers[gguf] = server
        return server

    def get_hf(self, checkpoint: str, alias: str) -> Any:
        """A running Hugging Face model server (`hf_server.HFServer`) for `checkpoint`."""
        from security_verifiers.models.hf_server import HFServer

        server = self._servers.get(Path(f"hf:{checkpoint}"))
        if server is not None and server.alive():
            return server
        server = HFServer(checkpoint=checkpoint, alias=alias)
        server.start()
        self._servers[Path(f"hf:{checkpoint}")] = server
        return server

    def close(self) -> None:
        while self._servers:
            _, server = self._servers.popitem()
            server.stop()

    def __enter__(self) -> LocalServerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
