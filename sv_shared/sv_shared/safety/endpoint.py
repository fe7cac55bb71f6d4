"""A small synchronous OpenAI-compatible chat client for judge backends."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sv_shared.safety.types import JudgeError, Message


class JudgeEndpointError(JudgeError):
    """The judge endpoint failed (unreachable, HTTP error, malformed reply)."""


@dataclass(frozen=True)
class Completion:
    """Generated text and, per generated token, ``{token: logprob}`` of its top alternatives."""

    text: str
    top_logprobs: list[dict[str, float]] = field(default_factory=list)


def _top_logprobs(choice: Any) -> list[dict[str, float]]:
    content = getattr(getattr(choice, "logprobs", None), "content", None) or []
    positions: list[dict[str, float]] = []
    for token_info in content:
        alternatives = {
            alt.token: float(alt.logprob)
            for alt in (getattr(token_info, "top_logprobs", None) or [])
            if alt.logprob is not None and math.isfinite(alt.logprob)
        }
        token = getattr(token_info, "token", None)
        logprob = getattr(token_info, "logprob", None)
        if token is not None and logprob is not None and token not in alternatives:
            alternatives[token] = float(logprob)
        positions.append(alternatives)
    return positions


class ChatEndpoint:
    """``base_url`` (…/v1) serving ``model``; the API key comes from ``$api_key_env`` if given."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        import openai

        if api_key_env and not os.environ.get(api_key_env):
            raise JudgeEndpointError(f"judge API key variable ${api_key_env} is not set")
        api_key = os.environ.get(api_key_env, "") if api_key_env else ""
        self.base_url = base_url.rstrip("/")
        self._model = model
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or "none",
            timeout=timeout_s,
            max_retries=max_retries,
        )

    @property
    def model(self) -> str:
        """The configured model, else the first one the server lists."""
        if self._model is None:
            try:
                listed = [m.id for m in self._client.models.list().data]
            except self._openai.OpenAIError as exc:
                raise JudgeEndpointError(
                    f"judge endpoint {self.base_url}: no model given and /models failed: {exc}"
                ) from None
            if not listed:
                raise JudgeEndpointError(f"judge endpoint {self.base_url} lists no models")
            self._model = listed[0]
        return self._model

    def complete(self, messages: Sequence[Message], *, max_tokens: int) -> Completion:
        """Greedy completion with the top-5 log-probabilities of each generated token."""
        model = self.model
        where = f"judge endpoint {self.base_url} (model {model!r})"
        try:
            response = self._client.chat.completions.create(
                model=model,
                messages=[dict(m) for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=0,
                logprobs=True,
                top_logprobs=5,
            )
        except self._openai.APIStatusError as exc:
            raise JudgeEndpointError(
                f"{where} answered HTTP {exc.status_code}: {exc.message}"
            ) from None
        except self._openai.APIConnectionError as exc:
            raise JudgeEndpointError(f"{where} is unreachable: {exc}") from None
        except self._openai.OpenAIError as exc:
            raise JudgeEndpointError(f"{where} failed: {exc}") from None
        choices = getattr(response, "choices", None) or []
        if not choices or choices[0].message is None:
            raise JudgeEndpointError(f"{where} returned no choices")
        return Completion(
            text=choices[0].message.content or "", top_logprobs=_top_logprobs(choices[0])
        )


def label_probability(
    positions: list[dict[str, float]], positive: Sequence[str], negative: Sequence[str]
) -> float | None:
    """P(positive) normalised against P(negative) at the first generated position where either
    label appears among the top tokens (tokens compared stripped and lowercased); None if none."""
    for alternatives in positions:
        pos = neg = 0.0
        for token, logprob in alternatives.items():
            word = token.strip().lower()
            if word in positive:
                pos += math.exp(logprob)
            elif word in negative:
                neg += math.exp(logprob)
        if pos + neg > 0:
            return pos / (pos + neg)
    return None
