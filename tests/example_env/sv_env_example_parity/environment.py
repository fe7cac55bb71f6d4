"""The example environment: its rows, rubric and `load_environment`."""

from __future__ import annotations

from typing import Any

from datasets import Dataset

from sv_shared.env_config import takes_config
from sv_shared.spec import LoadedEnvInfo
from sv_shared.vf_compat import vf

from .config import ExampleParityConfig
from .reward import ParityWeights, correct, well_formed
from .run_metrics import RUN_METRICS

ENV_ID = "sv-env-example-parity"
NUMBERS = (3, 8, 15, 22, 41, 56, 77, 90)
SYSTEM_PROMPT = "Answer: even or odd."


def _text(completion: Any) -> str:
    return completion[-1]["content"] if isinstance(completion, list) else str(completion)


def reward_correct(completion: Any, answer: str, **_: Any) -> float:
    return correct(_text(completion), answer)


def reward_format(completion: Any, **_: Any) -> float:
    return well_formed(_text(completion))


def rows(numbers: tuple[int, ...]) -> list[dict[str, Any]]:
    return [
        {
            "question": f"Is {n} even or odd? Answer with one word.",
            "answer": "even" if n % 2 == 0 else "odd",
            "info": {"id": f"n{n}", "number": n},
        }
        for n in numbers
    ]


@takes_config(ENV_ID, ExampleParityConfig)
def load_environment(config: ExampleParityConfig) -> vf.SingleTurnEnv:
    """Build the example environment from its arguments (`ExampleParityConfig`)."""
    numbers = NUMBERS[: config.max_examples] if config.max_examples > 0 else NUMBERS
    weights = ParityWeights.from_mapping(config.reward_weights)
    rubric = vf.Rubric(
        funcs=[reward_correct, reward_format], weights=[weights.correct, weights.format]
    )
    env = vf.SingleTurnEnv(
        eval_dataset=Dataset.from_list(rows(numbers)),
        system_prompt=SYSTEM_PROMPT,
        rubric=rubric,
        env_id=ENV_ID,
    )
    return LoadedEnvInfo(
        dataset_info={"source": "builtin", "n_selected": len(numbers)},
        reward_config={"weights": {"correct": weights.correct, "format": weights.format}},
        metrics=RUN_METRICS.select({}, None),
    ).attach(env)
