"""Example environment: say whether a number is even or odd (one word)."""

from __future__ import annotations

from collections.abc import Callable

import verifiers as vf
from datasets import Dataset

from sv_shared.spec import LoadedEnvInfo

ENV_ID = "sv-env-example-parity"
NUMBERS = (3, 8, 15, 22, 41, 56, 77, 90)


def reward_correct(completion, answer, **kwargs) -> float:
    text = completion[-1]["content"] if isinstance(completion, list) else str(completion)
    return 1.0 if text.strip().lower() == answer else 0.0


def load_environment(max_examples: int = -1) -> vf.SingleTurnEnv:
    numbers = NUMBERS[:max_examples] if max_examples > 0 else NUMBERS
    rows = [
        {
            "question": f"Is {n} even or odd? Answer with one word.",
            "answer": "even" if n % 2 == 0 else "odd",
            "info": {"id": f"n{n}"},
        }
        for n in numbers
    ]
    rubric = vf.Rubric(funcs=[reward_correct], weights=[1.0])
    env = vf.SingleTurnEnv(
        eval_dataset=Dataset.from_list(rows), system_prompt="Answer: even or odd.",
        rubric=rubric, env_id=ENV_ID,
    )  # fmt: skip
    return LoadedEnvInfo(dataset_info={"source": "builtin", "n_selected": len(rows)}).attach(env)


def _compute(prompt: str, seed: int | None = None) -> str:
    number = int(prompt.split("Is ", 1)[1].split()[0])
    return "even" if number % 2 == 0 else "odd"


def baseline_policies() -> dict[str, Callable[[str, int | None], str]]:
    return {"always-even": lambda prompt, seed=None: "even", "compute": _compute}
