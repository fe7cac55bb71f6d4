"""E4 v2: data-file scenarios, lure-text indicators, the tuned heuristic, source options."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from sv_env_phishing_detection import data_adapter, load_environment
from sv_env_phishing_detection.campaigns import (
    DATA_SCENARIOS,
    LEGITIMATE_SCENARIOS,
    PHISHING_SCENARIOS,
    PLACEHOLDERS,
    TEMPLATES,
)
from sv_env_phishing_detection.dataset import load_synthetic
from sv_env_phishing_detection.generator import GENERATOR_VERSION, generate_corpus
from sv_env_phishing_detection.heuristic import (
    INDICATOR_WEIGHTS,
    LEGITIMATE_AT,
    PHISHING_AT,
    PRIOR_WEIGHTS,
    heuristic_answer,
    load_tuning,
)
from sv_env_phishing_detection.indicators import (
    CATALOGUE,
    LURE_TEXT_INDICATORS,
    content_indicators,
    extract_indicators,
)
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING
from sv_env_phishing_detection.scenario_data import alternatives, load_scenario_data
from sv_env_phishing_detection.sources import excluded_rows
from sv_env_phishing_detection.tune_heuristic import is_current, tune
from sv_shared.data import SourceRequest


@pytest.fixture(scope="module")
def corpus():
    return generate_corpus()


# ---------------------------------------------------------------------------- data file
def test_data_file_scenarios_are_wired_in() -> None:
    data = load_scenario_data()
    assert data["scenarios"] == DATA_SCENARIOS
    for name, entry in DATA_SCENARIOS.items():
        assert name in (PHISHING_SCENARIOS if entry["label"] == PHISHING else LEGITIMATE_SCENARIOS)
        assert entry["description"] and "en" in entry["templates"]
    labels = Counter(entry["label"] for entry in DATA_SCENARIOS.values())
    assert labels[PHISHING] >= 8 and labels[LEGITIMATE] >= 8


def test_every_alternative_uses_known_placeholders_and_fills() -> None:
    fields = {name: f"<{name}>" for name in PLACEHOLDERS}
    for template in TEMPLATES:
        if template.spec is None:
            continue
        slots = [*template.spec["subject"], *template.spec.get("quote", ())]
        slots += [alt for slot in template.spec["body"] for alt in alternatives(slot)]
        slots += template.spec.get("attach", [])
        for text in slots:
            assert set(re.findall(r"{(\w+)}", text)) <= PLACEHOLDERS, (template.key, text)
            text.format_map(fields)


def test_new_families_are_generated_for_both_labels(corpus) -> None:
    counts = Counter(r.scenario for r in corpus if r.scenario in DATA_SCENARIOS)
    assert set(counts) == set(DATA_SCENARIOS)
    assert all(count >= 10 for count in counts.values()), counts
    assert all(r.meta["generator_version"] == GENERATOR_VERSION for r in corpus)
    assert all(r.id.startswith(f"synth-{r.scenario}-{r.language}-") for r in corpus)


def test_structure_appears_in_both_labels(corpus) -> None:
    """Quoting, missing greetings, disclaimers and writing styles are no label shortcut."""
    for technique in ("quoted_reply", "quoted_forward", "no_greeting", "disclaimer",
                      "style_lower_case", "style_typos", "style_all_caps"):  # fmt: skip
        labels = {r.label for r in corpus if technique in r.meta["techniques"]}
        assert labels == {PHISHING, LEGITIMATE}, technique
    for prefix in ("re:", "fw"):
        labels = {
            r.label for r in corpus if parse_message(r.raw).subject.lower().startswith(prefix)
        }
        assert labels == {PHISHING, LEGITIMATE}, prefix


def test_link_less_phishing_and_legitimate_mail_about_money_and_passwords(corpus) -> None:
    views = [(r, parse_message(r.raw)) for r in corpus if r.scenario in DATA_SCENARIOS]
    quiet = [r for r, v in views if r.label == PHISHING and not v.links and not v.attachments]
    assert len(quiet) >= 100
    legit_words = Counter()
    for r, v in views:
        if r.label == LEGITIMATE:
            text = f"{v.subject} {v.text}".lower()
            legit_words.update(w for w in ("password", "invoice", "account", "urgent") if w in text)
    assert all(legit_words[w] >= 10 for w in ("password", "invoice", "account", "urgent"))


def test_lure_text_indicators_are_read_back_honestly(corpus) -> None:
    fired = Counter()
    for record in corpus:
        if record.scenario in DATA_SCENARIOS:
            found = set(extract_indicators(parse_message(record.raw)))
            assert found == set(record.meta["planted"]), record.id
            fired.update((record.label, i) for i in found & set(LURE_TEXT_INDICATORS))
    for indicator in LURE_TEXT_INDICATORS:
        assert fired[(PHISHING, indicator)] >= 10, indicator
    assert sum(fired[(LEGITIMATE, i)] for i in LURE_TEXT_INDICATORS) >= 5


# ---------------------------------------------------------------------------- indicators
@pytest.mark.parametrize(
    ("indicator", "text"),
    [
        ("off_channel_contact", "To cancel, call our billing desk at +1 (555) 201-3344 today."),
        ("off_channel_contact", "Reply to this email with your mobile number."),
        ("off_channel_contact", "Llame inmediatamente al +34 91 555 1234 para anularla."),
        ("money_offer", "Your email has won the sum of $1,000,000 in our draw."),
        ("money_offer", "He died without a next of kin."),
        ("secrecy_request", "Please keep this matter strictly confidential."),
        ("personal_info_request", "Reply with your full name, address and phone number."),
        ("crypto_extortion", "Send $900 in Bitcoin to the wallet below."),
        ("crypto_extortion", "I recorded you through your webcam."),
    ],
)
def test_lure_text_indicators_fire(indicator: str, text: str) -> None:
    assert indicator in content_indicators("Hello", text)


@pytest.mark.parametrize(
    "text",
    [
        "The meeting moved to room 4.12. See you at 3 PM.",
        "Payment received - thank you. Your account number ends in 1234.",
        "The beneficiary details for the pension plan are in the HR portal.",
        "Our phone system will be upgraded on Friday.",
    ],
)
def test_lure_text_indicators_stay_quiet_on_ordinary_mail(text: str) -> None:
    assert not set(content_indicators("Update", text)) & set(LURE_TEXT_INDICATORS)


# ---------------------------------------------------------------------------- heuristic
def test_tuning_file_is_current_and_used() -> None:
    tuned = load_tuning()
    assert tuned is not None and is_current(tuned)
    assert tuned["generator_version"] == GENERATOR_VERSION
    assert tuned["tuned_on"] == "synthetic dev split"
    weights = tuned["params"]["weights"]
    assert set(weights) == set(LURE_TEXT_INDICATORS)
    assert all(INDICATOR_WEIGHTS[k] == v for k, v in weights.items())
    assert (
        tuned["params"]["phishing_at"],
        tuned["params"]["legitimate_at"],
    ) == (PHISHING_AT, LEGITIMATE_AT)
    assert set(INDICATOR_WEIGHTS) == set(CATALOGUE) == set(PRIOR_WEIGHTS)


def test_tuning_is_deterministic_and_never_worse_than_the_priors() -> None:
    dev = load_synthetic("dev")[:60]
    first, value = tune(dev)
    again, value_again = tune(dev)
    assert first == again and value == value_again
    from sv_env_phishing_detection.heuristic import HeuristicParams
    from sv_env_phishing_detection.tune_heuristic import _Scorer

    assert value >= _Scorer(dev).reward(HeuristicParams()) - 1e-9


def test_heuristic_flags_a_link_less_advance_fee_lure() -> None:
    raw = (
        "From: Mr Daniel Okafor <d.okafor77@gmail.com>\nTo: you@example.org\n"
        "Subject: Confidential proposal\nContent-Type: text/plain; charset=utf-8\n\n"
        "I am the attorney to a late client who left a deposit of $12,500,000 with no next of "
        "kin. Please keep this matter strictly confidential and reply with your full name, "
        "address and phone number.\n"
    )
    answer = heuristic_answer(parse_message(raw))
    assert answer["label"] == PHISHING
    assert set(answer["evidence"]) >= {"money_offer", "secrecy_request", "personal_info_request"}


# ---------------------------------------------------------------------------- sources
def test_csv_source_takes_the_environment_column_options(tmp_path) -> None:
    path = tmp_path / "mail.csv"
    path.write_text(
        "body,kind,title,who\n"
        "Please verify your password now,bad,Alert,x@evil.example\n"
        "Lunch on Friday?,good,Lunch,amy@example.org\n"
        "Spam offer,junk,Deal,z@ads.example\n",
        encoding="utf-8",
    )
    source = data_adapter().sources["csv"]
    mapping = "bad=Phishing,good=Legitimate,junk=skip"
    options = {
        "text_col": "body",
        "label_col": "kind",
        "subject_col": "title",
        "sender_col": "who",
        "label_map": mapping,
    }
    data = source(SourceRequest(path=str(path), options=options))
    assert [r.label for r in data.rows] == [PHISHING, LEGITIMATE]
    assert "Alert" in data.rows[0].raw and "x@evil.example" in data.rows[0].raw
    legacy = {"text_column": "body", "label_column": "kind", "label_map": mapping}
    old = source(SourceRequest(path=str(path), options=legacy))
    assert [r.label for r in old.rows] == [PHISHING, LEGITIMATE]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"text_col": "body", "colour": "red"}, r"unknown option\(s\) for csv: colour"),
        ({"text_col": "body", "label_col": "kind", "label_map": "bad"}, r"option label_map: "),
        ({"text_col": "nope", "label_col": "kind"}, r"missing required column"),
    ],
)
def test_csv_option_errors_are_one_line(tmp_path, options, message) -> None:
    path = tmp_path / "mail.csv"
    path.write_text("body,kind\nhello,good\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        data_adapter().sources["csv"](SourceRequest(path=str(path), options=options))
    assert "\n" not in str(info.value)


def test_enron_spam_is_counted_not_silently_dropped(tmp_path, caplog) -> None:
    path = tmp_path / "enron.csv"
    path.write_text(
        'label,email\nham,"Subject: lunch\nsee you at noon"\n'
        'spam,"Subject: cheap meds\nbuy now"\nspam,"Subject: offer\nlimited"\n',
        encoding="utf-8",
    )
    assert excluded_rows("enron", str(path)) == {"enron_spam": 2}
    with caplog.at_level("WARNING"):
        env = load_environment(source="enron", path=str(path))
    assert env.sv_dataset_info["excluded"] == {"enron_spam": 2}
    assert env.sv_dataset_info["n"] == 1
    assert "2 Enron spam" in caplog.text
    data = data_adapter().sources["enron"](SourceRequest(path=str(path)))
    assert data.notes["excluded"] == {"enron_spam": 2}


def test_tuning_json_is_small_and_valid() -> None:
    from importlib import resources

    text = (
        resources.files("sv_env_phishing_detection")
        .joinpath("data", "heuristic_tuning.json")
        .read_text()
    )
    assert len(text) < 2000 and json.loads(text)["dev_hash"]
