"""E4's typed arguments: every mistake is one line naming the field and the value."""

from __future__ import annotations

import pytest

from sv_env_phishing_detection import ENV_ID, PhishingDetectionConfig, load_environment
from sv_env_phishing_detection.loaders import EmailDatasetError
from sv_shared.env_config import config_of, describe


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"source": "gmail"}, "source: input should be 'synthetic', 'realdata'"),
        ({"split": "validation"}, "split: input should be 'train', 'dev', 'test' or 'all' (got "
         "'validation')"),
        ({"label": "Spam"}, "label: input should be 'Phishing' or 'Legitimate' (got 'Spam')"),
        ({"prompt_style": "tiny"}, "prompt_style: input should be 'default' or 'compact'"),
        ({"max_turns": 0}, "max_turns: input should be greater than or equal to 1 (got 0)"),
        ({"reward_weights": 5}, "reward_weights: input should be a valid dictionary (got 5)"),
        ({"include_tools": "maybe"}, "include_tools: input should be a valid boolean"),
    ],
)  # fmt: skip
def test_a_mistake_is_one_line_naming_the_field(args, message):
    with pytest.raises(ValueError) as caught:
        load_environment(**args)
    text = str(caught.value)
    assert text.startswith(f"{ENV_ID}: {message}")
    assert "\n" not in text


def test_label_map_keeps_the_loaders_message(tmp_path):
    """label_map is checked where it is parsed: its message shows the raw=Label form."""
    path = tmp_path / "mail.csv"
    path.write_text("text,label\nhello,ham\n")
    with pytest.raises(EmailDatasetError, match=r"^label_map: expected raw=Label pairs"):
        load_environment(source="csv", path=str(path), label_map=5)


def test_every_argument_is_documented():
    assert config_of(load_environment) is PhishingDetectionConfig
    assert all(arg.description for arg in describe(PhishingDetectionConfig))
