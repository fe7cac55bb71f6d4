"""Building the E4 verifiers environment from email records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from datasets import Dataset

from sv_shared.env_config import takes_config
from sv_shared.sampling import shuffle_and_truncate
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

from .answer import TriageParser
from .config import ENV_ID, PhishingDetectionConfig
from .indicators import CATALOGUE, extract_indicators
from .message import parse_message
from .prompts import apply_prompt_style, system_prompt
from .records import ABSTAIN, EmailRecord
from .render import comparable_view, render_email
from .reward import TriageWeights, default_payoffs
from .run_metrics import RUN_METRICS
from .scoring import build_rubric
from .sources import (
    CROSS_CORPUS_SOURCES,
    TableColumns,
    excluded_rows,
    load_built,
    load_records,
    records_hash,
    renders_comparable,
)
from .url_tool import make_lookup_url


def episode(record: EmailRecord, comparable: bool) -> dict[str, Any]:
    """One verifiers row: the rendered email, the gold label, what scoring needs."""
    view = parse_message(record.raw)
    if comparable:
        view = comparable_view(view)
    text = render_email(view)
    return {
        "question": text,
        "answer": record.label,
        "info": {
            "id": record.id,
            "gold": record.label,
            "scenario": record.scenario,
            "source": record.source,
            "language": record.language,
            "group": record.group,
            "text": text,
            "indicators": sorted(extract_indicators(view)),
        },
    }


def to_rows(records: Sequence[EmailRecord], comparable: bool | None) -> Dataset:
    """Episodes; ``comparable=None`` decides per record by its source (built datasets)."""
    return Dataset.from_list(
        [
            episode(record, renders_comparable(record) if comparable is None else comparable)
            for record in records
        ]
    )


def _view_mode(records: Sequence[EmailRecord], comparable: bool | None) -> bool | str:
    """What `sv_dataset_info` records as the view: a flag, or "per-source" when mixed."""
    if comparable is not None:
        return comparable
    modes = {renders_comparable(record) for record in records}
    return modes.pop() if len(modes) == 1 else "per-source"


@takes_config(ENV_ID, PhishingDetectionConfig)
def load_environment(config: PhishingDetectionConfig) -> vf.Environment:
    """Build the E4 environment from its arguments (`PhishingDetectionConfig`)."""
    source, path, split, seed = config.source, config.path, config.split, config.seed
    include_tools = config.include_tools
    built: dict[str, Any] | None = None
    if config.dataset:
        split = split or "test"
        records, built = load_built(config.dataset, split)
    else:
        columns = TableColumns(
            config.text_col or config.text_column,
            config.label_col or config.label_column,
            config.subject_col,
            config.sender_col,
            config.label_map,
        )
        records = load_records(source, path=path, split=split, label=config.label, columns=columns)
        split = split or ("test" if source == "synthetic" else "all")
    records = shuffle_and_truncate(records, seed, config.max_examples)
    cross_corpus: bool | None = config.comparable
    if built is None and config.comparable is None:
        cross_corpus = source in CROSS_CORPUS_SOURCES
    weights = TriageWeights.from_mapping(config.reward_weights)
    payoffs = default_payoffs(
        config.missed_phish_cost, config.false_alarm_cost, config.abstain_payoff
    )
    parser = TriageParser()
    common: dict[str, Any] = {
        "eval_dataset": to_rows(records, cross_corpus),
        "system_prompt": system_prompt(CATALOGUE, include_tools),
        "parser": parser,
        "rubric": build_rubric(parser, payoffs, weights, frozenset(CATALOGUE)),
        "env_id": ENV_ID,
    }
    env: vf.Environment = (
        vf.ToolEnv(
            tools=[make_lookup_url(config.reputation_path)], max_turns=config.max_turns, **common
        )
        if include_tools
        else vf.SingleTurnEnv(**common)
    )
    dataset_info: dict[str, Any] = {
        "source": source,
        "path": path,
        "split": split,
        "n": len(records),
        "content_hash": records_hash(records),
        "order_seed": seed,
        "comparable_view": _view_mode(records, cross_corpus),
        "include_tools": include_tools,
    }
    excluded = {} if built is not None else excluded_rows(source, path)
    if excluded:
        dataset_info["excluded"] = excluded
    if built is not None:
        dataset_info |= {
            "source": "dataset",
            "path": built["dataset"],
            "dataset": built["dataset"],
            "build": built["build"],
            "split_sha256": built["content_hash"],
            "built_from": built["built_from"],
            "license": built["license"],
        }
    LoadedEnvInfo(
        dataset_info=dataset_info,
        labels=parser.allowed_labels,
        payoffs=payoffs,
        reward_config={
            "weights": weights.as_dict(),
            "payoffs": payoffs.as_config(),
            "abstain_label": ABSTAIN,
        },
        metrics=RUN_METRICS.select({}, payoffs),
        answer_schema=parser.answer_json_schema(),
        structured_output_default=not include_tools,
    ).attach(env)
    apply_prompt_style(env, config.prompt_style, CATALOGUE, include_tools)
    return env
