"""E1 environment: the flow rows, the rubric and `load_environment`."""

from __future__ import annotations

from collections.abc import Mapping

from datasets import Dataset

from sv_env_network_logs.dataset import ENV_ID, load_flows
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.prompts import (
    COMPACT_SYSTEM_PROMPT,
    PROMPT_STYLES,
    SYSTEM_PROMPT,
    render_flow,
    render_flow_compact,
)
from sv_env_network_logs.reward import ABSTAIN, LABELS, build_payoffs, build_rubric
from sv_shared.env_args import accepts_env_args
from sv_shared.parsers import JsonClassificationParser
from sv_shared.rewards import RewardWeights, abstention_threshold
from sv_shared.sampling import shuffle_and_truncate
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

STRUCTURED_OUTPUT_DEFAULT = True
"""Ask providers that support it for schema-constrained JSON unless the user opts out."""


def to_rows(items: list[LabeledFlow], prompt_style: str = "default") -> Dataset:
    """verifiers rows: the rendered flow as the question, the label as the answer."""
    render = render_flow_compact if prompt_style == "compact" else render_flow
    return Dataset.from_list(
        [
            {
                "question": render(item.flow),
                "answer": item.label,
                "info": {
                    "id": item.id,
                    "scenario": item.scenario,
                    "group": item.group,
                    "source": item.source,
                },
            }
            for item in items
        ]
    )


@accepts_env_args(ENV_ID)
def load_environment(
    source: str = "synthetic",
    path: str | None = None,
    split: str | None = None,
    max_examples: int = -1,
    seed: int | None = None,
    reward_weights: Mapping[str, float] | None = None,
    cost_matrix: Mapping[str, Mapping[str, float]] | None = None,
    correct_payoff: float = 1.0,
    abstain_payoff: float = 0.0,
    invalid_payoff: float | None = None,
    include_background: bool = False,
    strict: bool = True,
    dataset: str | None = None,
    prompt_style: str = "default",
) -> vf.SingleTurnEnv:
    """Build the E1 environment.

    Args:
        source: "synthetic" (default, offline), "zeek", "hf-iot23", "cic-ids-2017", "unsw-nb15",
            "nsl-kdd" or "jsonl"; file sources read `path`.
        dataset: a dataset built by `sv data build` — its directory, build name, or "latest"
            (overrides source/path).
        split: "train", "dev", "test" or "all" — the evaluation split (default "all" for a
            file given with `path`, else "test"). Training uses "train".
        max_examples: keep only the first N evaluation examples (-1: all).
        seed: when given, shuffle the evaluation examples with it before `max_examples`.
        reward_weights: partial mapping over decision / calibration / format / accuracy;
            a weight of 0 switches a component off.
        cost_matrix: gold -> predicted -> cost of a wrong answer (default: missed attack 2,
            false alarm 1). correct_payoff / abstain_payoff / invalid_payoff: the other payoffs.
        prompt_style: "default" or "compact" (a short system prompt and a one-line flow,
            same task and answer schema; for training and evaluating small models).
    """
    if prompt_style not in PROMPT_STYLES:
        raise ValueError(f"prompt_style '{prompt_style}': expected one of {PROMPT_STYLES}")
    if dataset:
        source, path = "dataset", dataset
    items, info = load_flows(
        source, path=path, split=split, include_background=include_background, strict=strict
    )
    split = info.split
    items = shuffle_and_truncate(items, seed, max_examples)

    def train_rows() -> Dataset:
        train, _ = load_flows(
            source, path=path, split="train", include_background=include_background, strict=strict
        )
        return to_rows(train, prompt_style)

    parser = JsonClassificationParser(allowed_labels=LABELS)
    payoffs = build_payoffs(cost_matrix, correct_payoff, abstain_payoff, invalid_payoff)
    weights = RewardWeights.from_mapping(reward_weights)
    env = vf.SingleTurnEnv(
        dataset=train_rows if split != "train" else None,
        eval_dataset=to_rows(items, prompt_style),
        system_prompt=COMPACT_SYSTEM_PROMPT if prompt_style == "compact" else SYSTEM_PROMPT,
        parser=parser,
        rubric=build_rubric(parser, payoffs, weights),
        env_id=ENV_ID,
    )
    dataset_info = info.to_dict() | {"n_selected": len(items), "order_seed": seed}
    if prompt_style != "default":  # recorded in run metadata; default rows stay as they were
        dataset_info["prompt_style"] = prompt_style
    return LoadedEnvInfo(
        dataset_info=dataset_info,
        labels=LABELS,
        payoffs=payoffs,
        answer_schema=parser.answer_json_schema(),
        structured_output_default=STRUCTURED_OUTPUT_DEFAULT,
        reward_config={
            "weights": weights.as_dict(),
            "payoffs": payoffs.as_config(),
            "abstention_thresholds": {
                label: abstention_threshold(payoffs, label, LABELS[:2]) for label in LABELS[:2]
            },
            "abstain_label": ABSTAIN,
        },
    ).attach(env)
