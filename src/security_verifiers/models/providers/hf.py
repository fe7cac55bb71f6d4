"""`hf:<checkpoint>`: a transformers / PEFT checkpoint served on 127.0.0.1 by `hf_server`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from security_verifiers.models.hf_server import HF_PREFIX, checkpoint_of
from security_verifiers.models.providers.base import Provider, ResolveContext, Served
from security_verifiers.models.spec import ModelSpec

if TYPE_CHECKING:
    from security_verifiers.models.local_server import LocalServerPool


class HFProvider(Provider):
    kind = "hf"
    schemes = (HF_PREFIX,)
    order = 20
    probe = False  # the server was probed when it started
    serial = True
    section = "Local models, served by the harness on 127.0.0.1"

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        checkpoint = checkpoint_of(name)
        if checkpoint is None:
            return None
        return ModelSpec(name=name, model_id=name, kind=self.kind, base_url="",
                         checkpoint=checkpoint)  # fmt: skip

    def help_lines(self) -> list[tuple[str, str]]:
        return [(f"{HF_PREFIX}<checkpoint>", "a transformers checkpoint dir, .gguf file or hub id")]

    def start_message(self, spec: ModelSpec) -> str | None:
        return f"Starting transformers server for {spec.checkpoint} ..."

    def serve(self, spec: ModelSpec, pool: LocalServerPool) -> Served:
        if spec.checkpoint is None:
            return Served(spec)
        server = pool.get_hf(spec.checkpoint, spec.model_id)
        return Served(replace(spec, base_url=server.base_url), server.transport(), server)

    def response_format(self, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        return None  # transformers' generate cannot constrain decoding


PROVIDER = HFProvider()
