"""The target model under attack: any OpenAI-compatible chat endpoint."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

TARGET_ARGS = "target_base_url (+ target_model, target_api_key_env) or target_client"


class TargetConfigError(ValueError):
    """The environment arguments do not say which target model to attack."""


class TargetError(RuntimeError):
    """The target model could not be queried (an infrastructure failure, not a model answer)."""


@dataclass
class TargetModel:
    """Sends the conversation so far (attacker = user, target = assistant) to the target.

    `client` is an `openai.AsyncOpenAI` or `openai.OpenAI` (sync calls run in a thread), or a
    zero-argument factory of one: a factory is called again in every new event loop (an async
    client's connections belong to the loop that opened them). `model=None` uses the first
    model the endpoint lists.
    """

    client: Any
    model: str | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    system_prompt: str | None = None
    _resolved: str | None = field(default=None, init=False, repr=False)
    _loop_client: tuple[Any, Any] | None = field(default=None, init=False, repr=False)

    def current_client(self) -> Any:
        """The client itself, or the factory's client for the running event loop."""
        if not callable(self.client):
            return self.client
        loop = asyncio.get_running_loop()
        if self._loop_client is None or self._loop_client[0] is not loop:
            self._loop_client = (loop, self.client())
        return self._loop_client[1]

    @property
    def base_url(self) -> str:
        return str(getattr(self.client, "base_url", "") or "").rstrip("/")

    def describe(self) -> dict[str, Any]:
        """The target's identity for run metadata."""
        return {
            "model": self.model or self._resolved,
            "base_url": self.base_url,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }

    async def reply(self, conversation: Sequence[dict[str, str]]) -> str:
        """The target's reply to `conversation` ('' when it returns no text)."""
        model = await self.model_id()
        messages = list(conversation)
        if self.system_prompt:
            messages = [{"role": "system", "content": self.system_prompt}, *messages]
        try:
            response = await _call(
                self.current_client().chat.completions.create,
                model=model,
                messages=messages,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
        except Exception as exc:
            raise TargetError(f"target {model!r} at {self.base_url}: {_describe(exc)}") from exc
        choices = getattr(response, "choices", None) or []
        content = choices[0].message.content if choices else None
        return content if isinstance(content, str) else ""

    async def model_id(self) -> str:
        if self.model:
            return self.model
        if self._resolved is None:
            try:
                page = await _call(self.current_client().models.list)
                self._resolved = page.data[0].id
            except Exception as exc:
                raise TargetError(
                    f"no target_model given and the target at {self.base_url} lists no model: "
                    f"{_describe(exc)}"
                ) from exc
        return self._resolved


async def _call(function: Any, **kwargs: Any) -> Any:
    if inspect.iscoroutinefunction(function):
        return await function(**kwargs)
    result = await asyncio.to_thread(function, **kwargs)
    return await result if inspect.isawaitable(result) else result


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class ClientFactory:
    """Makes an `openai.AsyncOpenAI` for `base_url` (one per event loop, see TargetModel)."""

    base_url: str
    api_key: str = field(repr=False)
    timeout_s: float = 120.0

    def __call__(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s, max_retries=2
        )


def build_target(
    client: Any = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    max_tokens: int = 256,
    temperature: float = 0.0,
    system_prompt: str | None = None,
    timeout_s: float = 120.0,
) -> TargetModel:
    """A target from a ready client, or an `openai.AsyncOpenAI` built for `base_url`.

    The API key is read from the `api_key_env` variable ("EMPTY" for keyless local servers).
    """
    if max_tokens < 1:
        raise TargetConfigError(f"target_max_tokens must be >= 1, got {max_tokens}")
    if client is None:
        if not base_url:
            raise TargetConfigError(
                f"E5 needs a target model to attack: pass {TARGET_ARGS} in the environment "
                'arguments, e.g. {"target_base_url": "http://127.0.0.1:8000/v1", '
                '"target_model": "my-model"}'
            )
        if not base_url.startswith(("http://", "https://")):
            raise TargetConfigError(f"target_base_url must start with http(s)://, got {base_url!r}")
        api_key = "EMPTY"
        if api_key_env:
            api_key = os.environ.get(api_key_env, "")
            if not api_key:
                raise TargetConfigError(f"target_api_key_env: ${api_key_env} is not set")
        client = ClientFactory(base_url, api_key, timeout_s)
    elif not hasattr(getattr(client, "chat", None), "completions"):
        raise TargetConfigError(
            f"target_client must be an openai.AsyncOpenAI or openai.OpenAI, got {type(client)}"
        )
    return TargetModel(client, model, max_tokens, temperature, system_prompt)
