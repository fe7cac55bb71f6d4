"""What a model provider declares: how it reads a model name, serves it, and is called.

A provider is one object (a `Provider` subclass instance). The registry (`registry.py`) asks
every provider, in `order`, to `parse` a model name; the first that returns a `ModelSpec` owns
it. Everything the harness later does with that model — start a server, build the client the
rollouts call, ask for schema-constrained output, count the cost — goes through the provider
named by `ModelSpec.kind`, so no call site branches on the model name.

The client is always an `openai.AsyncOpenAI` (verifiers' chat-completions client wraps it).
Providers that are not OpenAI-compatible (Anthropic, Google) put their official SDK *below*
that client, in an httpx2 transport that translates each chat-completions request into an SDK
call and the SDK's reply back (see `sdk_transport.py`); retries are then the SDK's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx2
import openai

from security_verifiers.models.capabilities import (
    GENERIC,
    CapabilityTable,
    CapabilityTransport,
    ModelCapabilities,
    RequestPlan,
    match_capabilities,
)
from security_verifiers.models.spec import ModelSpec

if TYPE_CHECKING:
    from security_verifiers.models.local_server import LocalServerPool
    from security_verifiers.models.response_cache import ResponseCache


@dataclass(frozen=True)
class ResolveContext:
    """What resolving a name may look at besides the name itself."""

    baselines: Mapping[str, object]
    base_url: str | None = None
    """`--base-url` (OpenAI-compatible servers)."""
    api_key_env: str = "OPENAI_API_KEY"
    """`--api-key-env` (OpenAI-compatible servers)."""


@dataclass(frozen=True)
class ClientOptions:
    """How the harness wants the client built."""

    baselines: Mapping[str, Any]
    cache: ResponseCache | None = None
    max_retries: int = 5
    timeout_s: float = 120.0
    transport: httpx2.AsyncBaseTransport | None = None
    """A transport that answers instead of real HTTP (a served model's `transport()`)."""
    plan: RequestPlan | None = None
    """Rewrites every request body to what the model accepts (`models.capabilities`)."""


@dataclass
class Served:
    """A model ready to be called: its spec (base URL filled in once a server runs), the
    transport reaching it (None: real HTTP) and the server, if the harness started one
    (it has `alive()`, `log_tail()`, `stop()`; the `LocalServerPool` stops it)."""

    spec: ModelSpec
    transport: httpx2.AsyncBaseTransport | None = None
    server: Any = None


class Provider:
    """One family of models. Subclasses set the class attributes and override what differs."""

    kind: str = ""
    """`ModelSpec.kind` of the models it resolves; recorded as `model_kind` in run metadata."""
    schemes: tuple[str, ...] = ()
    """The name prefixes it claims (documentation and `sv models`)."""
    order: int = 50
    """Providers are asked in ascending order; the OpenAI-compatible fallback goes last."""
    free: bool = False
    """Built in: costs nothing."""
    probe: bool = True
    """Check the endpoint (reachable, key accepted, model listed) before running."""
    serial: bool = False
    """Answers one request at a time (a local model): run rollouts one by one."""
    section: str = "Remote models"
    """Where `sv models` lists it."""

    # -- names ---------------------------------------------------------------------------------
    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        """The spec for `name` if this provider owns it; None otherwise. Raise `UserError` for
        a name it owns but cannot use (missing file, malformed URL, missing key)."""
        raise NotImplementedError

    def help_lines(self) -> list[tuple[str, str]]:
        """(name form, description) lines for `sv models`."""
        return []

    # -- serving -------------------------------------------------------------------------------
    def start_message(self, spec: ModelSpec) -> str | None:
        """What the console says before `serve` loads something slow (None: nothing)."""
        return None

    def serve(self, spec: ModelSpec, pool: LocalServerPool) -> Served:
        """Start (or reuse, from `pool`) whatever must run for `spec`; `pool` stops it."""
        return Served(spec)

    # -- the client ----------------------------------------------------------------------------
    def api_key(self, spec: ModelSpec) -> str:
        """The key the OpenAI client sends ('EMPTY' for keyless servers)."""
        return "EMPTY"

    def transport(self, spec: ModelSpec, options: ClientOptions) -> httpx2.AsyncBaseTransport:
        """The transport below the OpenAI client (before the response cache)."""
        return options.transport or httpx2.AsyncHTTPTransport()

    def client_retries(self, options: ClientOptions) -> int:
        """Retries the OpenAI client itself makes (0 when an SDK below it retries)."""
        return options.max_retries

    def build_client(self, spec: ModelSpec, options: ClientOptions) -> openai.AsyncOpenAI:
        """An `AsyncOpenAI` for `spec`; retries with backoff on 408/409/429/5xx/timeouts."""
        from security_verifiers.models.transports import CachingTransport

        transport = self.transport(spec, options)
        if options.cache is not None:
            transport = CachingTransport(transport, options.cache)
        if options.plan is not None:  # outermost: the cache keys on the body that is sent
            transport = CapabilityTransport(transport, options.plan)
        timeout = options.timeout_s
        http_client = openai.DefaultAsyncHttpx2Client(transport=transport, timeout=timeout)
        return openai.AsyncOpenAI(
            base_url=spec.base_url,
            api_key=self.api_key(spec),
            max_retries=self.client_retries(options),
            timeout=options.timeout_s,
            http_client=http_client,
        )

    # -- requests and accounting ---------------------------------------------------------------
    def capability_table(self) -> CapabilityTable:
        """Its model families: (pattern on the model id, what they accept), first match wins."""
        return ()

    def capabilities(self, model_id: str) -> ModelCapabilities:
        """What `model_id` accepts in a request (the table's family, else `GENERIC`)."""
        return match_capabilities(self.capability_table(), model_id, GENERIC)

    def response_format(self, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        """The chat-completions `response_format` constraining output to `schema`; None when
        the provider cannot constrain output (the request is sent unconstrained)."""
        return {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }

    def price(self, model_id: str) -> tuple[float, float] | None:
        """(input, output) USD per million tokens; None: the harness's table or unknown."""
        return None

    def identity_url(self, spec: ModelSpec) -> str:
        """What the run fingerprint records as `base_url`: where answers come from."""
        return spec.kind

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        """Provider fields of a run's metadata.json."""
        return {"local_backend": None, "api_key_env": None}
