"""E1 environment: the flow rows, the rubric and `load_environment`."""

from __future__ import annotations

from datasets import Dataset

from sv_env_network_logs.config import NetworkLogsConfig
from sv_env_network_logs.dataset import ENV_ID, load_flows
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.prompts import (
    COMPACT_SYSTEM_PROMPT,
    SYSTEM_PROMPT,
    render_flow,
    render_flow_compact,
)
from sv_env_network_logs.reward import ABSTAIN, LABELS, build_payoffs, build_rubric
from sv_env_network_logs.run_metrics import RUN_METRICS
from sv_shared.env_config import takes_config
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


@takes_config(ENV_ID, NetworkLogsConfig)
def load_environment(config: NetworkLogsConfig) -> vf.SingleTurnEnv:
    """Build the E1 environment from its arguments (`NetworkLogsConfig`)."""
    source, path, split, seed = config.source, config.path, config.split, config.seed
    include_background, strict = config.include_background, config.strict
    prompt_style = config.prompt_style
    if config.dataset:
        source, path = "dataset", config.dataset
    items, info = load_flows(
        source, path=path, split=split, include_background=include_background, strict=strict
    )
    split = info.split
    items = shuffle_and_truncate(items, seed, config.max_examples)

    def train_rows() -> Dataset:
        train, _ = load_flows(
            source, path=path, split="train", include_background=include_background, strict=strict
        )
        return to_rows(train, prompt_style)

    parser = JsonClassificationParser(allowed_labels=LABELS)
    payoffs = build_payoffs(
        config.cost_matrix, config.correct_payoff, config.abstain_payoff, config.invalid_payoff
    )
    weights = RewardWeights.from_mapping(config.reward_weights)
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
        metrics=RUN_METRICS.select({}, payoffs),
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
