"""`sv sim2real`: scores, a tiny fit/eval on real-format files, CLI errors, the real samples."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from security_verifiers.cli import app
from security_verifiers.errors import UserError
from security_verifiers.sim2real import command, scoring
from security_verifiers.sim2real.scoring import f1_ratio, score_set
from sv_env_network_logs import sim2real as e1
from sv_env_phishing_detection import sim2real as e4

RUNNER = CliRunner()
REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"

ZEEK_FIELDS = [
    *("ts", "uid", "id.orig_h", "id.orig_p", "id.resp_h", "id.resp_p", "proto", "service"),
    *("duration", "orig_bytes", "resp_bytes", "conn_state", "local_orig", "local_resp"),
    *("history", "orig_pkts", "orig_ip_bytes", "resp_pkts", "resp_ip_bytes"),
    *("label", "detailedlabel"),
]
ZEEK_ROWS = [
    "1 Ca1 10.0.0.5 50001 192.0.2.10 443 tcp ssl 1.2 900 5000 SF T F ShADFf 9 1300 8 5400 Benign -",
    "2 Ca2 10.0.0.5 50002 192.0.2.11 80 tcp http 0.4 400 2000 SF T F ShADFf 6 700 5 2300 Benign -",
    "3.0 Ca3 10.0.0.6 53001 10.0.0.1 53 udp dns 0.01 40 90 SF T T Dd 1 68 1 118 Benign -",
    "4.0 Ca4 203.0.113.9 40000 10.0.0.5 23 tcp - - - - S0 F T S 1 40 0 0 Malicious Scan",
    "5.0 Ca5 203.0.113.9 40001 10.0.0.5 2323 tcp - - - - S0 F T S 1 40 0 0 Malicious Scan",
    "6.0 Ca6 203.0.113.9 40002 10.0.0.5 22 tcp - 0.001 0 0 REJ F T Sr 1 40 1 40 Malicious Scan",
    "7.0 Ca7 198.51.100.7 41000 10.0.0.5 8080 tcp - - - - S0 F T S 1 40 0 0 Background -",
]
E4_ROWS = [
    ("Your account is locked. Verify your password now at http://secure-login.example/verify", 1),
    ("Urgent: confirm your bank details within 24 hours or lose access", 1),
    ("Your mailbox is full, click here to validate your credentials", 1),
    ("Hi team, the quarterly report draft is attached for review before Friday.", 0),
    ("Lunch on Thursday? The new place near the office has good soup.", 0),
    ("Reminder: the planning meeting moved to room 4 at 10am tomorrow.", 0),
]


def write_zeek(path: Path) -> Path:
    header = ["#separator \\x09", "#fields\t" + "\t".join(ZEEK_FIELDS)]
    body = ["\t".join(row.split(" ")) for row in ZEEK_ROWS]
    path.write_text("\n".join(header + body) + "\n", encoding="utf-8")
    return path


def write_email_csv(path: Path) -> Path:
    lines = ["text,label"] + [f'"{text}",{label}' for text, label in E4_ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tiny(task, n_train: int, n_test: int):
    """The task on a prefix of its synthetic splits (fast), same loaders and classifier."""
    train, test = task.train_test()
    return dataclasses.replace(task, train_test=lambda: (train[:n_train], test[:n_test]))


@pytest.fixture(autouse=True)
def few_resamples(monkeypatch):
    monkeypatch.setattr(scoring, "N_RESAMPLES", 50)


def test_score_set_perfect_and_undefined() -> None:
    s = score_set([1, 1, 0, 0], [0.9, 0.8, 0.1, 0.2], seed=0)
    assert (s["f1"], s["recall"], s["precision"], s["roc_auc"]) == (1.0, 1.0, 1.0, 1.0)
    assert s["recall_ci95"] == [1.0, 1.0] and s["n"] == 4 and s["positives"] == 2
    none = score_set([0, 0], [0.1, 0.2], seed=0)
    assert none["f1"] is None and none["recall"] is None and none["roc_auc"] is None
    assert f1_ratio({"f1": 0.9}, {"f1": 0.45}) == pytest.approx(0.5)
    assert f1_ratio({"f1": 0.0}, {"f1": 0.5}) is None


def test_auc_counts_ties_as_half() -> None:
    y, p = np.array([1, 0, 1, 0], dtype=bool), np.array([0.5, 0.5, 0.9, 0.1])
    assert scoring._auc(y, p) == pytest.approx(0.875)


def test_e1_tiny_fit_eval_on_zeek_file(monkeypatch, tmp_path) -> None:
    task = tiny(command.get_task("e1"), 200, 120)
    monkeypatch.setattr(command, "get_task", lambda env: task)
    real, out = write_zeek(tmp_path / "conn.log.labeled"), tmp_path / "r.json"
    args = ["sim2real", "e1", "--real", str(real), "--format", "zeek", "--quiet", "--out"]
    result = RUNNER.invoke(app, [*args, str(out)])
    assert result.exit_code == 0, result.output
    assert "in-domain (synthetic test)" in result.output and "F1 ratio" in result.output
    report = json.loads(out.read_text())
    comp = report["comparisons"][0]
    assert report["env"] == "e1" and report["n_train"] == 200 and comp["in_domain"]["n"] == 120
    assert comp["real"]["n"] == 6 and comp["real"]["positives"] == 3  # Background excluded
    assert "Background" in comp["notes"][0]
    again = tmp_path / "again.json"
    assert RUNNER.invoke(app, [*args, str(again)]).exit_code == 0
    assert again.read_text() == out.read_text()  # seeded and deterministic


def test_the_task_is_the_specs_hook_keyed_by_the_spec() -> None:
    """`sv sim2real` reaches an environment's task only through its spec (`sim2real` hook)."""
    from security_verifiers.environments import entries_with

    assert [e.key for e in entries_with("sim2real")] == ["e1", "e4"]
    for name, module in (("network-logs", e1), ("e4", e4)):
        task = command.get_task(name)
        assert task == dataclasses.replace(module.TASK, key=task.key)
        assert task.key == command.resolve_env(name).key and module.TASK.key == ""


def test_e1_fields_follow_what_the_source_records() -> None:
    train = e1.train_test()[0]
    assert e1.recorded_fields(train)[:3] == ("proto", "service", "conn_state")
    flows = train[:3]
    model = e1.fit(e1.train_test()[0][:100], 0, ("proto", "duration", "orig_bytes"))
    assert model.matrix(flows).shape == (3, 3)


def test_e4_tiny_fit_eval_on_csv(tmp_path) -> None:
    task = tiny(e4.TASK, 120, 40)
    sets = command.real_sets(task, write_email_csv(tmp_path / "mail.csv"), "csv", tmp_path)
    report = command.run(task, sets, seed=1)
    comp = report["comparisons"][0]
    assert comp["real"]["n"] == 6 and comp["real"]["positives"] == 3
    assert comp["in_domain"]["n"] == 40 and 0.0 <= comp["real"]["roc_auc"] <= 1.0
    assert "realdata" not in command.format_report(report)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["e9"], "unknown environment"),
        (["e2"], "supports e1 and e4"),
        (["e1", "--real", "/nonexistent/conn.log"], "does not exist"),
        (["e4", "--real", ".", "--format", "zeek"], "--format must be one of"),
        (["e1", "--realdata", "/nonexistent/realdata"], "no real data"),
    ],
)
def test_cli_errors(args, needle) -> None:
    result = RUNNER.invoke(app, ["sim2real", *args, "--quiet"])
    assert isinstance(result.exception, UserError), result.output
    assert needle in str(result.exception)


def test_malformed_real_file_is_one_line_error(tmp_path) -> None:
    bad = tmp_path / "bad.log"
    bad.write_text("not a zeek log\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "security_verifiers.cli", "sim2real", "e1", "--real", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "bad.log" in proc.stderr


@pytest.mark.skipif(not REALDATA.is_dir(), reason="../shared/realdata is absent")
@pytest.mark.parametrize("task, sizes", [(e1.TASK, [418, 500]), (e4.TASK, [279, 199])])
def test_realdata_samples_load_and_score(task, sizes) -> None:
    small = tiny(task, 300, 60)
    report = command.run(small, task.default_real(REALDATA), seed=42)
    assert [c["real"]["n"] for c in report["comparisons"]] == sizes
    assert all(c["real"]["f1"] is not None for c in report["comparisons"])


def test_verdict_cannot_tell_where_a_constant_or_a_small_class_would_decide() -> None:
    from security_verifiers.sim2real.scoring import constant_f1, verdict

    in_domain = {"f1": 0.9}

    def real(positives: int, n: int, f1: float) -> dict:
        return {"positives": positives, "n": n, "prevalence": positives / n, "f1": f1,
                "constant_f1": constant_f1(positives, n)}  # fmt: skip

    assert constant_f1(96, 100) == pytest.approx(2 * 0.96 / 1.96)
    assert constant_f1(0, 10) is None
    assert verdict(in_domain, real(100, 200, 0.85)) == ("meets", None)  # constant F1 0.667
    assert verdict(in_domain, real(100, 200, 0.5))[0] == "below"
    outcome, why = verdict(in_domain, real(960, 1000, 0.99))  # a 96%-positive capture
    assert outcome == "cannot tell" and "always-positive" in why
    outcome, why = verdict(in_domain, real(20, 200, 0.9))
    assert outcome == "cannot tell" and "20 rows" in why
    assert verdict({"f1": 0.0}, real(100, 200, 0.5)) == ("n/a", None)


def test_e4_controls_format_auc_and_advertising_spam(tmp_path) -> None:
    """Beside the ratio: how well formatting alone separates the real classes, and how much
    advertising spam (neither class) the model calls phishing."""
    enron = tmp_path / "enron.csv"
    rows = [
        ("ham", f"Subject: meeting {i}\nlet us meet at {i} pm about the budget") for i in range(6)
    ]
    rows += [("spam", f"Subject: sale {i}\nbuy cheap watches now, {i}0% off") for i in range(4)]
    enron.write_text(
        "label,email\n" + "".join(f'{label},"{text}"\n' for label, text in rows), encoding="utf-8"
    )
    from sv_env_phishing_detection.loaders import load_enron_csv

    assert len(load_enron_csv(enron)) == 6 and len(load_enron_csv(enron, spam=True)) == 4
    real = e4.load_real(enron, "enron")
    assert list(real.control_sets) == ["Enron spam flagged as phishing"]
    task = tiny(e4.TASK, 120, 40)
    model = task.fit(task.train_test()[0], 1, None)
    mixed = dataclasses.replace(real, items=real.items + e4.load_real(
        write_email_csv(tmp_path / "mail.csv"), "csv").items)  # fmt: skip
    found = {c["name"]: c for c in e4.controls(mixed, model, 1)}
    spam = found["Enron spam flagged as phishing (n=4)"]
    assert 0.0 <= spam["value"] <= 1.0 and len(spam["ci95"]) == 2
    if sum(r.label == "Phishing" for r in mixed.items) >= 5:
        assert 0.0 <= found["format-only ROC AUC (normalised, 5-fold)"]["value"] <= 1.0
