"""`sv train sft` and `sv train rl`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from security_verifiers.errors import UserError

train_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Fine-tune a model on the environments: SFT (LoRA), then GRPO on their own rewards.",
)
console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

ConfigOpt = Annotated[Path, typer.Option("--config", "-c", help="Recipe YAML file.")]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        help="Start from this model (HF id/dir, .gguf, smollm2-135m, checkpoint dir, "
        "latest:<model>/<stage>); overrides `model`."
    ),
]
StepsOpt = Annotated[int | None, typer.Option(help="Override the number of training steps.")]
RootOpt = Annotated[Path | None, typer.Option(help="Override `output_root` (checkpoints).")]
SeedOpt = Annotated[int | None, typer.Option(help="Override the training seed.")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override any field: dotted.key=VALUE (YAML value); repeatable."),
]


def parse_sets(pairs: list[str] | None) -> dict[str, Any]:
    """`train.batch_size=4` -> {"train.batch_size": 4} (values parsed as YAML)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--set '{pair}': expected dotted.key=VALUE")
        try:
            out[key.strip()] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise UserError(f"--set '{pair}': {exc}") from None
    return out


def given(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line options the user gave (an unset option is None and overrides nothing;
    an explicit `--set key=null` still does)."""
    return {key: value for key, value in options.items() if value is not None}


def _quiet_libraries() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import datasets
    import transformers

    datasets.disable_progress_bars()
    transformers.logging.set_verbosity_error()


@train_app.command("sft")
def sft_command(
    config: ConfigOpt,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
    output_root: RootOpt = None,
    seed: SeedOpt = None,
    set_: SetOpt = None,
) -> None:
    """Supervised fine-tuning (TRL SFTTrainer + LoRA) on verified answers and good rollouts."""
    from security_verifiers.training.config import SFTRecipe, load_recipe
    from security_verifiers.training.sft import run_sft

    overrides = {
        **given(
            {
                "model": model,
                "train.max_steps": max_steps,
                "output_root": output_root and str(output_root),
                "train.seed": seed,
            }
        ),
        **parse_sets(set_),
    }
    recipe = load_recipe(config, SFTRecipe, overrides)
    if max_steps is not None:
        recipe.train.epochs = None  # an explicit step count wins over `train.epochs`
    _quiet_libraries()
    path = run_sft(recipe, console)
    typer.echo(str(path))


@train_app.command("rl")
def rl_command(
    config: ConfigOpt,
    model: ModelOpt = None,
    max_steps: Annotated[
        int | None, typer.Option(help="Cap every stage at this many GRPO steps.")
    ] = None,
    output_root: RootOpt = None,
    seed: SeedOpt = None,
    set_: SetOpt = None,
) -> None:
    """GRPO (TRL) whose rewards are the environments' own reward functions."""
    from security_verifiers.training.config import RLRecipe, load_recipe
    from security_verifiers.training.rl import run_rl

    recipe = load_recipe(
        config,
        RLRecipe,
        {
            **given(
                {
                    "model": model,
                    "output_root": output_root and str(output_root),
                    "grpo.seed": seed,
                }
            ),
            **parse_sets(set_),
        },
    )
    if max_steps is not None:
        for stage in recipe.stages or []:
            stage.steps = min(stage.steps, max_steps)
        if recipe.alternation is not None:
            recipe.alternation.attacker.steps = min(recipe.alternation.attacker.steps, max_steps)
            recipe.alternation.defender.steps = min(recipe.alternation.defender.steps, max_steps)
    _quiet_libraries()
    path = run_rl(recipe, console, source=config)
    typer.echo(str(path))
