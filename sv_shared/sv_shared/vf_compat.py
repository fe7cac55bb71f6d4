"""`vf`: the classic verifiers API when installed, else stand-ins that let the packages load.

verifiers 0.3.x ships the classic API (`vf.SingleTurnEnv`, `vf.Rubric`, `vf.Parser`, ...)
at the package root next to `verifiers.v1`; verifiers 0.4 ships only `verifiers.v1`. The
environment packages write `from sv_shared.vf_compat import vf` instead of
`import verifiers as vf`: under 0.3.x `vf` *is* `verifiers` (nothing changes), under 0.4 it
is this module's stand-ins. Those hold what `load_environment` hands them — datasets,
system prompt, parser, rubric functions and weights, tools, the scripted opponent's
`env_response` — without running anything, so `sv_shared.v1_compat` can turn the very same
`load_environment` result into a verifiers v1 `Taskset` under either version.
"""

from __future__ import annotations

import logging
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import verifiers as _verifiers

CLASSIC: bool = hasattr(_verifiers, "Rubric")
"""True when the installed verifiers has the classic (0.3.x) API."""


def _message_field(message: Any, key: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(key)
    return getattr(message, key, None)


class Parser:
    """Classic `vf.Parser` (verifiers 0.3.1 `legacy/parsers/parser.py`), same behaviour."""

    def __init__(self, extract_fn: Callable[[str], str] = lambda text: text) -> None:
        self.logger = logging.getLogger(f"{__name__}.{type(self).__name__}")
        self.extract_fn = extract_fn

    def parse(self, text: str) -> Any:
        return self.extract_fn(text)

    def _message_field(self, message: Any, field: str, default: Any = None) -> Any:
        value = _message_field(message, field)
        return default if value is None else value

    def _content_to_text(self, content: Any) -> str:
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        chunks = []
        for part in content:
            if isinstance(part, Mapping):
                text = part.get("text") if part.get("type") == "text" else None
            else:
                text = getattr(part, "text", None)
            if isinstance(text, str):
                chunks.append(text)
        return " ".join(chunks).strip()

    def _by_role(self, completion: Any, role: str) -> list[Any]:
        return [m for m in completion or [] if _message_field(m, "role") == role]

    def get_assistant_messages(self, completion: Any) -> list[Any]:
        return self._by_role(completion, "assistant")

    def get_user_messages(self, completion: Any) -> list[Any]:
        return self._by_role(completion, "user")

    def get_system_messages(self, completion: Any) -> list[Any]:
        return self._by_role(completion, "system")

    def get_tool_messages(self, completion: Any) -> list[Any]:
        return self._by_role(completion, "tool")

    def parse_answer(self, completion: Any) -> Any:
        if isinstance(completion, str):
            return self.parse(completion)
        messages = self.get_assistant_messages(completion)
        if not messages:
            return None
        content = self._message_field(messages[-1], "content", "") or ""
        return self.parse(self._content_to_text(content))

    def get_format_reward_func(self) -> Callable[..., float]:
        def format_reward_func(completion: Any, **_: Any) -> float:
            return 1.0

        return format_reward_func


class Rubric:
    """Classic `vf.Rubric`'s data: reward functions, their weights, the parser."""

    def __init__(
        self,
        funcs: Sequence[Callable[..., Any]] | None = None,
        weights: Sequence[float] | None = None,
        parser: Any = None,
        **kwargs: Any,
    ) -> None:
        self.funcs = list(funcs or [])
        self.weights = (
            [float(w) for w in weights] if weights is not None else [1.0] * len(self.funcs)
        )
        self.parser = parser
        self.kwargs = kwargs
        self.cleanup_handlers: list[Callable[..., Any]] = []

    def add_cleanup_handler(self, handler: Callable[..., Any]) -> None:
        self.cleanup_handlers.append(handler)


class Environment:
    """Records what `load_environment` passes; runs nothing (use `sv_shared.v1_compat`)."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.dataset = kwargs.get("dataset")
        self.eval_dataset = kwargs.get("eval_dataset")
        self.system_prompt = kwargs.get("system_prompt")
        self.parser = kwargs.get("parser") or Parser()
        self.rubric = kwargs.get("rubric") or Rubric(parser=self.parser)
        self.max_turns = kwargs.get("max_turns", -1)
        self.env_id = kwargs.get("env_id")
        self.tools: list[Callable[..., Any]] = list(kwargs.get("tools") or [])

    def add_tool(self, tool: Callable[..., Any], **_: Any) -> None:
        self.tools.append(tool)

    def get_eval_dataset(self, n: int = -1, **_: Any) -> Any:
        data = self.eval_dataset if self.eval_dataset is not None else self.get_dataset()
        if callable(data):
            data = data()
        return data.select(range(min(n, len(data)))) if n > 0 else data

    def get_dataset(self, n: int = -1, **_: Any) -> Any:
        data = self.dataset() if callable(self.dataset) else self.dataset
        return data.select(range(min(n, len(data)))) if data is not None and n > 0 else data


class SingleTurnEnv(Environment):
    pass


class MultiTurnEnv(Environment):
    pass


class ToolEnv(MultiTurnEnv):
    pass


class StatefulToolEnv(ToolEnv):
    pass


def UserMessage(content: Any, **kwargs: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, **kwargs}


def _mark(func: Any = None, **_: Any) -> Any:
    """`@vf.stop` / `@vf.cleanup` with or without arguments: the function unchanged."""
    return func if callable(func) else (lambda f: f)


def _no_classic_loader(*_: Any, **__: Any) -> Any:
    raise RuntimeError(
        f"verifiers {_verifiers.__version__} has no classic load_environment; load the "
        "environment as a v1 taskset: sv_shared.v1_compat.load_taskset('<env id>')"
    )


_STANDIN = types.SimpleNamespace(
    __version__=_verifiers.__version__,
    Parser=Parser,
    Rubric=Rubric,
    Environment=Environment,
    SingleTurnEnv=SingleTurnEnv,
    MultiTurnEnv=MultiTurnEnv,
    ToolEnv=ToolEnv,
    StatefulToolEnv=StatefulToolEnv,
    UserMessage=UserMessage,
    State=dict,
    Messages=list,
    stop=_mark,
    cleanup=_mark,
    load_environment=_no_classic_loader,
)

vf: Any = _verifiers if CLASSIC else _STANDIN
"""Use as `from sv_shared.vf_compat import vf`, exactly like `import verifiers as vf`."""

__all__ = ["CLASSIC", "vf"]
