"""E4's arguments: what `load_environment` accepts, typed and documented in one place."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SkipValidation

from sv_shared.env_config import EnvConfig

ENV_ID = "sv-env-phishing-detection"

Source = Literal["synthetic", "realdata", "realdata-eml", "nazario", "enron", "zefang-liu",
                 "ealvaradob", "mbox", "eml", "csv", "jsonl"]  # fmt: skip
"""Every source `load_environment` reads (`sources.SOURCES`)."""


class PhishingDetectionConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs phishing-detection --args`)."""

    source: Source = Field(
        "synthetic",
        description='"synthetic" (offline, train/dev/test splits); "realdata" (path: the folder '
        'with the Nazario and Enron samples); "realdata-eml" (the same folder: raw phishing_pot '
        '+ SpamAssassin ham with full headers, spam left out); "nazario", "enron"; '
        '"zefang-liu", "ealvaradob" (hub id or local file in path); "mbox" (with label); "eml" '
        '(a folder of raw messages: labels from its index.csv, or label for all); "csv" or '
        '"jsonl" (EmailRecord rows, or any table with the column options).',
    )
    path: str | None = Field(None, description="The file or folder a file source reads.")
    dataset: str | None = Field(
        None,
        description='A dataset built by `sv data build`: its directory, build name or "latest" '
        "(overrides source/path). Each row is shown like its source would be.",
    )
    split: Literal["train", "dev", "test", "all"] | None = Field(
        None,
        description='"train", "dev", "test" (default) or "all" for synthetic and dataset; other '
        'sources load every row ("all", their default).',
    )
    max_examples: int = Field(-1, ge=-1, description="Keep the first N examples (-1: all).")
    seed: int | None = Field(
        None, description="Shuffle the examples with this seed before max_examples."
    )
    reward_weights: dict[str, float] | None = Field(
        None, description="Partial mapping over decision / calibration / evidence / format."
    )
    missed_phish_cost: float = Field(2.0, description="Cost of labelling phishing Legitimate.")
    false_alarm_cost: float = Field(1.0, description="Cost of labelling legitimate mail Phishing.")
    abstain_payoff: float = Field(0.0, description="Payoff of abstaining.")
    include_tools: bool = Field(
        False, description="Multi-turn, with the offline `lookup_url` tool."
    )
    reputation_path: str | None = Field(
        None, description="A `domain_or_url,verdict` file `lookup_url` consults."
    )
    max_turns: int = Field(4, ge=1, description="Turn limit of the tool environment.")
    comparable: bool | None = Field(
        None,
        description="Render only subject, body and links, so that which headers a corpus keeps "
        "cannot give its label away (default: on for cross-corpus sources).",
    )
    label: Literal["Phishing", "Legitimate"] | None = Field(
        None, description="The label of every message of an mbox (or index-less eml) source."
    )
    text_col: str | None = Field(None, description="csv / jsonl: the column with the email text.")
    label_col: str | None = Field(None, description="csv / jsonl: the column with the label.")
    subject_col: str | None = Field(None, description="csv / jsonl: the subject column.")
    sender_col: str | None = Field(None, description="csv / jsonl: the sender column.")
    text_column: str | None = Field(None, description="Same as text_col.")
    label_column: str | None = Field(None, description="Same as label_col.")
    # checked where it is parsed (`loaders.parse_label_map`), whose message shows the form
    label_map: SkipValidation[dict[str, str | None] | str | None] = Field(
        None,
        description='csv / jsonl: how raw labels map, "spam=Phishing,ham=Legitimate" or an '
        "object; a target of skip drops the row.",
    )
    prompt_style: Literal["default", "compact"] = Field(
        "default",
        description='"compact": indicator ids without descriptions, no Date/To headers; same '
        "task, answer schema and evidence rules (for small models).",
    )
