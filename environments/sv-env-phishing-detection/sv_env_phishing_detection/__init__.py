"""E4 sv-env-phishing-detection: triage an email as Phishing / Legitimate / Abstain with a
calibrated confidence and evidence that is checked against the email.

`vf.load_environment("sv-env-phishing-detection", **kwargs)` imports this module and calls
`load_environment`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sv_shared.env_args import accepts_env_args
from sv_shared.vf_compat import vf

if TYPE_CHECKING:
    from sv_shared.data import DataAdapter

ENV_ID = "sv-env-phishing-detection"
__all__ = ["ENV_ID", "baseline_policies", "data_adapter", "load_environment"]


def baseline_policies() -> dict[str, Any]:
    """The built-in reference policies (`heuristic`, `always-legitimate`)."""
    from .baselines import baseline_policies as policies

    return policies()


def data_adapter() -> DataAdapter:
    """What `sv data build` / `sv synth` need to know about E4's rows (see `data_pipeline`)."""
    from .data_pipeline import data_adapter as adapter

    return adapter()


@accepts_env_args(
    ENV_ID,
    forwards_to=lambda: importlib.import_module("sv_env_phishing_detection.environment").build_env,
)
def load_environment(prompt_style: str = "default", **kwargs: Any) -> vf.Environment:
    """Build the E4 environment.

    Args (all optional):
        source: "synthetic" (default, offline, train/dev/test splits), "realdata" (path = the
            folder with the Nazario and Enron samples), "realdata-eml" (the same folder: raw
            phishing_pot + SpamAssassin ham messages with full headers; spam left out),
            "nazario", "enron", "zefang-liu", "ealvaradob" (hub id or local file in `path`),
            "mbox" (with `label`), "eml" (a folder of raw messages: labels from its
            index.csv, or `label` for all), "csv" or "jsonl" (EmailRecord rows, or any table
            with the column options below).
        text_col / label_col / subject_col / sender_col / label_map: where a csv or jsonl file
            keeps each field and how its labels map ("spam=Phishing,ham=Legitimate"); the same
            names work as `sv data build e4 --source csv --option text_col=...`.
        dataset: a dataset built by `sv data build` — its directory, build name or "latest"
            (overrides source/path; split may be "train", "dev", "test" or "all"). Each row
            is shown like its source would be (comparable view for cross-corpus sources).
        split: "train", "dev", "test" or "all" for synthetic; other sources load every row.
        max_examples / seed: keep the first N examples after shuffling with `seed`.
        reward_weights: partial mapping over decision / calibration / evidence / format.
        missed_phish_cost (2), false_alarm_cost (1), abstain_payoff (0): decision payoffs.
        include_tools: multi-turn with the offline `lookup_url` tool; `reputation_path` is an
            optional `domain_or_url,verdict` file it consults.
        comparable: render only subject, body and links (default: on for cross-corpus sources)
            so that which headers a corpus keeps cannot give its label away.
        prompt_style: "default" or "compact" (indicator ids without descriptions, no Date/To
            headers; same task, answer schema and evidence rules — for small models).
    """
    from .environment import build_env  # the package's leaf modules import without it
    from .indicators import CATALOGUE
    from .prompts import apply_prompt_style

    env = build_env(**kwargs)
    apply_prompt_style(env, prompt_style, CATALOGUE, bool(kwargs.get("include_tools")))
    return env
