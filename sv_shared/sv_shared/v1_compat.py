"""Every environment as a verifiers v1 `Taskset` (verifiers 0.4, prime-rl's current configs).

The v1 form is *derived*, not rewritten: `load_taskset("e1", **env_args)` finds the
environment's `EnvSpec` (entry point group `security_verifiers.environments`), calls its own
`load_environment(**env_args)` — the classic environment under verifiers 0.3.x, the recording
stand-ins of `sv_shared.vf_compat` under 0.4 — and wraps what it built:

* each evaluation row becomes a `SecurityVerifiersTask` (system prompt, user prompt, `answer`,
  `info`, plus the environment name and arguments so a task can be scored in any process);
* the rubric's reward functions score the task: the weighted total is the v1 reward `reward`,
  every component is a v1 metric (`decision`, `calibration`, ... — the names `sv eval` logs);
* a scripted opponent (E5's target model, E6's scripted user) drives the conversation in
  `SecurityVerifiersEnv.run`, calling the environment's own `env_response`.
* an environment loaded with tools (E2/E3/E4 `include_tools=True`) serves them per rollout as
  a v1 MCP `Toolset` (`security_verifiers_v1.toolset`): the classic tool functions, their
  hidden episode argument filled from the rollout's task (`model_tools`).

Only `verifiers.v1` is needed, imported on first use, so this module imports in any venv.
The v1 plugin module that `--env.taskset.id security-verifiers-v1` resolves to is
`security_verifiers_v1` (the same classes, exported through `__all__`).
"""

from __future__ import annotations

import functools
import inspect
import json
import typing
import uuid
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

from sv_shared.spec import ENTRY_POINT_GROUP, EnvSpec

__all__ = [
    "classes",
    "completion_of",
    "episode_of",
    "find_spec",
    "load_classic",
    "load_taskset",
    "model_tools",
    "reward_components",
    "score_completion",
    "v1_available",
]


def v1_available() -> str | None:
    """None when `verifiers.v1` imports, else why not (a skip reason)."""
    try:
        import verifiers.v1  # noqa: F401
    except Exception as exc:
        return f"verifiers.v1 is not importable: {type(exc).__name__}: {exc}"
    return None


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def find_spec(name: str) -> EnvSpec:
    """The registered `EnvSpec` answering to `name` (`e1`, `network-logs`, `sv-env-...`)."""
    wanted = _norm(name)
    seen = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        spec: EnvSpec = ep.load()
        seen.append(spec.key)
        if wanted in {_norm(n) for n in spec.names()}:
            return spec
    raise KeyError(f"no environment {name!r}; registered: {sorted(seen)}")


def _args_key(env_args: Mapping[str, Any]) -> str:
    return json.dumps(dict(env_args), sort_keys=True, default=repr)


_CLASSIC: dict[tuple[str, str], Any] = {}
#: The v1 plugin module (`--env.taskset.id security-verifiers-v1`), which exports every class
#: `classes()` builds.
PLUGIN_MODULE = "security_verifiers_v1"


def load_classic(name: str, env_args: Mapping[str, Any] | None = None) -> Any:
    """The environment's own `load_environment(**env_args)` result (memoized per process)."""
    spec = find_spec(name)
    args = dict(env_args or {})
    key = (spec.key, _args_key(args))
    if key not in _CLASSIC:
        loader = spec.hook("load_environment")
        if loader is None:
            raise KeyError(f"{spec.env_id} has no load_environment")
        _CLASSIC[key] = loader(**args)
    return _CLASSIC[key]


def _is_project_class(klass: type) -> bool:
    return klass.__module__.split(".")[0].startswith("sv_")


def scripted_opponent(env: Any) -> bool:
    """Whether the environment answers each turn itself (E5's target, E6's script)."""
    return any("env_response" in vars(k) for k in type(env).__mro__ if _is_project_class(k))


def episode_of(env: Any, info: Mapping[str, Any]) -> dict[str, Any]:
    """What the environment's tools receive as their hidden episode argument for the row
    whose `info` this is (`EpisodeToolEnv.episode`; empty for tools without one)."""
    episode = getattr(env, "episode", None)
    return episode(info) if callable(episode) else {}


def model_tools(env: Any, episode: Callable[[], Mapping[str, Any]]) -> list[Callable[..., Any]]:
    """The environment's tools as the model sees them: each function's hidden episode argument
    (`env.episode_arg`) is dropped from its signature and filled from `episode()` on every
    call, so a tool server advertises exactly the classic tool schema. Annotations are
    resolved in the tool's own module (schema builders then need no foreign globals)."""
    hidden = getattr(env, "episode_arg", None) if getattr(env, "episode_keys", None) else None
    out = []
    for tool in getattr(env, "tools", None) or []:
        hints = typing.get_type_hints(tool)
        signature = inspect.signature(tool)
        params = [
            p.replace(annotation=hints.get(name, p.annotation))
            for name, p in signature.parameters.items()
            if name != hidden
        ]

        def call(*args: Any, _tool: Callable[..., Any] = tool, **kwargs: Any) -> Any:
            extra = {hidden: dict(episode())} if hidden else {}
            return _tool(*args, **kwargs, **extra)

        call.__name__ = call.__qualname__ = tool.__name__
        call.__doc__ = tool.__doc__
        call.__module__ = tool.__module__
        call.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=params, return_annotation=hints.get("return", signature.return_annotation)
        )
        call.__annotations__ = {
            p.name: p.annotation for p in params if p.annotation is not inspect.Parameter.empty
        } | ({"return": hints["return"]} if "return" in hints else {})
        out.append(call)
    return out


def reward_components(env: Any) -> list[tuple[Callable[..., Any], float]]:
    """(reward function, weight) of every function of the rubric (groups flattened)."""
    rubric = env.rubric
    subs = getattr(rubric, "rubrics", None) or [rubric]
    out: list[tuple[Callable[..., Any], float]] = []
    for sub in subs:
        if type(sub).__name__ == "MultiTurnMonitorRubric":
            continue
        out.extend(zip(sub.funcs, (float(w) for w in sub.weights), strict=True))
    return out


def _message_dict(message: Any) -> dict[str, Any]:
    if isinstance(message, Mapping):
        return {"role": message.get("role"), "content": message.get("content")}
    content = getattr(message, "content", None)
    if isinstance(content, list):  # content parts -> text
        content = "".join(getattr(p, "text", "") or "" for p in content)
    return {"role": getattr(message, "role", None), "content": content}


def completion_of(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """A classic completion (role/content dicts) from a conversation: everything after the
    system prompt and the opening user message."""
    dicts = [_message_dict(m) for m in messages]
    start = 0
    while start < len(dicts) and dicts[start]["role"] == "system":
        start += 1
    if start < len(dicts) and dicts[start]["role"] == "user":
        start += 1
    return dicts[start:]


async def _call(func: Callable[..., Any], available: Mapping[str, Any]) -> float:
    params = inspect.signature(func).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = dict(available)
    else:
        kwargs = {k: v for k, v in available.items() if k in params}
    value = func(**kwargs)
    if inspect.isawaitable(value):
        value = await value
    return float(value)


async def score_completion(
    env: Any,
    completion: Sequence[Mapping[str, Any]],
    answer: str = "",
    info: Mapping[str, Any] | None = None,
    prompt: Sequence[Mapping[str, Any]] | None = None,
    state: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`{"reward": weighted total, "metrics": {component: value}}` — the rubric's reading of
    one completion, like a classic rollout's score."""
    info = dict(info or {})
    completion = list(completion)
    available = {
        "prompt": list(prompt or []),
        "completion": completion,
        "answer": answer,
        "info": info,
        "state": dict(state or {}, info=info, completion=completion),
        "task": "default",
        "parser": getattr(env, "parser", None),
    }
    metrics: dict[str, float] = {}
    total = 0.0
    for func, weight in reward_components(env):
        value = await _call(func, available)
        metrics[func.__name__] = value
        total += weight * value
    return {"reward": total, "metrics": metrics}


def _rows(env: Any) -> list[dict[str, Any]]:
    data = env.get_eval_dataset() if hasattr(env, "get_eval_dataset") else env.eval_dataset
    if data is None:
        data = env.dataset() if callable(env.dataset) else env.dataset
    return [dict(row) for row in data]


def _prompt_parts(row: Mapping[str, Any], system_prompt: str | None) -> tuple[str | None, str]:
    """(system prompt, user prompt text) of a row, formatted (`prompt`) or raw (`question`)."""
    prompt = row.get("prompt")
    if prompt:
        messages = [_message_dict(m) for m in prompt]
        system = next((m["content"] for m in messages if m["role"] == "system"), system_prompt)
        users = [m["content"] or "" for m in messages if m["role"] == "user"]
        return system, users[-1] if users else ""
    return system_prompt, str(row.get("question") or "")


def _info(row: Mapping[str, Any]) -> dict[str, Any]:
    info = row.get("info") or {}
    if isinstance(info, str):
        info = json.loads(info) if info.strip() else {}
    return dict(info)


@functools.cache
def classes() -> Any:
    """The v1 classes, built on first use (imports `verifiers.v1`)."""
    import types

    import verifiers.v1 as v1
    from pydantic import Field
    from verifiers.v1.harnesses.null import NullHarness

    class SecurityVerifiersTaskData(v1.TaskData):
        env: str = ""
        """Environment name (`e1`, `sv-env-network-logs`, ...)."""
        env_args: dict[str, Any] = Field(default_factory=dict)
        """Its `load_environment` arguments."""
        answer: str = ""
        info: dict[str, Any] = Field(default_factory=dict)

    from security_verifiers_v1.toolset import (
        SecurityVerifiersToolset,
        SecurityVerifiersToolsetConfig,
    )

    class SecurityVerifiersTaskConfig(v1.TaskConfig):
        tools: SecurityVerifiersToolsetConfig | None = None
        """The environment's tool server (set by the taskset for environments loaded with
        tools, e.g. `include_tools=True`); None: no tools."""

    class SecurityVerifiersTask(
        v1.Task[SecurityVerifiersTaskData, v1.State, SecurityVerifiersTaskConfig]
    ):
        """One environment row; scored by the environment's own rubric."""

        @classmethod
        def toolsets(cls, config: SecurityVerifiersTaskConfig) -> list[Any]:
            """The environment's classic tools, served per rollout over MCP."""
            return [SecurityVerifiersToolset(config.tools)] if config.tools else []

        @property
        def key(self) -> str:
            item = self.data.info.get("id")
            return f"{self.data.env}:{item}" if item is not None else self.hash

        def classic(self) -> Any:
            return load_classic(self.data.env, self.data.env_args)

        async def scores(self, trace: Any) -> dict[str, Any]:
            cached = trace.info.get("sv_scores")
            if cached is not None:
                return cached
            completion = trace.info.get("sv_completion")
            if completion is None:
                completion = completion_of(trace.messages)
            info = trace.info.get("sv_info") or self.data.info
            result = await score_completion(
                self.classic(), completion, self.data.answer, info, state=trace.info
            )
            trace.info["sv_scores"] = result
            return result

        @v1.reward
        async def reward(self, trace: Any) -> float:
            return (await self.scores(trace))["reward"]

        @v1.metric
        async def components(self, trace: Any) -> dict[str, float]:
            return (await self.scores(trace))["metrics"]

    class SecurityVerifiersTasksetConfig(v1.TasksetConfig):
        env: str = "e1"
        """Which environment: `e1`..`e6` or its id (`sv-env-network-logs`)."""
        env_args: dict[str, Any] = Field(default_factory=dict)
        """`load_environment` arguments, e.g. `{"max_examples": 64, "seed": 42}`."""
        task: SecurityVerifiersTaskConfig = SecurityVerifiersTaskConfig()

    class SecurityVerifiersTaskset(
        v1.Taskset[SecurityVerifiersTask, SecurityVerifiersTasksetConfig]
    ):
        """The environment's evaluation rows as v1 tasks."""

        def __init__(self, config: SecurityVerifiersTasksetConfig) -> None:
            super().__init__(config)
            self.spec = find_spec(config.env)
            self.classic = load_classic(config.env, config.env_args)
            self.scripted = scripted_opponent(self.classic)
            self.task_config = config.task
            if getattr(self.classic, "tools", None) and config.task.tools is None:
                tools = SecurityVerifiersToolsetConfig(
                    env=self.spec.key, env_args=dict(config.env_args)
                )
                self.task_config = config.task.model_copy(update={"tools": tools})

        def load(self):
            system_prompt = getattr(self.classic, "system_prompt", None)
            for row in _rows(self.classic):
                system, prompt = _prompt_parts(row, system_prompt)
                info = _info(row)
                yield SecurityVerifiersTask(
                    SecurityVerifiersTaskData(
                        id=str(info["id"]) if info.get("id") is not None else None,
                        prompt=prompt,
                        system_prompt=system,
                        env=self.spec.key,
                        env_args=dict(self.config.env_args),
                        answer=str(row.get("answer") or ""),
                        info=info,
                    ),
                    self.task_config,
                )

    class SecurityVerifiersEnvConfig(v1.EnvConfig):
        agent: v1.AgentConfig = v1.AgentConfig()

    class SecurityVerifiersEnv(v1.Env[SecurityVerifiersEnvConfig]):
        """One `agent` seat; single-turn rows run plainly, a scripted opponent (E5, E6)
        answers each reply through the environment's own `env_response`."""

        async def run(self, task: Any, agents: Any) -> None:
            classic = load_classic(task.data.env, task.data.env_args)
            if not scripted_opponent(classic):
                await agents.agent.run(task)
                return
            await play_scripted(classic, task, agents.agent)

    class SecurityVerifiersHarness(NullHarness):
        """The default harness: verifiers' tool-less chat loop (`null`)."""

    built = types.SimpleNamespace(
        TaskData=SecurityVerifiersTaskData,
        TaskConfig=SecurityVerifiersTaskConfig,
        Task=SecurityVerifiersTask,
        TasksetConfig=SecurityVerifiersTasksetConfig,
        Taskset=SecurityVerifiersTaskset,
        EnvConfig=SecurityVerifiersEnvConfig,
        Env=SecurityVerifiersEnv,
        Harness=SecurityVerifiersHarness,
    )
    for klass in vars(built).values():  # tool servers import the task data class by its
        klass.__module__ = PLUGIN_MODULE  # `module:qualname`; the plugin module exports it
        klass.__qualname__ = klass.__name__
    return built


async def play_scripted(classic: Any, task: Any, agent: Any) -> None:
    """Run one conversation against the environment's opponent, the classic way: after each
    reply, `env_response(messages, state)` gives the next user turn; the episode ends when it
    gives none, sets `final_env_response`, or `max_turns` replies were made."""
    prompt = [{"role": "system", "content": task.data.system_prompt}] * bool(
        task.data.system_prompt
    ) + [{"role": "user", "content": task.data.prompt_text}]
    info = dict(task.data.info)
    state: dict[str, Any] = {
        "prompt": prompt,
        "info": info,
        "answer": task.data.answer,
        "trajectory": [],
        "trajectory_id": uuid.uuid4().hex,
        "completion": [],
    }
    if any("setup_state" in vars(k) for k in type(classic).__mro__ if _is_project_class(k)):
        state = await classic.setup_state(state)
    max_turns = getattr(classic, "max_turns", -1) or -1
    completion: list[dict[str, Any]] = state["completion"]
    async with agent.interaction(task) as conversation:
        segment = await conversation.turn()
        while not segment.terminated:
            completion.append({"role": "assistant", "content": segment.last_reply})
            state["trajectory"].append({"completion": completion[-1]})
            if 0 < max_turns <= len(state["trajectory"]):
                break
            response = await classic.env_response(prompt + completion, state)
            replies = [_message_dict(m) for m in response or []]
            completion.extend(replies)
            if not replies or state.get("final_env_response"):
                break
            if await _script_finished(classic, state):
                break
            segment = await conversation.turn(replies[-1]["content"] or "")
        conversation.trace.info["sv_completion"] = list(completion)
        conversation.trace.info["sv_info"] = info


async def _script_finished(classic: Any, state: dict[str, Any]) -> bool:
    stop = getattr(classic, "script_finished", None)
    return bool(await stop(state)) if stop is not None else False


def load_taskset(env: str, **env_args: Any) -> Any:
    """Environment `env` (`e1`, `network-logs`, `sv-env-network-logs`, ...) as a v1 Taskset."""
    c = classes()
    return c.Taskset(c.TasksetConfig(env=env, env_args=env_args))
