"""E4 loaders on tiny local files (CSV, JSON/JSONL through `datasets`, mbox), and their errors."""

from __future__ import annotations

import csv
import json
from email.message import EmailMessage

import pytest

from sv_env_phishing_detection.loaders import (
    EALVARADOB_ID,
    ZEFANG_LIU_ID,
    EmailDatasetError,
    detokenise,
    is_pure_url,
    load_csv,
    load_ealvaradob,
    load_enron_csv,
    load_mbox,
    load_nazario_csv,
    load_pirocheto_urls,
    load_zefang_liu,
    looks_like_html,
    thread_group,
)
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING

pytestmark = pytest.mark.usefixtures("hf_offline")


def write_csv(path, header, rows):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ generic CSV
def test_load_csv_wraps_fields_into_parseable_messages(tmp_path):
    path = write_csv(
        tmp_path / "mail.csv",
        ["body", "kind", "title", "from"],
        [
            ["Verify now\nhttp://paypa1.example/login", "Phishing", "Urgent", "a@b.example"],
            ["Lunch at noon?", "ham", "Re: lunch", ""],
            ["", "ham", "empty body is skipped", ""],
            ["<html><body><p>Hi <a href='http://x.example'>you</a></p></body></html>", "0", "", ""],
        ],
    )  # fmt: skip
    records = load_csv(path, "body", "kind", subject_column="title", sender_column="from")
    assert [r.label for r in records] == [PHISHING, LEGITIMATE, LEGITIMATE]
    first, second, html = records
    view = parse_message(first.raw)
    assert view.subject == "Urgent" and view.from_address == "a@b.example"
    assert view.links[0].href == "http://paypa1.example/login"
    assert first.id == "csv:mail.csv:L2" and first.source == "csv:mail.csv"
    assert first.scenario == "phishing" and first.meta == {"file": "mail.csv", "line": 2}
    assert second.id.endswith(":L4")  # line numbers count the multi-line first row
    assert parse_message(html.raw).links[0].href == "http://x.example"
    assert load_csv(path, "body", "kind", limit=2) == load_csv(path, "body", "kind")[:2]


def test_load_csv_label_map_and_skip(tmp_path):
    path = write_csv(
        tmp_path / "m.csv", ["text", "y"], [["a", "bad"], ["b", "good"], ["c", "spam"]]
    )
    mapping = {"BAD": PHISHING, "good": LEGITIMATE, "spam": None}
    assert [r.label for r in load_csv(path, "text", "y", label_map=mapping)] == [
        PHISHING,
        LEGITIMATE,
    ]


def test_load_csv_errors_name_file_line_and_column(tmp_path):
    path = write_csv(tmp_path / "m.csv", ["text", "label"], [["a", "phishing"], ["b", "maybe"]])
    with pytest.raises(EmailDatasetError, match=r"m.csv: line 3: column 'label': unknown label"):
        load_csv(path, "text", "label")
    with pytest.raises(
        EmailDatasetError, match=r"m.csv: line 1: missing required column\(s\) \['body'\]"
    ):
        load_csv(path, "body", "label")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("text,label\na,1\nb,1,extra\n")
    with pytest.raises(EmailDatasetError, match=r"ragged.csv: line 3: expected 2 columns, got 3"):
        load_csv(ragged, "text", "label")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(EmailDatasetError, match=r"empty.csv: line 1: empty file"):
        load_csv(empty, "text", "label")
    with pytest.raises(EmailDatasetError, match=r"absent.csv: file not found"):
        load_csv(tmp_path / "absent.csv", "text", "label")
    assert issubclass(EmailDatasetError, ValueError)


# ------------------------------------------------------------------------ real-sample layouts
NAZARIO_HEADER = ["sender", "receiver", "date", "subject", "body", "urls", "label"]


def test_load_nazario_csv(tmp_path):
    path = write_csv(
        tmp_path / "nazario.csv",
        NAZARIO_HEADER,
        [
            ['"AppIe ID" <apple@dedetamvanress.com>', "jose@monkey.org", "4/11/2017 13:59",
             "Notify : Account Disable", "Dear jose verify at http://bad.example", "1", "1"],
            ['"E-mail Security Alert" <>', "jose@monkey.org", "Fri, 02 Aug 2019 11:16:35 +0800",
             "You have [9] Incoming messages", "E-mail Sync Failure.", "0", "1"],
        ],
    )  # fmt: skip
    records = load_nazario_csv(path)
    assert [r.label for r in records] == [PHISHING, PHISHING]
    view = parse_message(records[0].raw)
    assert view.from_name == "AppIe ID" and view.from_address == "apple@dedetamvanress.com"
    assert view.header("to") == "jose@monkey.org" and view.subject == "Notify : Account Disable"
    assert records[0].meta["urls"] == "1" and records[0].source == "nazario"
    assert parse_message(records[1].raw).header("date").startswith("Fri, 02 Aug 2019")
    bad = write_csv(tmp_path / "bad.csv", NAZARIO_HEADER[:-1], [["a", "b", "c", "d", "e", "1"]])
    with pytest.raises(
        EmailDatasetError, match=r"bad.csv: line 1: missing required column\(s\) \['label'\]"
    ):
        load_nazario_csv(bad)


def test_load_enron_csv_keeps_ham_only_and_repairs_tokenised_urls(tmp_path):
    path = write_csv(
        tmp_path / "enron.csv",
        ["", "label", "email", "label_num"],
        [
            ["1", "ham", "Subject: re : gas nom\nsee http : / / www . enron . com / gas . "
             "thanks - e - mail me the file hplno 407 . xls", "0"],
            ["2", "spam", "Subject: cheap meds\nbuy now", "1"],
            ["3", "ham", "no subject line here", "0"],
        ],
    )  # fmt: skip
    records = load_enron_csv(path)
    assert [r.id for r in records] == ["enron:L2", "enron:L6"]
    assert {r.label for r in records} == {LEGITIMATE}
    view = parse_message(records[0].raw)
    assert view.subject == "re : gas nom"
    assert [link.href for link in view.links] == ["http://www.enron.com/gas"]
    assert "e-mail me the file hplno 407.xls" in view.text
    assert parse_message(records[1].raw).text == "no subject line here"
    bad = write_csv(tmp_path / "bad.csv", ["label", "email"], [["phish", "x"]])
    with pytest.raises(
        EmailDatasetError, match=r"bad.csv: line 2: column 'label': unknown label 'phish'"
    ):
        load_enron_csv(bad)


@pytest.mark.parametrize(
    ("tokenised", "repaired"),
    [
        ("at www . x . com . next", "at www.x.com . next"),
        ("go to http : / / a . b . org / c / d now", "go to http://a.b.org/c/d now"),
        ("https : / / www . a . com / cb / login . dcl to", "https://www.a.com/cb/login.dcl to"),
        ("http : / / news . bbc . co . uk / ( the site", "http://news.bbc.co.uk/ ( the site"),
        ("www . x . com . to get", "www.x.com . to get"),
        ("see att . xls and e - mail me", "see att.xls and e-mail me"),
        ("www . 1 stup . com", "www . 1 stup . com"),
    ],
)  # fmt: skip
def test_detokenise(tokenised, repaired):
    assert detokenise(tokenised) == repaired


# ---------------------------------------------------------------------------------------- mbox
def _message(subject: str, body: str, charset: str = "utf-8") -> bytes:
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.org>"
    msg["Subject"] = subject
    msg.set_content(body, charset=charset, cte="8bit")
    return msg.as_bytes()


def test_load_mbox_keeps_raw_messages(tmp_path):
    path = tmp_path / "box.mbox"
    path.write_bytes(
        b"From alice@example.org Mon Jan  1 00:00:00 2024\n"
        + _message("Invoice", "Pay now\n")
        + b"\nFrom alice@example.org Mon Jan  1 00:00:01 2024\n"
        + _message("Re: Invoice", "Caf\u00e9 au lait\n", charset="latin-1")
    )
    records = load_mbox(path, PHISHING)
    assert [r.id for r in records] == ["mbox:box.mbox:1", "mbox:box.mbox:2"]
    first, second = (parse_message(r.raw) for r in records)
    assert first.subject == "Invoice" and first.from_address == "alice@example.org"
    assert second.text.strip() == "Café au lait"  # 8-bit latin-1 survives the round trip
    assert records[0].group == records[1].group  # a reply stays with its thread
    assert load_mbox(path, PHISHING, limit=1) == records[:1]


def test_load_mbox_errors(tmp_path):
    not_mbox = tmp_path / "notes.txt"
    not_mbox.write_text("just some text\n")
    with pytest.raises(EmailDatasetError, match=r"notes.txt: no messages found"):
        load_mbox(not_mbox, LEGITIMATE)
    with pytest.raises(EmailDatasetError, match=r"label must be"):
        load_mbox(not_mbox, "Spam")
    with pytest.raises(EmailDatasetError, match=r"file not found"):
        load_mbox(tmp_path / "absent.mbox", PHISHING)


# ------------------------------------------------------------------------- Hub-style tables
def test_zefang_liu_local_csv(tmp_path):
    path = write_csv(
        tmp_path / "Phishing_Email.csv",
        ["", "Email Text", "Email Type"],
        [["0", "re : 6 . 1100 , disc : uniformitarianism", "Safe Email"],
         ["1", "Click here to claim your prize", "Phishing Email"],
         ["2", "", "Safe Email"]],
    )  # fmt: skip
    records = load_zefang_liu(str(path), cache_dir=str(tmp_path / "c"))
    assert [r.label for r in records] == [LEGITIMATE, PHISHING]
    assert records[1].id == "zefang-liu:train:2" and records[1].meta["row"] == 2
    bad = write_csv(tmp_path / "bad.csv", ["Email Text", "Email Type"], [["x", "Spam Email"]])
    with pytest.raises(EmailDatasetError, match=r"bad.csv: row 1: column 'Email Type'"):
        load_zefang_liu(str(bad), cache_dir=str(tmp_path / "c"))
    nocol = write_csv(tmp_path / "nocol.csv", ["text", "Email Type"], [["x", "Safe Email"]])
    with pytest.raises(
        EmailDatasetError, match=r"nocol.csv: missing required column\(s\) \['Email Text'\]"
    ):
        load_zefang_liu(str(nocol), cache_dir=str(tmp_path / "c"))


def test_ealvaradob_local_json_and_jsonl_skip_pure_urls(tmp_path):
    rows = [
        {"text": "Your account is locked, verify now", "label": 1},
        {"text": "https://paypa1-login.example/verify", "label": 1},
        {"text": "Meeting moved to 3pm", "label": 0},
        {"text": "example.org", "label": 0},
    ]
    jsonl = write_jsonl(tmp_path / "texts.jsonl", rows)
    cache = str(tmp_path / "c")
    records = load_ealvaradob(str(jsonl), cache_dir=cache)
    assert [(r.label, parse_message(r.raw).text) for r in records] == [
        (PHISHING, "Your account is locked, verify now"),
        (LEGITIMATE, "Meeting moved to 3pm"),
    ]
    as_json = tmp_path / "combined.json"
    as_json.write_text(json.dumps(rows))
    assert len(load_ealvaradob(str(as_json), include_urls=True, cache_dir=cache)) == 4
    assert len(load_ealvaradob(str(as_json), limit=1, cache_dir=cache)) == 1


def test_pirocheto_urls_local_csv(tmp_path):
    path = write_csv(
        tmp_path / "urls.csv",
        ["url", "length_url", "status"],
        [
            ["http://paypa1.example/x", "23", "phishing"],
            ["https://www.python.org", "22", "legitimate"],
        ],
    )
    assert load_pirocheto_urls(str(path), cache_dir=str(tmp_path / "c")) == [
        ("http://paypa1.example/x", PHISHING),
        ("https://www.python.org", LEGITIMATE),
    ]
    nostatus = write_csv(tmp_path / "nostatus.csv", ["url"], [["http://a.example"]])
    with pytest.raises(
        EmailDatasetError, match=r"nostatus.csv: missing required column\(s\) \['status'\]"
    ):
        load_pirocheto_urls(str(nostatus), cache_dir=str(tmp_path / "c"))


@pytest.mark.parametrize("loader", [load_zefang_liu, load_ealvaradob, load_pirocheto_urls])
def test_hub_ids_offline_give_a_clear_error(loader):
    with pytest.raises(EmailDatasetError, match=r"offline"):
        loader()


def test_hub_ids_are_the_documented_ones():
    assert ZEFANG_LIU_ID == "zefang-liu/phishing-email-dataset"
    assert EALVARADOB_ID == "ealvaradob/phishing-dataset"


# ------------------------------------------------------------------------------------ helpers
def test_helpers():
    assert is_pure_url("https://x.example/a?b=1") and is_pure_url(" www.example.org ")
    assert not is_pure_url("Visit https://x.example today") and not is_pure_url("Thanks.")
    assert looks_like_html("<div>hi</div>") and not looks_like_html("a < b and c > d")
    assert thread_group("s", "Re: FW: Invoice 42", "x") == thread_group("s", "invoice 42", "y")
    assert thread_group("s", "", "body one") != thread_group("s", "", "body two")
