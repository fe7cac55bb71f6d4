"""A server child process on 127.0.0.1 and llama.cpp's settings: the layer under the local
model servers (`local_server`), the in-process model (`local_inprocess`) and the transformers
server (`hf_server`), so none of them imports another to share these."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from security_verifiers.errors import UserError

PR_SET_PDEATHSIG = 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    # SIGKILL, not SIGTERM: the server keeps no state, and a graceful shutdown would wait for
    # in-flight generations the dead harness will never read
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class ServerProcess:
    """A model server child process on a free 127.0.0.1 port: start, wait until it answers
    ``/v1/models``, read its log for error messages, stop its whole process group.

    Subclasses say what to run (``command``), how to describe what they serve (``what``) and
    how long loading may take (``startup_timeout_s``).
    """

    port: int
    process: subprocess.Popen | None
    log_path: Path | None
    startup_timeout_s: float
    log_prefix = "sv-model-server-"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        raise NotImplementedError

    def what(self) -> str:
        raise NotImplementedError

    def load_hint(self) -> str:
        return ""

    def child_env(self) -> dict[str, str] | None:
        return None

    def start(self) -> None:
        self.port = free_port()
        log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open by the child
            prefix=self.log_prefix, suffix=".log", delete=False
        )
        self.log_path = Path(log.name)
        self.process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
            env=self.child_env(),
        )
        log.close()
        self._wait_until_ready()

    def log_tail(self, lines: int = 15) -> str:
        """The last lines the server wrote (for error messages)."""
        try:
            text = self.log_path.read_text(errors="replace") if self.log_path else ""
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise UserError(
                    f"the model server could not load {self.what()}{self.load_hint()}\n{tail}"
                )
            try:
                if httpx2.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise UserError(f"the model server for {self.what()} did not answer within "
                        f"{self.startup_timeout_s:.0f} s")  # fmt: skip

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def transport(self) -> httpx2.AsyncBaseTransport | None:
        """The client transport to reach it: None, i.e. real HTTP to `base_url`."""
        return None

    def stop(self, grace_s: float = 10.0) -> None:
        """Terminate the server's whole process group; kill it if it does not exit in time."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=grace_s)
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()


def local_threads() -> int:
    """llama.cpp threads for local models: `SV_LOCAL_THREADS`, else every CPU. On a CPU busy
    with other work use 1: llama.cpp's threads spin-wait on each other, and 2 threads on 2
    shared cores ran 3-6x slower than 1."""
    raw = os.environ.get("SV_LOCAL_THREADS", "").strip()
    if not raw:
        return os.cpu_count() or 1
    if not raw.isdigit() or int(raw) < 1:
        raise UserError(f"SV_LOCAL_THREADS={raw!r}: expected a whole number of threads >= 1")
    return int(raw)


@dataclass
class LlamaSettings:
    """How a GGUF is loaded: the one `llama_cpp.Llama` configuration both local backends use."""

    gguf: Path
    alias: str
    n_ctx: int = 4096
    threads: int = field(default_factory=local_threads)

    def llama_kwargs(self) -> dict[str, Any]:
        """The `llama_cpp.Llama` settings of both backends (and of `make bench`'s bare
        in-process baseline, so the three cannot drift apart).

        ``logits_all=False``: the server's own default (True) computes the vocabulary logits
        of every *prompt* token, which no chat completion reads (prompt logprobs only) and which
        made the server ~20 % slower than bare llama-cpp-python. ``n_threads_batch`` is pinned
        to ``n_threads`` (the server otherwise uses every core for the prompt).
        """
        return {
            "n_ctx": self.n_ctx,
            "n_threads": self.threads,
            "n_threads_batch": self.threads,
            "logits_all": False,
        }

    def what(self) -> str:
        return str(self.gguf)

    def load_hint(self) -> str:
        return " (is the file a complete, uncorrupted GGUF?)"
