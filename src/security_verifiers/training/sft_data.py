"""Chat-format SFT examples from an environment's training split and from scored rollouts.

Three sources, every example checked by the environment's own reward (the replay scorer):

* **gold** — the training row's verified answer rendered in the environment's answer JSON
  (E1/E4: label, a configurable confidence, optionally a short rationale or the indicators the
  email really shows);
* **reference** — answers of a built-in reference model (e.g. E2 `tool-oracle-fix`, E3
  `reference-fix`) for environments whose gold answer is not a chat reply;
* **rollouts** — rejection sampling: rows of `sv eval` results.jsonl files whose reward is at
  least `min_reward`. Only rows whose example is in the training split are used (an eval on
  the test split can never leak into training); the rest are counted as `not_in_train`.
"""

from __future__ import annotations

import glob
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from security_verifiers.environments import baseline_policies
from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatRequest
from security_verifiers.training.config import RolloutSource, SFTData
from security_verifiers.training.envs import TrainingEnv, row_key
from security_verifiers.training.rewards import EnvScorer
from sv_shared.sft import CONFIDENCE_KEY, LABEL_KEY, prepare_rows

ABSTAIN = "Abstain"


_ADDRESSES = re.compile(
    r"(?<= )src=\S+|(?<= dst=)(\[[^\]]*\]|[^\s:]+)|^(id\.orig_[hp]|id\.resp_h|ts|uid): \S+$",
    re.MULTILINE,
)


def look_alike_key(row: dict[str, Any]) -> str:
    """What the model sees of an item, minus what never decides the label (E1: addresses,
    source port, timestamp and uid) — items with the same key look the same."""
    return _ADDRESSES.sub("", _prompt_text(row))


def abstention_thresholds(training_env: TrainingEnv) -> dict[str, float]:
    """Per label, the least probability of being right at which answering beats abstaining
    (from the environment's payoffs: p * correct - (1 - p) * cost >= abstain)."""
    config = training_env.reward_config() or {}
    if config.get("abstention_thresholds"):
        return {k: float(v) for k, v in config["abstention_thresholds"].items()}
    payoffs = config.get("payoffs") or {}
    correct, abstain = float(payoffs.get("correct", 1.0)), float(payoffs.get("abstain", 0.0))
    out: dict[str, float] = {}
    for row in (payoffs.get("cost_matrix") or {}).values():
        for predicted, cost in row.items():
            threshold = (abstain + float(cost)) / (correct + float(cost))
            out[predicted] = max(out.get(predicted, 0.0), threshold)
    return out


def _prompt_text(row: dict[str, Any]) -> str:
    return str((row.get("prompt") or [{}])[-1].get("content", ""))


def gold_probabilities(training_env: TrainingEnv, method: str) -> dict[str, dict[str, float]]:
    """Per training row (by `row_key`), {label: chance it holds} for the item as the model
    sees it: label frequency among look-alike items, or out-of-fold classifier probability."""
    rows = training_env.rows
    if method in ("cross_fit", "cross_fit_groups"):
        from security_verifiers.training.cross_fit import out_of_fold_probabilities
        from security_verifiers.training.group_holdout import row_group

        texts = [_prompt_text(row) for row in rows]
        labels = [str(row["answer"]) for row in rows]
        templates = [row_group(row) for row in rows] if method == "cross_fit_groups" else None
        probabilities = out_of_fold_probabilities(texts, labels, groups=templates)
        return {row_key(row): p for row, p in zip(rows, probabilities, strict=True)}
    groups: dict[str, Counter] = {}
    for row in rows:
        groups.setdefault(look_alike_key(row), Counter())[str(row["answer"])] += 1
    out = {}
    for row in rows:
        counts = groups[look_alike_key(row)]
        total = sum(counts.values())
        out[row_key(row)] = {label: n / total for label, n in counts.items()}
    return out


def calibrate_rows(
    rows: list[dict[str, Any]],
    training_env: TrainingEnv,
    cap: float,
    stats: Counter,
    method: str = "look_alike",
) -> list[dict[str, Any]]:
    """Copies of `rows` with the gold answer's label and confidence (`sv_shared.sft`'s
    `LABEL_KEY`, `CONFIDENCE_KEY`): the chance the gold label holds (`gold_probabilities`),
    capped, or Abstain where it is below the label's threshold."""
    probabilities = gold_probabilities(training_env, method)
    thresholds = abstention_thresholds(training_env)
    out = []
    for row in rows:
        label = str(row["answer"])
        chances = probabilities.get(row_key(row)) or {label: 1.0}
        p = chances.get(label, 0.0)
        if p < thresholds.get(label, 0.0):
            stats["calibrated_abstain"] += 1
            decision = {
                LABEL_KEY: ABSTAIN,
                CONFIDENCE_KEY: round(min(cap, max(chances.values())), 2),
            }
        else:
            if round(p, 2) < cap:
                stats["calibrated_lowered"] += 1
            decision = {LABEL_KEY: label, CONFIDENCE_KEY: round(min(cap, p), 2)}
        out.append({**row, **decision})
    return out


def example(row: dict[str, Any], text: str, source: str) -> dict[str, Any]:
    return {
        "prompt": list(row["prompt"]),
        "completion": [{"role": "assistant", "content": text}],
        "source": source,
        "key": row_key(row),
    }


def results_files(source: RolloutSource) -> list[Path]:
    """The results.jsonl files a rollout source names (file, run dir, or glob of either)."""
    matches = sorted(glob.glob(source.path, recursive=True)) or []
    if not matches and Path(source.path).exists():
        matches = [source.path]
    files: list[Path] = []
    for match in map(Path, matches):
        if match.is_dir():
            files.extend(sorted(match.rglob("results.jsonl")))
        elif match.is_file():
            files.append(match)
    if not files:
        raise UserError(f"rollouts: no results.jsonl found at '{source.path}'")
    return files


def rollout_examples(
    source: RolloutSource, by_key: dict[str, dict[str, Any]], stats: Counter
) -> list[dict[str, Any]]:
    """Rejection sampling: results rows with reward >= min_reward on training-split examples."""
    out: list[dict[str, Any]] = []
    for path in results_files(source):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                result = json.loads(line)
            except json.JSONDecodeError:
                stats["rollouts_unreadable"] += 1
                continue
            stats["rollouts_seen"] += 1
            reward = result.get("reward")
            if result.get("error") or reward is None or float(reward) < source.min_reward:
                stats["rollouts_below_threshold"] += 1
                continue
            if result.get("completion_truncated"):  # only part of the reply was stored
                stats["rollouts_truncated"] += 1
                continue
            row = by_key.get(str(result.get("example_key")))
            if row is None:
                stats["rollouts_not_in_train"] += 1
                continue
            out.append(example(row, str(result.get("completion") or ""), "rollout"))
            if source.max_examples and len(out) >= source.max_examples:
                return out
    return out


def _verified(
    candidates: list[tuple[dict[str, Any], str]],
    scorer: EnvScorer,
    min_reward: float,
    source: str,
    stats: Counter,
) -> list[dict[str, Any]]:
    if not candidates:
        return []
    scores = scorer.score([r for r, _ in candidates], [t for _, t in candidates])
    kept = []
    for (row, text), score in zip(candidates, scores, strict=True):
        if score["reward"] >= min_reward:
            kept.append(example(row, text, source))
        else:
            stats[f"{source}_rejected"] += 1
    return kept


def build_sft_examples(
    data: SFTData, training_env: TrainingEnv, scorer: EnvScorer
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The shuffled SFT examples and a summary (counts per source, rejections, hash)."""
    rows = list(training_env.rows)
    random.Random(data.seed).shuffle(rows)
    if data.max_examples is not None:
        rows = rows[: data.max_examples]  # candidates per source; the total is capped below
    stats: Counter = Counter()
    examples: list[dict[str, Any]] = []
    if data.gold:
        renderer = training_env.entry.hook("sft_renderer")
        if renderer is None and data.reference_policy is None:
            raise UserError(
                f"data.gold: no gold-answer renderer for {training_env.entry.env_id}; set "
                f"data.reference_policy to a built-in model (`sv models {training_env.key}`) "
                f"or use data.rollouts"
            )
        if renderer is not None:
            gold_rows = (
                calibrate_rows(rows, training_env, data.confidence, stats, data.calibration)
                if (data.calibrate)
                else rows
            )
            gold_rows = prepare_rows(renderer, gold_rows, data)
            candidates = [(row, renderer(row, data)) for row in gold_rows]
            examples += _verified(candidates, scorer, data.min_reward, "gold", stats)
    if data.reference_policy:
        policies = baseline_policies(training_env.entry)
        if data.reference_policy not in policies:
            raise UserError(
                f"data.reference_policy: '{data.reference_policy}' is not a built-in model of "
                f"{training_env.key}; available: {', '.join(sorted(policies))}"
            )
        policy = policies[data.reference_policy]
        candidates = []
        for row in rows:
            reply = policy(ChatRequest(model=data.reference_policy, messages=row["prompt"]))
            if isinstance(reply, str):
                candidates.append((row, reply))
            else:
                stats["reference_tool_calls_skipped"] += 1
        examples += _verified(candidates, scorer, data.min_reward, "reference", stats)
    by_key = {row_key(row): row for row in training_env.rows}
    for source in data.rollouts:
        examples += rollout_examples(source, by_key, stats)
    seen: set[tuple[str, str]] = set()
    unique = []
    for item in examples:
        ident = (item["key"], item["completion"][0]["content"])
        if ident not in seen:
            seen.add(ident)
            unique.append(item)
    random.Random(data.seed).shuffle(unique)
    if data.max_examples is not None:
        unique = unique[: data.max_examples]
    if not unique:
        raise UserError(
            f"no SFT examples for {training_env.entry.env_id} (check data.gold, "
            f"data.reference_policy, data.rollouts and data.min_reward): {dict(stats)}"
        )
    blob = "\n".join(json.dumps(e, sort_keys=True) for e in unique).encode()
    summary = {
        "n_examples": len(unique),
        "by_source": dict(Counter(e["source"] for e in unique)),
        "filtered": dict(stats),
        "sha256": hashlib.sha256(blob).hexdigest(),
    }
    return unique, summary
