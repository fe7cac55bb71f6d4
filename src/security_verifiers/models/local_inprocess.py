"""Local GGUF models in this process: one `llama_cpp.Llama` behind an httpx2 transport.

The default local backend (``SV_LOCAL_BACKEND=server`` picks `local_server.LlamaCppServer`).
`LlamaTransport` sits below `openai.AsyncOpenAI`, like `transports.PolicyTransport`, and answers
``/v1/models`` and ``/v1/chat/completions`` the way llama-cpp-python's server does: the same
`Llama` construction (the server's own `ModelSettings` loader with `LlamaSettings.llama_kwargs`),
the same request model and defaults, the same per-request preparation (logit bias, grammar,
min_tokens), then `Llama.create_chat_completion`. Every request runs in one dedicated worker
thread, so requests are serialised (as the server's lock does) and the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx2

from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import error_body, model_list
from security_verifiers.models.server_process import LlamaSettings

IN_PROCESS_BASE_URL = "http://sv-local.invalid/v1"
"""Never contacted: requests are answered in-process by `LlamaTransport`."""

EXCLUDED_FIELDS = frozenset({"n", "logit_bias_type", "user", "min_tokens"})
"""Request fields llama-cpp-python's server does not pass to `create_chat_completion`."""


def request_kwargs(body: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(validated request, `create_chat_completion` kwargs) for a chat-completions body, with
    the server's defaults filled in; raises pydantic's ValidationError on a bad body."""
    from llama_cpp.server.types import CreateChatCompletionRequest

    request = CreateChatCompletionRequest.model_validate(body)
    return request, request.model_dump(exclude=set(EXCLUDED_FIELDS))


def _one_line(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic ValidationError: "messages.0.role: Input should be ..."
        return "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in errors()
        )
    return " ".join(str(exc).split())


@dataclass
class InProcessLlama(LlamaSettings):
    """One `llama_cpp.Llama` for `gguf`, loaded and called only on its own worker thread."""

    base_url: str = IN_PROCESS_BASE_URL
    _llama: Any = field(default=None, init=False, repr=False)
    _executor: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)

    def start(self) -> None:
        """Load the model (blocking); a UserError when llama.cpp cannot load the file."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sv-llama")
        try:
            self._llama = self._executor.submit(self._load).result()
        except Exception as exc:
            self.stop()
            raise UserError(
                f"llama.cpp could not load {self.what()}{self.load_hint()}: {_one_line(exc)}"
            ) from None

    def _load(self) -> Any:
        from llama_cpp.server.app import prepare_request_resources  # noqa: F401 - import here
        from llama_cpp.server.model import LlamaProxy
        from llama_cpp.server.settings import ModelSettings

        settings = ModelSettings(
            model=str(self.gguf), model_alias=self.alias, verbose=False, **self.llama_kwargs()
        )
        return LlamaProxy.load_llama_from_model_settings(settings)

    def complete(self, request: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        """A chat completion for a `request_kwargs` pair; runs on the worker thread."""
        from llama_cpp.server.app import prepare_request_resources

        proxy = lambda _model: self._llama  # noqa: E731 - the server's `LlamaProxy` call
        # llama_cpp types `proxy` as its LlamaProxy class (only called, so a function does) and
        # the reply as a TypedDict or, for a streamed body, an iterator
        llama = prepare_request_resources(request, proxy, request.model, kwargs)  # type: ignore[arg-type]
        return llama.create_chat_completion(**kwargs)  # type: ignore[return-value]

    def submit(self, body: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Validate `body` now (ValueError if bad) and queue its chat completion on the worker
        thread; await the result without blocking the event loop."""
        if self._executor is None or self._llama is None:
            raise RuntimeError(f"the in-process model for {self.what()} is stopped")
        request, kwargs = request_kwargs(body)
        return asyncio.wrap_future(self._executor.submit(self.complete, request, kwargs))

    def alive(self) -> bool:
        return self._llama is not None

    def log_tail(self, lines: int = 15) -> str:
        return ""  # no child process, no log: errors surface as exceptions

    def transport(self) -> httpx2.AsyncBaseTransport:
        return LlamaTransport(self)

    def stop(self) -> None:
        """Finish the request in flight, drop queued ones, free the model."""
        executor, self._executor = self._executor, None
        llama, self._llama = self._llama, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        if llama is not None:
            llama.close()


class LlamaTransport(httpx2.AsyncBaseTransport):
    """Answers OpenAI ``/models`` and ``/chat/completions`` requests with an `InProcessLlama`.

    Bad bodies are 400 ``invalid_request_error`` (as are llama.cpp's own ValueErrors, such as a
    prompt longer than the context); any other failure is a 500 ``server_error``.
    """

    def __init__(self, model: InProcessLlama) -> None:
        self._model = model

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            return httpx2.Response(200, json=model_list([self._model.alias]))
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return httpx2.Response(404, json=error_body(f"no route for {request.method} {path}"))
        try:
            body = json.loads(await request.aread() or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the request body must be a JSON object")
            if body.get("stream"):
                raise ValueError(
                    "streaming is not supported in-process (SV_LOCAL_BACKEND=server supports it)"
                )
            pending = self._model.submit(body)
        except ValueError as exc:  # JSONDecodeError and pydantic's ValidationError included
            return httpx2.Response(400, json=error_body(f"invalid request: {_one_line(exc)}"))
        except RuntimeError as exc:  # stopped
            return httpx2.Response(500, json=error_body(_one_line(exc), kind="server_error"))
        try:
            completion = await pending
        except ValueError as exc:
            return httpx2.Response(400, json=error_body(_one_line(exc)))
        except Exception as exc:
            return httpx2.Response(500, json=error_body(_one_line(exc), kind="server_error"))
        return httpx2.Response(200, json=completion)
