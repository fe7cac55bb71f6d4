"""Raw .eml folders (labels from index.csv, spam left out and kept for controls), the
`eml` / `realdata-eml` sources, and the learned baseline."""

from __future__ import annotations

import json
from email.message import EmailMessage

import pytest

from sv_env_phishing_detection.baselines import baseline_policies
from sv_env_phishing_detection.environment import episode
from sv_env_phishing_detection.learned import decide
from sv_env_phishing_detection.loaders import EmailDatasetError, count_eml_spam, load_eml_dir
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING
from sv_env_phishing_detection.sources import SourceError, excluded_rows, load_records


def _eml(subject: str, body: str, *, spf: str = "pass") -> bytes:
    msg = EmailMessage()
    msg["From"] = "Support <help@accounts-verify.top>"
    msg["To"] = "user@example.org"
    msg["Subject"] = subject
    msg["Authentication-Results"] = f"mx.example.org; spf={spf} smtp.mailfrom=accounts-verify.top"
    msg.set_content(body)
    return bytes(msg)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ham").mkdir()
    (tmp_path / "a.eml").write_bytes(_eml("Verify now", "Confirm your password today.", spf="fail"))
    (tmp_path / "ham" / "b.txt").write_bytes(_eml("Lunch", "See you at noon."))
    (tmp_path / "ham" / "c.txt").write_bytes(_eml("Cheap watches", "Buy now!"))
    (tmp_path / "index.csv").write_text(
        "file,label\na.eml,phishing\nham/b.txt,ham\nham/c.txt,spam\n", encoding="utf-8"
    )
    return tmp_path


def test_index_labels_and_spam_left_out(folder):
    records = load_eml_dir(folder)
    assert [(r.id, r.label) for r in records] == [("eml:a.eml", PHISHING),
                                                  ("eml:ham/b.txt", LEGITIMATE)]  # fmt: skip
    assert count_eml_spam(folder) == 1
    (spam,) = load_eml_dir(folder, spam=True)
    assert spam.label == LEGITIMATE and spam.meta["file"] == "ham/c.txt"
    view = parse_message(records[0].raw)
    assert view.subject == "Verify now" and "spf=fail" in view.headers["authentication-results"]


def test_headers_reach_the_indicators(folder):
    (phish, _) = load_eml_dir(folder)
    assert "spf_fail" in episode(phish, comparable=False)["info"]["indicators"]


def test_folder_without_index_needs_a_label(folder):
    (folder / "index.csv").unlink()
    with pytest.raises(EmailDatasetError, match="give label="):
        load_eml_dir(folder)
    records = load_eml_dir(folder, PHISHING)
    assert len(records) == 3 and {r.label for r in records} == {PHISHING}
    assert load_eml_dir(folder / "a.eml", LEGITIMATE)[0].label == LEGITIMATE


def test_bad_index_rows_name_the_line(folder):
    (folder / "index.csv").write_text("file,label\nmissing.eml,phishing\n", encoding="utf-8")
    with pytest.raises(EmailDatasetError, match=r"index.csv: line 2: column 'file'"):
        load_eml_dir(folder)
    (folder / "index.csv").write_text("file,label\na.eml,maybe\n", encoding="utf-8")
    with pytest.raises(EmailDatasetError, match=r"line 2: column 'label': unknown label"):
        load_eml_dir(folder)
    (folder / "index.csv").write_text("file,label\n../outside.eml,ham\n", encoding="utf-8")
    with pytest.raises(EmailDatasetError, match="is not a file there"):
        load_eml_dir(folder)


def test_eml_source(folder):
    records = load_records("eml", path=str(folder))
    assert len(records) == 2
    assert excluded_rows("eml", str(folder)) == {"spam": 1}
    with pytest.raises(SourceError, match="needs path"):
        load_records("eml")


@pytest.mark.parametrize(
    ("p", "cites", "label"),
    [(0.9, True, PHISHING), (0.55, False, PHISHING), (0.55, True, "Abstain"),
     (0.4, False, "Abstain"), (0.3, True, LEGITIMATE)],
)  # fmt: skip
def test_learned_decision_follows_the_payoffs(p: float, cites: bool, label: str):
    """A false alarm costs 1 (plus the evidence weight when it cites), a miss 2."""
    assert decide(p, cites)[0] == label


def test_learned_baseline_answers_from_the_prompt():
    record = load_records("synthetic", split="test")[0]
    prompt = episode(record, comparable=False)["question"]
    reply = json.loads(baseline_policies()["learned"](prompt, 0))
    assert reply["label"] in (PHISHING, LEGITIMATE, "Abstain")
    fired = set(episode(record, comparable=False)["info"]["indicators"])
    assert set(reply["evidence"]) <= fired
    assert reply["evidence"] == [] or reply["label"] == PHISHING


@pytest.mark.realdata
def test_realdata_eml_source(realdata):
    root = str(realdata / "E4_phishing")
    records = load_records("realdata-eml", path=root)
    assert {r.source for r in records} == {"phishing_pot", "spamassassin"}
    assert sum(r.label == PHISHING for r in records) >= 90
    assert sum(r.label == LEGITIMATE for r in records) >= 90
    assert excluded_rows("realdata-eml", root)["spamassassin_spam"] >= 40
    fired = {i for r in records for i in episode(r, comparable=False)["info"]["indicators"]}
    assert {"spf_fail", "dkim_fail", "dmarc_fail"} <= fired
