"""Local GGUF models run by llama.cpp: `local/<built-in>` or `local:<file.gguf>`.

Served in-process (default) or by llama-cpp-python's server (SV_LOCAL_BACKEND=server) on
127.0.0.1; the `LocalServerPool` loads each file once and stops it at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx2

from security_verifiers.models.local_gguf import (
    BUILTIN_GGUF,
    LOCAL_PATH_PREFIX,
    LOCAL_PREFIX,
    local_model_path,
    local_runtime_available,
)
from security_verifiers.models.providers.base import ClientOptions, Provider, ResolveContext, Served
from security_verifiers.models.spec import ModelSpec

if TYPE_CHECKING:
    from security_verifiers.models.local_server import LocalServerPool


class LlamaCppProvider(Provider):
    kind = "local"
    schemes = (LOCAL_PREFIX, LOCAL_PATH_PREFIX)
    order = 10
    free = False  # a real model: cost stays unknown (None) unless --price is given
    probe = False  # the server was probed when it started
    serial = True
    section = "Local models, served by the harness on 127.0.0.1"

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        gguf = local_model_path(name)
        if gguf is None:
            return None
        return ModelSpec(name=name, model_id=name, kind=self.kind, base_url="", gguf=gguf)

    def help_lines(self) -> list[tuple[str, str]]:
        ready = "" if local_runtime_available() else " (needs `make setup`: llama-cpp-python)"
        lines = [(f"{LOCAL_PREFIX}{n}", f"built-in GGUF via llama.cpp{ready}")
                 for n in BUILTIN_GGUF]  # fmt: skip
        return [*lines, (f"{LOCAL_PATH_PREFIX}<file.gguf>", "any GGUF file via llama.cpp")]

    def start_message(self, spec: ModelSpec) -> str | None:
        return f"Loading {spec.gguf.name} ..." if spec.gguf is not None else None

    def serve(self, spec: ModelSpec, pool: LocalServerPool) -> Served:
        if spec.gguf is None:
            return Served(spec)
        server = pool.get(spec.gguf, spec.model_id)
        return Served(replace(spec, base_url=server.base_url), server.transport(), server)

    def transport(self, spec: ModelSpec, options: ClientOptions) -> httpx2.AsyncBaseTransport:
        from security_verifiers.models.transports import LlamaCppCompatTransport

        return LlamaCppCompatTransport(super().transport(spec, options))

    def response_format(self, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        return {"type": "json_object", "schema": schema}  # llama.cpp's grammar-backed dialect

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        from security_verifiers.models.local_server import local_backend

        return {"local_backend": local_backend(), "api_key_env": None}


PROVIDER = LlamaCppProvider()
