"""`EnvSpec`: everything the harness needs to know about one environment, in one typed place.

Each environment package exposes a `SPEC` in its `spec.py` and registers it under the entry
point group `security_verifiers.environments` (name: the short key, e.g. `e1`). The harness
finds environments there (`security_verifiers.environments`) instead of in its own tables, so
adding an environment means adding its package, nothing else.

A spec holds plain data plus hooks written as `"module:attribute"` strings, imported only when
called: reading a spec costs nothing, loading an environment's code happens on use.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

ENTRY_POINT_GROUP = "security_verifiers.environments"
EnvT = TypeVar("EnvT")


@dataclass(frozen=True)
class GateMetric:
    """One gated number: `reward_mean` (top level of summary.json) or a key of its `metrics`."""

    key: str
    higher_is_better: bool = True

    @property
    def arrow(self) -> str:
        return "↑" if self.higher_is_better else "↓"


REWARD = GateMetric("reward_mean")
CLASSIFICATION_GATE = (REWARD, GateMetric("accuracy"), GateMetric("f1"), GateMetric("brier", False))

CLASSIFICATION_METRICS = (
    "accuracy", "f1", "precision", "recall", "fpr", "fnr", "coverage",
    "f1_answered", "recall_answered", "fnr_answered", "brier", "ece", "aurc",
    "abstain_rate", "invalid_rate", "cost_weighted_score",
)  # fmt: skip
"""Recall/FNR/F1 count abstentions as not detected; `*_answered` are over answered items."""


@dataclass(frozen=True)
class ReportProfile:
    """What a report shows for one environment."""

    metrics: tuple[str, ...]
    figures: tuple[str, ...]
    positive_label: str | None = None
    success_metrics: tuple[str, ...] = ()


GENERIC_PROFILE = ReportProfile((), ("reward",))


def classification_report(positive_label: str, *extra_metrics: str) -> ReportProfile:
    """The profile of a label / confidence / abstain environment (E1, E4)."""
    return ReportProfile(
        (*CLASSIFICATION_METRICS, *extra_metrics),
        ("reward", "reliability", "confusion", "risk_coverage"),
        positive_label=positive_label,
    )


@dataclass(frozen=True)
class GoldenRun:
    """What the environment's golden file (`configs/golden/<key>.json`) runs."""

    models: tuple[str, ...]
    n: int
    seed: int = 42
    target: str | None = None
    env_args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProofTask:
    """The SFT → RL proof on one environment (`python -m security_verifiers.training.proof`)."""

    real_path: str
    """Real labelled data, relative to the repository root (e.g. `../shared/realdata/...`)."""
    real_env_args: Mapping[str, Any]
    max_tokens: int
    """Answer budget of every eval in the proof."""
    test_items: int = -1
    """Test items per eval (-1: the whole split)."""


@dataclass(frozen=True)
class Baseline:
    """A built-in model; an oracle reads the labels or the scoring tools (an upper bound)."""

    name: str
    oracle: bool = False
    description: str = ""


def load_hook(ref: str) -> Any:
    """The object a `"package.module:attribute"` string names."""
    module_name, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class EnvSpec:
    """One environment, as the harness sees it."""

    key: str
    """Short name: `e1` ... (also the golden file's and the scoreboard's stem)."""
    env_id: str
    """Package / verifiers id, e.g. `sv-env-network-logs`."""
    summary: str = ""
    aliases: tuple[str, ...] = ()
    module: str = ""
    """Import name of the package; default: the id with `-` replaced by `_`."""
    oracles: Mapping[str, str] = field(default_factory=dict)
    """Built-in models that are oracles, with what they read."""
    report: ReportProfile = GENERIC_PROFILE
    gate_metrics: tuple[GateMetric, ...] = (REWARD,)
    golden: GoldenRun | None = None
    stub_baseline: str | None = None
    """The baseline `make bench`'s stub model answers with."""
    bench_seed_per_hour: int | None = None
    """`make bench`'s seed throughput target (rollouts or dialogues per hour; goal: 50×)."""
    opponent: str | None = None
    """Key of the environment whose built-in models serve as this one's `--target`."""
    needs_target: bool = False
    """The environment plays against a target model (E5)."""
    build_only_split: bool = False
    """Its built-in set has no held-out split: training uses all of it unless `dataset=` names
    a build of `sv data build` (E5, E6)."""
    sources: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    load_environment: str = ""
    baseline_policies: str | None = ""
    data_adapter: str | None = ""
    probe_suite: str | None = None
    more_probe_suites: Mapping[str, str] = field(default_factory=dict)
    """Further probe suites by name (e.g. a second task's), run with `sv probe eN --suite`."""
    reward_weights: str | None = None
    """Hook to the frozen dataclass of the default reward component weights."""
    default_target: str | None = None
    """The model `--target` defaults to (E5: the model the attacker plays against)."""
    run_metrics: str | None = None
    """Hook to the environment's `sv_shared.run_metrics.RunMetrics`: its run metrics with their
    definitions and the one function that makes them from rows (summaries and reports)."""
    sim2real: str | None = None
    """Hook to its `sv_shared.sim2real.EnvTask` (`sv sim2real`)."""
    sft_renderer: str | None = None
    """Hook to `render(row, data) -> str`: a training row's gold answer as a chat reply (SFT)."""
    reward_bench: str | None = None
    """Hook to `main(argv)` of its reward micro-benchmark (`make bench`)."""
    cold_caches: str | None = None
    """Hook to `() -> None` that makes its process-wide caches never hit (the bench's cold
    runs measure real scoring)."""
    fresh_rows: str | None = None
    """Hook to its `sv_shared.curriculum.FreshRows` (new rows from its generator for curricula)."""
    tool_policy: str | None = None
    """Hook to `(prompt) -> (tool, arguments) | None`: the tool call a scripted policy makes
    before answering in tool mode (live checks); None answers at once."""
    proof: ProofTask | None = None
    """What the SFT → RL proof runs on this environment (E1, E4)."""

    def __post_init__(self) -> None:
        module = self.module or self.env_id.replace("-", "_")
        object.__setattr__(self, "module", module)
        for name in ("load_environment", "baseline_policies", "data_adapter"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, f"{module}:{name}")

    @property
    def name(self) -> str:
        """The id without the `sv-env-` prefix, e.g. `network-logs`."""
        return self.env_id.removeprefix("sv-env-")

    def names(self) -> tuple[str, ...]:
        """Every name this environment answers to (lower case, `-` for `_`)."""
        return (self.key, self.env_id, self.name, *self.aliases)

    def hook(self, name: str) -> Callable[..., Any] | None:
        ref = getattr(self, name)
        return load_hook(ref) if ref else None

    def baselines(self) -> list[Baseline]:
        """The built-in models, sorted by name, oracles marked."""
        policies = self.hook("baseline_policies")
        names = sorted(policies()) if policies else []
        return [Baseline(n, n in self.oracles, self.oracles.get(n, "")) for n in names]

    def default_reward_weights(self) -> dict[str, float]:
        cls = self.hook("reward_weights")
        if cls is None:
            return {}
        weights = cls()
        return {
            f.name: getattr(weights, f.name)
            for f in dataclasses.fields(weights)
            if isinstance(getattr(weights, f.name), (int, float))
        }


@dataclass(frozen=True)
class LoadedEnvInfo:
    """What a loaded environment tells the harness beyond verifiers' own API.

    `load_environment` sets them as `env.sv_<field>` attributes with `LoadedEnvInfo(...).attach`
    (a misspelt field is a TypeError); the harness reads them only through `LoadedEnvInfo.of(env)`.
    """

    dataset_info: Mapping[str, Any]
    reward_config: Mapping[str, Any] | None = None
    answer_schema: Mapping[str, Any] | None = None
    structured_output_default: bool = False
    metrics: Callable[..., Mapping[str, Any]] | None = None
    state_columns: tuple[str, ...] = ()
    payoffs: Any = None
    labels: tuple[str, ...] | None = None
    tool_versions: Mapping[str, Any] | None = None
    warm_up: Any = None
    target: str | None = None

    @classmethod
    def of(cls, env: Any) -> LoadedEnvInfo:
        values = {f.name: getattr(env, f"sv_{f.name}", None) for f in dataclasses.fields(cls)}
        labels = values["labels"]
        return cls(
            **values
            | {
                "dataset_info": values["dataset_info"] or {},
                "structured_output_default": bool(values["structured_output_default"]),
                "state_columns": tuple(values["state_columns"] or ()),
                "labels": tuple(labels) if labels is not None else None,
            }
        )

    def attach(self, env: EnvT) -> EnvT:
        """Set every field as `env.sv_<field>` and return `env`. Values are stored as given (no
        copies): later in-place updates of `dataset_info` show through `of(env)`."""
        for f in dataclasses.fields(self):
            setattr(env, f"sv_{f.name}", getattr(self, f.name))
        return env


__all__ = [
    "CLASSIFICATION_GATE",
    "CLASSIFICATION_METRICS",
    "ENTRY_POINT_GROUP",
    "GENERIC_PROFILE",
    "REWARD",
    "Baseline",
    "EnvSpec",
    "GateMetric",
    "GoldenRun",
    "LoadedEnvInfo",
    "ProofTask",
    "ReportProfile",
    "classification_report",
    "load_hook",
]
