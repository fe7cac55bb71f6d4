"""Building the E2 verifiers environment (single turn, or multi-turn with tools)."""

from __future__ import annotations

import functools
import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import fields
from pathlib import Path
from typing import Any

from datasets import Dataset

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.config import ConfigVerificationConfig
from sv_env_config_verification.dataset import (
    ENV_ID,
    ConfigItem,
    content_hash,
    load_bases,
    load_built,
    load_report,
)
from sv_env_config_verification.model_tools import EPISODE_ARG, MODEL_TOOLS
from sv_env_config_verification.oracle import scan, tool_versions
from sv_env_config_verification.prompts import render_config, system_prompt
from sv_env_config_verification.reward import AuditWeights
from sv_env_config_verification.run_metrics import RUN_METRICS
from sv_env_config_verification.schema import answer_json_schema
from sv_env_config_verification.scoring import REWARD_COMPONENTS, AuditParser, build_rubric
from sv_shared.env_config import takes_config
from sv_shared.episode_scoring import run_in_scoring_pool, scoring_executor
from sv_shared.rewards import weights_dataclass
from sv_shared.rollout_env import rollout_env
from sv_shared.sampling import shuffle_and_truncate
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

log = logging.getLogger(__name__)


def to_rows(items: Sequence[ConfigItem]) -> Dataset:
    return Dataset.from_list(
        [
            {
                "question": render_config(item.name, item.kind, item.text),
                "answer": json.dumps(item.findings, sort_keys=True),
                "info": {
                    "id": item.id,
                    "kind": item.kind,
                    "name": item.name,
                    "text": item.text,
                    "findings": item.findings,
                    "base_id": item.base_id,
                    "injected": item.injected,
                    "source": item.source,
                },
            }
            for item in items
        ]
    )


def default_scan_cache_dir() -> Path:
    configured = os.environ.get("SV_E2_SCAN_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "security-verifiers" / "e2-scans"


def weights_from(mapping: Mapping[str, float] | None) -> AuditWeights:
    return weights_dataclass(AuditWeights, mapping)


def _build_provenance(built: Mapping[str, Any]) -> dict[str, Any]:
    """What identifies the build a dataset= environment reads (empty for other sources)."""
    if not built:
        return {}
    return {
        "dataset": built["dataset"],
        "build": built["build"],
        "revision": built["content_hash"],
        "n_in_split": built["n"],
        "built_from": built.get("built_from", []),
        "license": built.get("license", ""),
    }


@takes_config(ENV_ID, ConfigVerificationConfig)
def load_environment(config: ConfigVerificationConfig) -> vf.Environment:
    """Build E2 from its arguments (`ConfigVerificationConfig`)."""
    source, path, dataset, seed = config.source, config.path, config.dataset, config.seed
    include_tools = config.include_tools
    if config.scoring_workers is not None:
        scoring_executor(config.scoring_workers)
    built: dict[str, Any] = {}
    skipped: dict[str, Any] = {}
    split = config.split
    if split is None:
        split = "all" if source in ("dir", "hf") and not dataset else "test"
    if dataset:
        items, built = load_built(dataset, split)
    else:
        cache_dir = config.scan_cache_dir or default_scan_cache_dir()
        report = load_report(
            split,
            source,
            path,
            cache_dir=cache_dir,
            strict=config.strict,
            strip_comments=config.strip_comments,
        )
        items = report.items
        if source != "builtin":
            skipped = {k: v for k, v in report.provenance().items() if k != "n"}
    items = shuffle_and_truncate(items, seed, config.max_examples)
    weights = weights_from(config.reward_weights)
    parser = AuditParser()
    env = rollout_env(
        rows=to_rows(items),
        system_prompt=system_prompt(include_tools),
        parser=parser,
        rubric=build_rubric(parser, weights),
        env_id=ENV_ID,
        tools=MODEL_TOOLS if include_tools else None,
        episode_keys=("kind", "name", "text"),
        episode_arg=EPISODE_ARG,
        max_turns=config.max_turns,
    )
    component_weights = {name: getattr(weights, name) for name in REWARD_COMPONENTS}
    return LoadedEnvInfo(
        dataset_info={
            "source": "dataset" if dataset else source,
            "path": built.get("dataset", path),
            "split": split,
            "n": len(items),
            "content_hash": content_hash(items),
            "order_seed": seed,
            "include_tools": include_tools,
        }
        | skipped
        | _build_provenance(built),
        reward_config={
            "weights": component_weights,
            "audit_weights": {f.name: getattr(weights, f.name) for f in fields(AuditWeights)},
        },
        tool_versions=tool_versions(),
        metrics=RUN_METRICS.select({}, None),
        answer_schema=answer_json_schema(sorted(CATALOGUE), for_decoding=True),
        structured_output_default=not include_tools,
        warm_up=warm_up_tools() if config.warm_up else None,
    ).attach(env)


def _warm_tools() -> dict[str, float]:
    """Import checkov, compile the Rego pack, start semgrep: one uncached scan of the first
    built-in base of each kind. Seconds per kind; failures are logged, never raised."""
    seconds: dict[str, float] = {}
    bases = list(load_bases().values())
    for kind in ("k8s", "terraform"):
        config = next((c for c in bases if c.kind == kind), None)
        if config is None:
            continue
        start = time.perf_counter()
        try:
            scan(config, cache=False)
        except Exception:
            log.exception("E2 tool warm-up on %s failed", config.name)
        seconds[kind] = time.perf_counter() - start
    log.debug("E2 tools warmed: %s", seconds)
    return seconds


@functools.cache
def warm_up_tools() -> Future:
    """Warm the scanners once per process, in the scoring pool (load returns at once; the
    first rollout's re-scan waits on the warm-up in its worker thread, never on the loop)."""
    return run_in_scoring_pool(_warm_tools)
