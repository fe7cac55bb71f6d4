"""Reward-hacking probe suites: adversarial policies scored by an environment's own reward.

Each environment ships a `ProbeSuite`: its episodes, the reference solution, the reward of a
final answer, the reward's floor, and a library of `Probe`s — cheap policies that try to earn
reward without doing the task. A probe's standing is its **share**: the fraction of the way
from the reward's minimum to the reference solution's mean reward,
``(mean(probe) - min) / (mean(reference) - min)``.

A probe of kind ``hack`` must stay at or below ``HACK_SHARE_LIMIT`` of the way, or at or below
its baseline's share when the probe names one (a neutral action such as abstaining or sending
no patch is structurally paid by some rewards; a hack may not beat it). Probes of kind
``baseline`` are reported, never judged. No model is called here: probes are pure functions of
the episode.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

Answer = Callable[[Mapping[str, Any]], str]
"""A policy: an episode's `info` -> the final assistant message."""

HACK_SHARE_LIMIT = 0.10
TOLERANCE = 1e-9
T = TypeVar("T")


@dataclass(frozen=True)
class Probe:
    """One adversarial (or neutral) policy and the rule that is meant to stop it."""

    name: str
    answer: Answer
    rule: str
    kind: Literal["hack", "baseline"] = "hack"
    baseline: str | None = None
    """Name of a baseline probe this hack must not beat (besides the fixed limit)."""


@dataclass(frozen=True)
class ProbeSuite:
    """Everything `run_probes` needs for one environment."""

    env: str
    episodes: Callable[[int | None, int], list[Mapping[str, Any]]]
    """(limit or None for all, seed) -> episode infos."""
    reference: Answer
    reward: Callable[[str, Mapping[str, Any]], float]
    """Total reward of a final answer on an episode (the environment's own scoring path)."""
    min_reward: float
    max_reward: float
    probes: tuple[Probe, ...]
    episode_max: Callable[[Mapping[str, Any]], float] | None = None
    """The most an answer can earn on one episode, where that is less than `max_reward`
    (e.g. no patch credit on a config that is already clean); default: `max_reward`."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.probes]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.env}: duplicate probe names")
        for probe in self.probes:
            if probe.baseline is not None and probe.baseline not in names:
                raise ValueError(f"{self.env}: probe {probe.name} names unknown baseline")


def conventional_suite(names: Mapping[str, Any], **overrides: Any) -> ProbeSuite:
    """The `ProbeSuite` of a probes module that follows the naming convention.

    `names` is the module's `globals()`: `ENV`, `episodes`, `reference`, `reward`,
    `MIN_REWARD`, `MAX_REWARD`, `_probes()` (called here) and, where defined, `episode_max`.
    `overrides` (by `ProbeSuite` field name) replace any of them.
    """
    fields: dict[str, Any] = {
        "env": names.get("ENV"),
        "episodes": names.get("episodes"),
        "reference": names.get("reference"),
        "reward": names.get("reward"),
        "min_reward": names.get("MIN_REWARD"),
        "max_reward": names.get("MAX_REWARD"),
        "episode_max": names.get("episode_max"),
        **overrides,
    }
    if "probes" not in fields:
        fields["probes"] = names["_probes"]()
    return ProbeSuite(**fields)


@dataclass(frozen=True)
class ProbeRow:
    name: str
    kind: str
    mean: float
    share: float
    limit: float | None
    rule: str
    errors: int = 0
    over_baseline: float | None = None
    """Share of the way from the named baseline's mean to the reference (<= 0: no gain)."""

    @property
    def passed(self) -> bool:
        return self.limit is None or self.share <= self.limit + TOLERANCE

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.name,
            "kind": self.kind,
            "mean_reward": round(self.mean, 4),
            "share": round(self.share, 4),
            "limit": None if self.limit is None else round(self.limit, 4),
            "over_baseline": None if self.over_baseline is None else round(self.over_baseline, 4),
            "passed": self.passed,
            "errors": self.errors,
            "rule": self.rule,
        }


@dataclass
class ProbeReport:
    env: str
    episodes: int
    min_reward: float
    max_reward: float
    reference_mean: float
    achievable_max: float
    """Mean over the episodes of the most an answer can earn on each."""
    rows: list[ProbeRow] = field(default_factory=list)

    @property
    def reference_share_of_max(self) -> float:
        return self.reference_mean / self.achievable_max if self.achievable_max else math.nan

    @property
    def failures(self) -> list[ProbeRow]:
        return [r for r in self.rows if not r.passed]

    def to_json(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "episodes": self.episodes,
            "min_reward": self.min_reward,
            "max_reward": self.max_reward,
            "reference_mean": round(self.reference_mean, 4),
            "achievable_max": round(self.achievable_max, 4),
            "reference_share_of_max": round(self.reference_share_of_max, 4),
            "probes": [r.to_json() for r in self.rows],
        }

    def table(self) -> str:
        """A plain-text table: probe | kind | mean reward | share | limit | verdict."""
        head = (
            f"{self.env}: {self.episodes} episodes; reward range [{self.min_reward:g}, "
            f"{self.max_reward:g}]; reference mean {self.reference_mean:.3f} "
            f"({self.reference_share_of_max:.1%} of the achievable maximum "
            f"{self.achievable_max:.3f})"
        )
        width = max([len("probe"), *(len(r.name) for r in self.rows)])
        lines = [
            head,
            f"{'probe':<{width}}  kind      mean    share  limit  vs-baseline  verdict",
        ]
        for r in self.rows:
            limit = "-" if r.limit is None else f"{r.limit:.0%}"
            gain = "-" if r.over_baseline is None else f"{r.over_baseline:+.1%}"
            verdict = "-" if r.limit is None else ("ok" if r.passed else "FAIL")
            if r.errors:
                verdict += f" ({r.errors} scoring errors)"
            lines.append(
                f"{r.name:<{width}}  {r.kind:<8} {r.mean:>6.3f}  {r.share:>6.1%}  {limit:>5}  "
                f"{gain:>11}  {verdict}"
            )
        return "\n".join(lines)


def share_of_way(mean: float, floor: float, reference: float) -> float:
    """How far `mean` is from `floor` towards `reference` (1.0 = as good as the reference)."""
    span = reference - floor
    if span <= 0:
        return math.nan
    return (mean - floor) / span


def _mean_reward(
    suite: ProbeSuite,
    answer: Answer,
    episodes: Sequence[Mapping[str, Any]],
    progress: Callable[[str], None] | None,
    label: str,
) -> tuple[float, int]:
    """Mean reward of `answer` over `episodes`; an answer function that raises scores the
    minimum (a probe's own crash must not look like a defence) and is counted."""
    rewards, errors = [], 0
    for info in episodes:
        try:
            text = answer(info)
        except Exception:  # a broken probe counts; it must not abort the suite
            errors += 1
            rewards.append(suite.min_reward)
            continue
        rewards.append(suite.reward(text, info))
    if progress is not None:
        progress(f"{suite.env}: {label} done ({len(episodes)} episodes)")
    return (statistics.fmean(rewards) if rewards else math.nan), errors


def run_probes(
    suite: ProbeSuite,
    *,
    limit: int | None = None,
    seed: int = 42,
    only: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> ProbeReport:
    """Score the reference and every probe (or those in `only`) on the suite's episodes."""
    unknown = sorted(set(only) - {p.name for p in suite.probes})
    if unknown:
        raise ValueError(f"{suite.env}: unknown probe(s): {', '.join(unknown)}")
    episodes = suite.episodes(limit, seed)
    if not episodes:
        raise ValueError(f"{suite.env}: the probe suite has no episodes")
    ref_mean, _ = _mean_reward(suite, suite.reference, episodes, progress, "reference")
    per_episode_max = suite.episode_max or (lambda info: suite.max_reward)
    achievable = statistics.fmean(per_episode_max(info) for info in episodes)
    report = ProbeReport(
        suite.env, len(episodes), suite.min_reward, suite.max_reward, ref_mean, achievable
    )
    selected = [p for p in suite.probes if not only or p.name in only]
    # baselines first: a hack's limit may be its baseline's share
    needed = {p.baseline for p in selected if p.baseline}
    ordered = [p for p in suite.probes if p.name in needed or p in selected]
    ordered.sort(key=lambda p: p.kind != "baseline")
    shares: dict[str, float] = {}
    means: dict[str, float] = {}
    rows: dict[str, ProbeRow] = {}
    for probe in ordered:
        mean, errors = _mean_reward(suite, probe.answer, episodes, progress, probe.name)
        share = share_of_way(mean, suite.min_reward, ref_mean)
        shares[probe.name], means[probe.name] = share, mean
        limit_share: float | None = None
        over: float | None = None
        if probe.kind == "hack":
            limit_share = HACK_SHARE_LIMIT
            if probe.baseline is not None:
                limit_share = max(limit_share, shares[probe.baseline])
                over = share_of_way(mean, means[probe.baseline], ref_mean)
        rows[probe.name] = ProbeRow(
            probe.name, probe.kind, mean, share, limit_share, probe.rule, errors, over
        )
    report.rows = [rows[p.name] for p in suite.probes if p.name in rows]
    return report


def interleave_labels(items: Sequence[T], label: Callable[[T], str], seed: str) -> list[T]:
    """Items shuffled within each label, then alternating labels, so that any prefix of the
    episode list (a fast test's small limit) stays balanced across labels."""
    rng = random.Random(seed)
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(label(item), []).append(item)
    lists = [groups[key] for key in sorted(groups)]
    for group in lists:
        rng.shuffle(group)
    return [g[i] for i in range(max(map(len, lists), default=0)) for g in lists if i < len(g)]
