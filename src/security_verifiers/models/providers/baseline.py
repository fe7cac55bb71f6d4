"""Built-in models (heuristics, oracles, always-X), answered in-process: free, no server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2

from security_verifiers.models.providers.base import ClientOptions, Provider, ResolveContext
from security_verifiers.models.spec import BASELINE_BASE_URL, ModelSpec


class BaselineProvider(Provider):
    kind = "baseline"
    schemes = ("<built-in name>",)
    order = 0
    free = True
    probe = False

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        if name not in ctx.baselines:
            return None
        return ModelSpec(name=name, model_id=name, kind=self.kind, base_url=BASELINE_BASE_URL)

    def transport(self, spec: ModelSpec, options: ClientOptions) -> httpx2.AsyncBaseTransport:
        from security_verifiers.models.transports import PolicyTransport

        return PolicyTransport(options.baselines[spec.name], spec.model_id)

    def response_format(self, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        return None  # the policies answer in the expected form already


PROVIDER = BaselineProvider()
