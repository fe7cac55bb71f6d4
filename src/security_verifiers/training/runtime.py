"""Threads and dtype for every training stage (SFT, RL, eval), set the same way everywhere.

`threads` sets `torch.set_num_threads` (and the interop pool) before any work; `dtype: auto`
picks bfloat16 on a GPU that supports it and on CPUs with native bf16 (AVX512-BF16 or AMX),
otherwise float32. Asking for bfloat16 on a CPU without it falls back to float32 with a notice
(emulated bf16 is slower than fp32 there). The resolved values are recorded in the checkpoint.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import resource
import sys
from dataclasses import asdict, dataclass
from typing import Any

DTYPES = ("auto", "float32", "bfloat16", "float16")


@dataclass(frozen=True)
class Runtime:
    device: str
    """"cuda" or "cpu"."""
    dtype: str
    """The dtype weights are loaded and trained in (never "auto")."""
    requested_dtype: str
    threads: int
    """torch intra-op threads (CPU); on a GPU, the host-side threads."""
    cpu_bf16: bool
    notice: str | None = None

    @property
    def bf16(self) -> bool:
        return self.dtype == "bfloat16"

    @property
    def fp16(self) -> bool:
        return self.dtype == "float16"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def cpu_supports_bf16() -> bool:
    """Native bf16 matmuls on this CPU (AVX512-BF16 or AMX tiles)."""
    import torch

    cpu = getattr(torch, "cpu", None)
    for probe in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        check = getattr(cpu, probe, None)
        try:
            if check is not None and check():
                return True
        except RuntimeError:  # pragma: no cover - probes are best effort
            continue
    return False


def default_threads() -> int:
    """The CPUs this process may use (respects taskset/cgroup affinity)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def setup_runtime(threads: int | None = None, dtype: str = "auto") -> Runtime:
    """Apply `threads` to torch and resolve `dtype` for this machine."""
    import torch

    if dtype not in DTYPES:
        raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")
    n = threads or default_threads()
    torch.set_num_threads(n)
    with contextlib.suppress(RuntimeError):  # settable once per process (tests, stages)
        torch.set_num_interop_threads(max(1, min(n, 2)))
    cuda = torch.cuda.is_available()
    cpu_bf16 = cpu_supports_bf16()
    notice = None
    if cuda:
        bf16_ok = torch.cuda.is_bf16_supported()
        resolved = ("bfloat16" if bf16_ok else "float32") if dtype == "auto" else dtype
        if resolved == "bfloat16" and not bf16_ok:
            resolved, notice = "float16", "this GPU has no bf16; training in float16"
    else:
        resolved = ("bfloat16" if cpu_bf16 else "float32") if dtype == "auto" else dtype
        if resolved == "bfloat16" and not cpu_bf16:
            resolved = "float32"
            notice = "this CPU has no native bf16 (AVX512-BF16/AMX): training in float32"
        elif resolved == "float16":
            resolved, notice = "float32", "float16 is a GPU dtype: training in float32 on CPU"
    return Runtime("cuda" if cuda else "cpu", resolved, dtype, n, cpu_bf16, notice)


def peak_rss_mb() -> float:
    """This process's peak resident memory (getrusage maxrss) in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def current_rss_mb() -> float | None:
    """This process's resident memory now in MB (Linux /proc; None elsewhere)."""
    try:
        pages = int(open("/proc/self/statm").read().split()[1])  # noqa: SIM115
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


@functools.cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release_free_memory() -> bool:
    """Return the C heap's free pages to the OS (glibc `malloc_trim`); False where there is no
    glibc (macOS, musl) or nothing was released."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
