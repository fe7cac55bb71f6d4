"""The real Nazario / Enron samples: loaders, rendering, and a small format-probe run."""

from __future__ import annotations

import json

import pytest

from sv_env_phishing_detection.format_probe import (
    FEATURE_NAMES,
    main,
    normalized_rendering,
    raw_rendering,
    run_format_probe,
)
from sv_env_phishing_detection.loaders import load_enron_csv, load_nazario_csv
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.normalize import normalize_text
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING

pytestmark = pytest.mark.realdata


@pytest.fixture
def emails(realdata):
    return realdata / "E4_phishing" / "emails"


def test_nazario_sample(emails):
    records = load_nazario_csv(emails / "nazario_phishing_sample250.csv")
    assert len(records) == 125 and {r.label for r in records} == {PHISHING}
    assert len({r.id for r in records}) == len(records)
    views = [parse_message(r.raw) for r in records]
    assert sum(bool(v.from_address) for v in views) >= 100
    assert sum(bool(v.links) for v in views) >= 10
    assert all(v.text.strip() for v in views)


def test_enron_sample_keeps_ham_only(emails):
    records = load_enron_csv(emails / "enron_spam_ham_600.csv")
    assert len(records) == 154 and {r.label for r in records} == {LEGITIMATE}
    views = [parse_message(r.raw) for r in records]
    assert all(v.subject or v.text for v in views)
    assert sum(bool(v.links) for v in views) >= 5  # tokenised URLs were re-joined
    text = normalize_text(views[0].text)
    assert "enron's" in text and "05/08/2000" in text and " ," not in text


def test_normalised_renderings_share_one_format(emails):
    nazario = load_nazario_csv(emails / "nazario_phishing_sample250.csv", limit=20)
    enron = load_enron_csv(emails / "enron_spam_ham_600.csv", limit=20)
    for record in nazario + enron:
        after = normalized_rendering(record)
        assert after == after.lower() and "\n" not in after and "  " not in after
        assert after.startswith("subject: ")
    assert raw_rendering(nazario[0]).startswith("From: ")


def test_small_format_probe_separates_less_after_normalisation(emails):
    nazario = load_nazario_csv(emails / "nazario_phishing_sample250.csv", limit=40)
    enron = load_enron_csv(emails / "enron_spam_ham_600.csv", limit=40)
    results = run_format_probe(nazario, enron, folds=3, n_boot=100)
    before, after = results["before"], results["after"]
    assert before.auc > 0.95 and after.auc < before.auc
    assert after.feature_auc["upper_share"] == after.feature_auc["has_date"] == 0.5
    assert set(after.feature_auc) == set(FEATURE_NAMES)
    assert before.auc_ci[0] <= before.auc <= before.auc_ci[1]


def test_cli_prints_one_json_line(emails, capsys):
    nazario, enron = emails / "nazario_phishing_sample250.csv", emails / "enron_spam_ham_600.csv"
    assert main(["--nazario", str(nazario), "--enron", str(enron), "--bootstrap", "50"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    scores = json.loads(last)
    assert set(scores) == {"before", "after"} and scores["after"]["n"] == 125 + 154


def test_cli_bad_path_is_a_clear_error(tmp_path, capsys):
    assert main(["--nazario", str(tmp_path / "x.csv"), "--enron", str(tmp_path / "y.csv")]) == 2
    assert "x.csv: file not found" in capsys.readouterr().err
