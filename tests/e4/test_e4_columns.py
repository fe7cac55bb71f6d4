"""csv/jsonl column options, label_map, and the split default for external files."""

from __future__ import annotations

import json
import logging

import pytest

from sv_env_phishing_detection import load_environment
from sv_env_phishing_detection.loaders import EmailDatasetError, parse_label_map
from sv_env_phishing_detection.sources import SourceError

ROWS = [
    {"msg": "Verify your account now at http://x.example", "kind": "spam", "subj": "Urgent",
     "from": "a@x.example"},
    {"msg": "Lunch at noon?", "kind": "ham", "subj": "Re: lunch", "from": "b@y.example"},
    {"msg": "Team offsite agenda attached", "kind": "HAM", "subj": "Offsite",
     "from": "c@y.example"},
]  # fmt: skip
SPAM_MAP = "spam=Phishing, ham=Legitimate"


def write_csv(tmp_path, rows=ROWS):
    path = tmp_path / "mail.csv"
    header = list(rows[0])
    lines = [",".join(header)] + [",".join(f'"{r[c]}"' for c in header) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_jsonl(tmp_path, rows=ROWS):
    path = tmp_path / "mail.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_parse_label_map_accepts_string_and_mapping():
    assert parse_label_map(SPAM_MAP) == {"spam": "Phishing", "ham": "Legitimate"}
    assert parse_label_map({"1": "phishing", "0": "skip"}) == {"1": "Phishing", "0": None}
    assert parse_label_map(None) is None
    with pytest.raises(EmailDatasetError, match=r"^label_map: 'spam' -> 'Spam': expected"):
        parse_label_map({"spam": "Spam"})
    with pytest.raises(EmailDatasetError, match=r"^label_map: 'spam' is not raw=Label$"):
        parse_label_map("spam")


@pytest.mark.parametrize("writer,source", [(write_csv, "csv"), (write_jsonl, "jsonl")])
def test_column_and_label_mapping(tmp_path, writer, source):
    path = writer(tmp_path)
    env = load_environment(source=source, path=str(path), text_col="msg", label_col="kind",
                           subject_col="subj", sender_col="from", label_map=SPAM_MAP)  # fmt: skip
    rows = list(env.eval_dataset)
    assert [r["answer"] for r in rows] == ["Phishing", "Legitimate", "Legitimate"]
    shown = rows[0]["prompt"][-1]["content"]
    assert "Subject: urgent" in shown and "a@x.example" in shown
    assert env.sv_dataset_info["split"] == "all" and env.sv_dataset_info["n"] == 3


@pytest.mark.parametrize("writer,source", [(write_csv, "csv"), (write_jsonl, "jsonl")])
def test_missing_column_names_file_and_column(tmp_path, writer, source):
    path = writer(tmp_path)
    with pytest.raises(EmailDatasetError, match=r"mail\.\w+: line \d: missing .*\['body'\]"):
        load_environment(source=source, path=str(path), text_col="body", label_col="kind",
                         label_map=SPAM_MAP)  # fmt: skip


@pytest.mark.parametrize("writer,source", [(write_csv, "csv"), (write_jsonl, "jsonl")])
def test_unmapped_label_names_file_line_and_label(tmp_path, writer, source):
    path = writer(tmp_path)
    with pytest.raises(
        EmailDatasetError,
        match=r"mail\.\w+: line \d: column 'kind': unknown label 'ham'.*label_map=",
    ):
        load_environment(source=source, path=str(path), text_col="msg", label_col="kind",
                         label_map="spam=Phishing")  # fmt: skip


def test_column_options_only_for_table_sources(tmp_path):
    with pytest.raises(SourceError, match=r"^subject_col= applies to csv and jsonl"):
        load_environment(source="nazario", path=str(tmp_path), subject_col="subj")


def test_explicit_test_split_on_a_file_is_logged(tmp_path, caplog):
    path = write_csv(tmp_path)
    kwargs = {"source": "csv", "path": str(path), "text_col": "msg", "label_col": "kind",
              "label_map": SPAM_MAP}  # fmt: skip
    with caplog.at_level(logging.WARNING):
        load_environment(**kwargs)
    assert not caplog.records
    with caplog.at_level(logging.WARNING):
        env = load_environment(split="test", **kwargs)
    (record,) = caplog.records
    assert "split=test uses all 3 rows" in record.getMessage() and str(path) in record.getMessage()
    assert env.sv_dataset_info["n"] == 3


def test_synthetic_default_split_is_test():
    assert load_environment(max_examples=2).sv_dataset_info["split"] == "test"
