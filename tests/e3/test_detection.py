"""E3 detection task: answer parsing, reward, metrics, loaders, env and the scanner baseline."""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import FrozenInstanceError

import pytest
from rich.console import Console

from sv_env_code_vulnerability.detection import (
    COMPONENTS,
    EPISODE_METRICS,
    DetectionWeights,
    build_detection_env,
    detect_with_scanners,
    detection_components,
    detection_metrics,
    evaluate_detection_baseline,
    gold_answer,
    main,
    parse_detection,
    parse_rendered_code,
    render_detection_prompt,
    scanner_oracle_policy,
    total_reward,
)
from sv_env_code_vulnerability.detection.data import (
    DetectionItem,
    from_repair_items,
    group_pairs,
    language_of,
    load_cvefixes,
    load_sven,
    normalize_cwe,
)
from sv_env_code_vulnerability.generator import RepairItem
from sv_env_code_vulnerability.scanners import semgrep_unavailable_reason

W = DetectionWeights()

SQLI_BEFORE = """    def get_user(self, name):
        cursor = self.db.cursor()
        cursor.execute("SELECT * FROM users WHERE name = '%s'" % name)
        return cursor.fetchone()
"""
SQLI_AFTER = """    def get_user(self, name):
        cursor = self.db.cursor()
        cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
        return cursor.fetchone()
"""
CMD_BEFORE = """def ping(host):
    import os
    return os.system("ping -c 1 " + host)
"""
CMD_AFTER = """def ping(host):
    import subprocess
    return subprocess.run(["ping", "-c", "1", "--", host], check=False).returncode
"""
C_BEFORE = """int copy(char *dst, const char *src) {
    strcpy(dst, src);
    return 0;
}
"""
C_AFTER = """int copy(char *dst, const char *src, size_t n) {
    strncpy(dst, src, n - 1);
    dst[n - 1] = 0;
    return 0;
}
"""


def answer(vulnerable, cwe=None, confidence=0.9) -> str:
    return json.dumps({"vulnerable": vulnerable, "cwe": cwe, "confidence": confidence})


def sven_row(before: str, after: str, vul_type: str, file_name: str, func: str = "f") -> dict:
    return {
        "func_name": func,
        "func_src_before": before,
        "func_src_after": after,
        "vul_type": vul_type,
        "file_name": file_name,
        "commit_link": "github.com/example/project/commit/0123abc",
        "line_changes": {"deleted": [{"line_no": 3}], "added": [{"line_no": 3}]},
        "char_changes": {"deleted": [], "added": []},
    }


def write_jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def sven_dir(tmp_path):
    root = tmp_path / "sven"
    root.mkdir()
    write_jsonl(
        root / "cwe-089.jsonl",
        [sven_row(SQLI_BEFORE, SQLI_AFTER, "cwe-089", "app/db.py", "get_user")],
    )
    write_jsonl(
        root / "cwe-078.jsonl",
        [
            sven_row(CMD_BEFORE, CMD_AFTER, "cwe-078", "tools/net.py", "ping"),
            sven_row(C_BEFORE, C_AFTER, "cwe-078", "src/copy.C"),
        ],
    )
    write_jsonl(
        root / "cwe-787.jsonl",
        [
            sven_row(C_BEFORE, C_AFTER, "cwe-787", "lib/copy.c"),
            sven_row(C_BEFORE, C_AFTER + "\n", "cwe-787", "lib/copy.hpp"),
            sven_row(C_BEFORE, C_AFTER, "cwe-787", "Main.java"),
            sven_row(C_BEFORE, C_BEFORE, "cwe-787", "same.c"),  # identical: skipped
        ],
    )
    return root


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (answer(True, "CWE-89", 0.8), (True, "CWE-89", 0.8)),
        (answer(True, "cwe-089", 1), (True, "CWE-89", 1.0)),
        (answer(True, "CWE-89: SQL Injection", 0.7), (True, "CWE-89", 0.7)),
        (answer(False, None, 0.6), (False, None, 0.6)),
        ('{"vulnerable": false, "confidence": 0.6}', (False, None, 0.6)),
        ("Looks fine.\n```json\n" + answer(False, None, 0.55) + "\n```", (False, None, 0.55)),
        (
            "<think>" + answer(True, "CWE-78") + " no wait</think>" + answer(False),
            (False, None, 0.9),
        ),
        (answer(True, "CWE-89") + "\n" + answer(True, "CWE-89", 0.7), (True, "CWE-89", 0.7)),
    ],
)
def test_parse_valid_answers(text, expected):
    parsed = parse_detection(text)
    assert parsed.ok, parsed.error
    a = parsed.answer
    assert (a.vulnerable, a.cwe, a.confidence) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        None,
        "The code is vulnerable to SQL injection (CWE-89).",
        '{"vulnerable": true, "cwe": "CWE-89", "confidence": "0.9"}',  # confidence as string
        '{"vulnerable": "true", "cwe": "CWE-89", "confidence": 0.9}',  # boolean as string
        '{"vulnerable": 1, "cwe": "CWE-89", "confidence": 0.9}',
        '{"vulnerable": true, "cwe": "CWE-89", "confidence": true}',
        '{"vulnerable": true, "cwe": "CWE-89"}',  # missing confidence
        '{"cwe": "CWE-89", "confidence": 0.9}',  # missing verdict
        '{"vulnerable": true, "cwe": "CWE-89", "confidence": 1.5}',
        '{"vulnerable": true, "cwe": "CWE-89", "confidence": NaN}',
        '{"vulnerable": true, "cwe": "SQL injection", "confidence": 0.9}',
        '{"vulnerable": true, "cwe": 89, "confidence": 0.9}',
        answer(True, "CWE-89") + "\nor maybe\n" + answer(False),  # two answers
        answer(True, "CWE-89") + answer(True, "CWE-78"),  # two CWEs
        '{"answer": {"vulnerable": true, "cwe": "CWE-89", "confidence": 0.9}}',
        "<think>" + answer(True, "CWE-89"),  # unclosed reasoning: no answer
    ],
)
def test_parse_invalid_answers(text):
    parsed = parse_detection(text)
    assert not parsed.ok and parsed.error


def test_parser_never_raises_on_hostile_input():
    for text in ["{" * 50_000, '{"vulnerable": ' * 5000, "\x00" * 100, "[" * 100_000 + "]"]:
        assert not parse_detection(text).ok


# --------------------------------------------------------------------------- reward


def test_components_per_case():
    p = parse_detection
    tp = detection_components(p(answer(True, "CWE-89", 0.9)).answer, True, "CWE-89")
    assert tp == {"decision": 1.0, "cwe": 1.0, "calibration": pytest.approx(0.99),
                  "format": 1.0, "correct": 1.0, "cwe_correct": 1.0, "invalid": 0.0}  # fmt: skip
    wrong_cwe = detection_components(p(answer(True, "CWE-78", 0.9)).answer, True, "CWE-89")
    assert wrong_cwe["decision"] == 1.0 and wrong_cwe["cwe"] == 0.0
    tn = detection_components(p(answer(False, None, 0.8)).answer, False, None)
    assert tn["decision"] == 1.0 and tn["cwe"] == 1.0 and tn["calibration"] == pytest.approx(0.96)
    fp = detection_components(p(answer(True, "CWE-89", 0.8)).answer, False, None)
    assert fp["decision"] == -1.0 and fp["cwe"] == -1.0 and fp["calibration"] == pytest.approx(0.36)
    fn = detection_components(p(answer(False, "CWE-89", 0.8)).answer, True, "CWE-89")
    assert fn["decision"] == -1.0 and fn["cwe"] == -1.0  # a wrong verdict loses the CWE part
    unknown = detection_components(p(answer(True, None, 0.8)).answer, True, None)
    assert unknown["decision"] == 1.0 and unknown["cwe"] == 1.0  # the label names no CWE
    named_on_safe = detection_components(p(answer(False, "CWE-89", 0.8)).answer, False, None)
    assert named_on_safe["decision"] == 1.0 and named_on_safe["cwe"] == 0.0
    invalid = detection_components(None, True, "CWE-89")
    assert invalid["decision"] == -1.0 and invalid["format"] == 0.0 and invalid["invalid"] == 1.0
    assert invalid["cwe"] == -1.0
    assert set(COMPONENTS) <= set(invalid)


def test_invalid_is_strictly_worst():
    invalid = total_reward(detection_components(None, True, "CWE-89"), W)
    for gold in ((True, "CWE-89"), (False, None)):
        for vulnerable in (True, False):
            for conf in (0.0, 0.3, 0.5, 1.0):
                a = parse_detection(answer(vulnerable, "CWE-78", conf)).answer
                assert total_reward(detection_components(a, *gold), W) > invalid


def test_weights_frozen_and_validated():
    with pytest.raises(FrozenInstanceError):
        W.cwe = 1.0  # type: ignore[misc]
    assert DetectionWeights.from_mapping({"cwe": 0.5}).cwe == 0.5
    for bad in ({"tests": 1.0}, {"cwe": -0.1}, {"format": float("nan")}, {"decision": "1"}):
        with pytest.raises(ValueError):
            DetectionWeights.from_mapping(bad)


def balanced_set(n_pairs: int = 40) -> list[DetectionItem]:
    rng = random.Random(0)
    cwes = ["CWE-89", "CWE-78", "CWE-787", "CWE-125"]
    items = []
    for k in range(n_pairs):
        pair = {"pair_id": f"p{k}"}
        items += [
            DetectionItem(f"p{k}/v", f"v{k}", "c", True, rng.choice(cwes), "test", pair),
            DetectionItem(f"p{k}/f", f"f{k}", "c", False, None, "test", pair),
        ]
    return items


POLICIES = {
    "honest-oracle": lambda i: answer(i.vulnerable, i.cwe, 0.9),
    "always-vulnerable-right-cwe": lambda i: answer(True, i.cwe or "CWE-89", 1.0),
    "always-vulnerable-calibrated": lambda i: answer(True, i.cwe or "CWE-89", 0.5),
    "always-safe": lambda i: answer(False, None, 0.5),
    "missing-confidence": lambda i: json.dumps({"vulnerable": i.vulnerable, "cwe": i.cwe}),
    "missing-verdict": lambda i: json.dumps({"cwe": i.cwe, "confidence": 0.9}),
    "confidence-string": lambda i: json.dumps(
        {"vulnerable": i.vulnerable, "cwe": i.cwe, "confidence": "0.9"}
    ),
    "two-answers": lambda i: answer(True, i.cwe or "CWE-89") + "\n" + answer(False, None),
    "prose": lambda i: "It is vulnerable." if i.vulnerable else "It is safe.",
}


def mean_reward(policy, items) -> float:
    rewards = []
    for item in items:
        parsed = parse_detection(policy(item))
        rewards.append(
            total_reward(detection_components(parsed.answer, item.vulnerable, item.cwe), W)
        )
    return sum(rewards) / len(rewards)


def test_adversarial_policies_score_below_an_honest_oracle():
    items = balanced_set()
    scores = {name: mean_reward(p, items) for name, p in POLICIES.items()}
    honest = scores.pop("honest-oracle")
    assert honest > 1.3
    for name, score in scores.items():
        assert score < honest - 0.9, (name, score)
    # always "vulnerable" even with every CWE right is worth less than half the oracle
    assert scores["always-vulnerable-right-cwe"] < 0.5 * honest
    # format failures are worse than any valid constant answer
    for bad in ("missing-confidence", "missing-verdict", "confidence-string", "two-answers"):
        assert scores[bad] == pytest.approx(-W.decision - W.cwe)
        assert scores[bad] < scores["always-safe"]


# --------------------------------------------------------------------------- metrics


def row(item: DetectionItem, text: str | None) -> dict:
    parsed = parse_detection(text) if text is not None else None
    return {
        "gold": gold_answer(item),
        "parsed": parsed.answer.model_dump() if parsed and parsed.answer else None,
    }


def test_detection_metrics_by_hand():
    a, b = {"pair_id": "a", "pair_cwe": "CWE-89"}, {"pair_id": "b", "pair_cwe": "CWE-787"}
    items = [
        DetectionItem("a/v", "x", "python", True, "CWE-89", "t", a),
        DetectionItem("a/f", "x", "python", False, None, "t", a),
        DetectionItem("b/v", "y", "c", True, "CWE-787", "t", b),
        DetectionItem("b/f", "y", "c", False, None, "t", b),
    ]
    rows = [
        row(items[0], answer(True, "CWE-89", 1.0)),  # TP, CWE right
        row(items[1], answer(False, None, 1.0)),  # TN
        row(items[2], answer(True, "CWE-125", 0.5)),  # TP, CWE wrong
        row(items[3], "garbage"),  # invalid
    ]
    m = detection_metrics(rows)
    assert m["n"] == 4 and m["n_skipped"] == 0
    assert m["accuracy"] == pytest.approx(0.75)
    assert m["precision"] == 1.0 and m["recall"] == 1.0 and m["f1"] == 1.0
    assert m["invalid_rate"] == pytest.approx(0.25)
    assert m["cwe_accuracy"] == pytest.approx(0.5) and m["n_cwe_scored"] == 2
    assert m["brier"] == pytest.approx((0 + 0 + 0.25) / 3)
    assert m["pair_accuracy"] == pytest.approx(0.5) and m["n_pairs"] == 2
    assert m["decision_score"] == pytest.approx((1 + 1 + 1 - 1) / 4)
    assert set(m["by_language"]) == {"c", "python"}
    assert m["by_language"]["python"]["accuracy"] == 1.0
    assert set(m["by_cwe"]) == {"CWE-89", "CWE-787"}
    assert m["by_cwe"]["CWE-787"]["n"] == 2 and m["by_cwe"]["CWE-787"]["invalid_rate"] == 0.5
    assert len(m["accuracy_ci95"]) == 2
    assert detection_metrics([{"gold": None, "parsed": None}])["n_skipped"] == 1


# --------------------------------------------------------------------------- loaders


def test_normalize_cwe_and_language():
    assert normalize_cwe("cwe-078") == "CWE-78" == normalize_cwe("CWE-78") == normalize_cwe(78)
    assert normalize_cwe(None) is None and normalize_cwe(" ") is None
    for bad in ("SQLi", "CWE-", True, 7.8):
        with pytest.raises(ValueError):
            normalize_cwe(bad)
    assert [language_of(n) for n in ("a.py", "a.c", "a.h", "a.cc", "a.cpp", "a.C", "a.java")] == [
        "python", "c", "c", "cpp", "cpp", "cpp", "other",
    ]  # fmt: skip


def test_load_sven_directory_and_file(sven_dir):
    items = load_sven(sven_dir)
    pairs = group_pairs(items)
    assert len(pairs) == 6 and len(items) == 12  # the identical pair is skipped
    assert all([p[0].vulnerable, p[1].vulnerable] == [True, False] for p in pairs)
    assert len({i.id for i in items}) == len(items)
    by_file = {p[0].provenance["file_name"]: p for p in pairs}
    vuln, fixed = by_file["app/db.py"]
    assert vuln.code == SQLI_BEFORE and fixed.code == SQLI_AFTER
    assert vuln.language == "python" and vuln.cwe == "CWE-89" and fixed.cwe is None
    assert fixed.pair_cwe == "CWE-89" and fixed.pair_id == vuln.pair_id
    assert vuln.provenance["commit_link"].startswith("github.com/")
    assert vuln.provenance["func_name"] == "get_user" and vuln.source == "sven"
    languages = {name: p[0].language for name, p in by_file.items()}
    assert languages == {
        "app/db.py": "python",
        "tools/net.py": "python",
        "src/copy.C": "cpp",
        "lib/copy.c": "c",
        "lib/copy.hpp": "cpp",
        "Main.java": "other",
    }
    assert {p[0].cwe for p in pairs} == {"CWE-89", "CWE-78", "CWE-787"}
    single = load_sven(sven_dir / "cwe-089.jsonl")
    assert [i.id for i in single] == [vuln.id, fixed.id]
    for item in items:
        assert DetectionItem.from_json(json.loads(json.dumps(item.to_json()))) == item


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"func_src_before": "a", "func_src_after": "b", "vul_type": "cwe-089"}\n{oops\n',
            ":2: invalid JSON",
        ),
        ('{"func_src_before": "a", "vul_type": "cwe-089"}\n', ":1: field 'func_src_after'"),
        ('{"func_src_before": "", "func_src_after": "b"}\n', ":1: field 'func_src_before'"),
        ('{"func_src_before": "a", "func_src_after": "b", "vul_type": "sqli"}\n', "vul_type"),
        ('["not", "an", "object"]\n', ":1: expected a JSON object"),
    ],
)  # fmt: skip
def test_load_sven_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "cwe-089.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_sven(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_load_sven_bad_paths(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        load_sven(tmp_path / "missing")
    with pytest.raises(ValueError, match=r"no \*\.jsonl"):
        load_sven(tmp_path)
    (tmp_path / "x.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_sven(tmp_path / "x.jsonl")
    # vul_type may come from the file name
    write_jsonl(tmp_path / "cwe-022.jsonl", [{"func_src_before": "a", "func_src_after": "b"}])
    assert load_sven(tmp_path / "cwe-022.jsonl")[0].cwe == "CWE-22"


def test_load_cvefixes_csv_and_jsonl(tmp_path):
    csv_path = tmp_path / "methods.csv"
    csv_path.write_text(
        "cve_id,method_name,code_before,code_after,cwe_id,programming_language\n"
        'CVE-2020-0001,ping,"' + CMD_BEFORE.replace('"', '""') + '","'
        + CMD_AFTER.replace('"', '""') + '",CWE-78,Python\n'
        'CVE-2020-0002,copy,"' + C_BEFORE + '","' + C_AFTER + '",NVD-CWE-Other,C\n'
        "CVE-2020-0003,f,int f() { return 1; },int f() { return 2; },"
        "\"['CWE-190', 'CWE-787']\",C++\n"
        "CVE-2020-0004,g,same,same,CWE-20,Go\n",
        encoding="utf-8",
    )  # fmt: skip
    items = load_cvefixes(csv_path)
    pairs = group_pairs(items)
    assert len(pairs) == 3
    (ping_v, ping_f), (copy_v, _), (f_v, _) = pairs
    assert ping_v.code == CMD_BEFORE and ping_f.code == CMD_AFTER and ping_v.language == "python"
    assert ping_v.cwe == "CWE-78" and ping_v.provenance["cve_id"] == "CVE-2020-0001"
    assert copy_v.cwe is None and copy_v.vulnerable and copy_v.language == "c"
    assert f_v.cwe == "CWE-190" and f_v.provenance["cwe_all"] == ["CWE-190", "CWE-787"]
    assert f_v.language == "cpp" and ping_v.provenance["where"] == f"{csv_path}:2"
    first_record_lines = 1 + CMD_BEFORE.count("\n") + CMD_AFTER.count("\n")
    assert copy_v.provenance["where"] == f"{csv_path}:{2 + first_record_lines}"

    jsonl = tmp_path / "methods.jsonl"
    write_jsonl(jsonl, [{"code_before": C_BEFORE, "code_after": C_AFTER, "cwe_id": ["CWE-787"],
                         "programming_language": "Java", "cve_id": "CVE-1"}])  # fmt: skip
    [v, f] = load_cvefixes(jsonl)
    assert v.cwe == "CWE-787" and v.language == "java" and not f.vulnerable


HEADER = "code_before,code_after,cwe_id,programming_language\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("code_before,code_after,cwe_id\na,b,CWE-1\n",
         "missing column(s) ['programming_language']"),
        (HEADER + "a,b,CWE-1,C\n,b,CWE-1,C\n", ":3: field 'code_before'"),
        (HEADER + "a,b,CWE-1,C,extra\n", ":2: more fields"),
        (HEADER + "a,b,SQLi,C\n", ":2: column 'cwe_id'"),
        (HEADER + "a,b,CWE-1,\n", ":2: column 'programming_language'"),
    ],
)  # fmt: skip
def test_load_cvefixes_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_cvefixes(path)
    assert str(path) in str(info.value) and message in str(info.value)
    with pytest.raises(ValueError, match="not found"):
        load_cvefixes(tmp_path / "missing.csv")
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"code_before": "a"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=":1: missing column"):
        load_cvefixes(jsonl)


def make_repair_item(k: int) -> RepairItem:
    return RepairItem(
        id=f"seed{k}", seed_id=f"seed{k}", cwe="CWE-89", cwe_name="SQL Injection",
        module_file="m.py", summary="s", vulnerable=SQLI_BEFORE, secure=SQLI_AFTER,
        reference_diff="", visible_tests="", functional_tests="", security_tests="",
        split="test", provenance={"generator": "g", "licence": "Apache-2.0"},
    )  # fmt: skip


def test_from_repair_items():
    items = from_repair_items([make_repair_item(1), make_repair_item(2)])
    assert [(i.id, i.vulnerable, i.cwe) for i in items[:2]] == [
        ("seed1/vulnerable", True, "CWE-89"),
        ("seed1/fixed", False, None),
    ]
    assert items[0].code == SQLI_BEFORE and items[1].code == SQLI_AFTER
    assert all(i.language == "python" and i.source == "builtin" for i in items)
    assert items[1].pair_cwe == "CWE-89" and items[1].provenance["split"] == "test"


# --------------------------------------------------------------------------- prompt + env


def test_prompt_renders_fenced_code_and_round_trips():
    item = DetectionItem("x/v", "print('```')\nx = 1\n", "python", True, "CWE-94", "t")
    prompt = render_detection_prompt(item)
    assert "````python\nprint('```')\nx = 1\n````" in prompt
    assert '"vulnerable"' in prompt and "CWE" in prompt
    assert parse_rendered_code(prompt) == ("python", "print('```')\nx = 1")
    other = DetectionItem("y/v", "x", "other", True, None, "t")
    assert parse_rendered_code(render_detection_prompt(other)) == ("other", "x")
    assert "C++ code" in render_detection_prompt(DetectionItem("z", "x", "cpp", False, None, "t"))


def reward_funcs(env) -> dict:
    """Our components and episode metrics among the env's rubric functions (verifiers adds
    its own monitor rubric, e.g. num_turns)."""
    rubrics = getattr(env.rubric, "rubrics", [env.rubric])
    ours = {*COMPONENTS, *EPISODE_METRICS}
    return {
        f.__name__: (f, w)
        for r in rubrics
        for f, w in zip(r.funcs, r.weights, strict=True)
        if f.__name__ in ours
    }


def test_build_env_and_score_through_the_rubric(sven_dir):
    items = load_sven(sven_dir)
    env = build_detection_env(items, reward_weights={"cwe": 0.5}, dataset_info={"source": "sven"})
    rows = env.get_eval_dataset()
    assert len(rows) == len(items)
    system, user = rows[0]["prompt"][0], rows[0]["prompt"][-1]
    assert system["role"] == "system" and "JSON" in system["content"]
    assert parse_rendered_code(user["content"]) is not None
    assert "CWE-" not in user["content"].split("```")[0]  # the label is not in the question
    info = rows[0]["info"]
    assert info["id"] == items[0].id and info["code"] == items[0].code
    assert info["vulnerable"] is True and info["cwe"] == items[0].cwe
    assert env.sv_structured_output_default is True
    assert env.sv_reward_config["weights"] == {"decision": 1.0, "cwe": 0.5, "calibration": 0.2,
                                                "format": 0.1}  # fmt: skip
    assert env.sv_answer_schema["required"] == ["vulnerable", "cwe", "confidence"]
    assert env.sv_dataset_info["n"] == len(items) and env.sv_dataset_info["source"] == "sven"
    assert env.sv_dataset_info["content_hash"].startswith("sha256:")
    funcs = reward_funcs(env)
    assert {name: w for name, (_, w) in funcs.items() if w} == env.sv_reward_config["weights"]

    def score(text: str, info: dict) -> float:
        completion = [{"role": "assistant", "content": text}]
        return sum(w * f(completion=completion, info=info) for f, w in funcs.values())

    gold_cwe = info["cwe"]
    assert score(answer(True, gold_cwe, 1.0), info) == pytest.approx(1 + 0.5 + 0.2 + 0.1)
    assert score(answer(True, "CWE-1", 1.0), info) == pytest.approx(1 + 0.2 + 0.1)
    assert score(answer(False, None, 1.0), info) == pytest.approx(-1 - 0.5 + 0.1)
    assert score("no idea", info) == pytest.approx(-1 - 0.5)
    fixed_info = rows[1]["info"]
    assert fixed_info["vulnerable"] is False
    assert score(answer(False, None, 0.5), fixed_info) == pytest.approx(1 + 0.5 + 0.2 * 0.75 + 0.1)
    assert funcs["correct"][0](completion=[{"role": "assistant", "content": answer(True)}],
                               info=info) == 1.0  # fmt: skip
    assert env.sv_metrics([{"gold": rows[0]["answer"], "parsed": None}])["invalid_rate"] == 1.0


def test_build_env_rejects_bad_input():
    with pytest.raises(ValueError, match="no detection items"):
        build_detection_env([])
    item = DetectionItem("same", "x", "python", True, None, "t")
    with pytest.raises(ValueError, match="duplicate"):
        build_detection_env([item, item])
    with pytest.raises(ValueError, match="unknown reward weight"):
        build_detection_env([item], reward_weights={"tests": 1})


def test_load_detection_environment_sources(sven_dir, tmp_path):
    from sv_env_code_vulnerability.detection import load_detection_environment

    env = load_detection_environment(source="sven", path=str(sven_dir), max_examples=4, seed=3)
    rows = env.get_eval_dataset()
    assert len(rows) == 4
    assert rows[0]["info"]["pair_id"] == rows[1]["info"]["pair_id"]  # pairs stay together
    with pytest.raises(ValueError, match="needs path"):
        load_detection_environment(source="sven")
    with pytest.raises(ValueError, match="unknown detection source"):
        load_detection_environment(source="nvd")
    with pytest.raises(ValueError, match="no tools"):
        load_detection_environment(source="sven", path=str(sven_dir), include_tools=True)


# --------------------------------------------------------------------------- scanner baseline


def test_scanner_baseline_on_python():
    vuln = detect_with_scanners(CMD_BEFORE, "python")
    assert vuln["vulnerable"] is True and vuln["confidence"] == 0.8 and vuln["findings"]
    assert vuln["cwe"] == "CWE-78"
    safe = detect_with_scanners("def add(a, b):\n    return a + b\n", "python")
    assert safe["vulnerable"] is False and safe["cwe"] is None and safe["confidence"] == 0.7
    indented = detect_with_scanners(SQLI_BEFORE, "python")  # a method body keeps its indent
    assert not any("could not parse" in e for e in indented["errors"])
    assert parse_detection(json.dumps(vuln)).ok  # extra keys are ignored
    other = detect_with_scanners(CMD_BEFORE, "other")
    assert other["vulnerable"] is False and "no semgrep rules" in other["errors"][0]


@pytest.mark.skipif(semgrep_unavailable_reason() is not None, reason="semgrep not installed")
def test_scanner_baseline_on_c_and_policy():
    found = detect_with_scanners(C_BEFORE, "c")
    assert found["vulnerable"] is True and found["cwe"] == "CWE-120", found
    assert (
        detect_with_scanners("int add(int a, int b) { return a + b; }\n", "c")["vulnerable"]
        is False
    )
    prompt = render_detection_prompt(DetectionItem("c/v", C_BEFORE, "c", True, "CWE-787", "t"))
    reply = json.loads(scanner_oracle_policy(prompt))
    assert reply == {"vulnerable": True, "cwe": "CWE-120", "confidence": 0.8}


def test_evaluate_baseline_and_cli(sven_dir, capsys, tmp_path):
    items = load_sven(sven_dir)
    metrics = evaluate_detection_baseline(items, workers=2)
    assert metrics["n"] == len(items) and metrics["invalid_rate"] == 0.0
    assert metrics["unscanned_languages"] == ["other"]
    for key in ("accuracy", "precision", "recall", "f1", "cwe_accuracy", "brier"):
        assert key in metrics
    out_json = tmp_path / "m.json"
    assert main(["--sven", str(sven_dir / "cwe-089.jsonl"), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "scanner-oracle on sven" in out and "by language" in out and "python" in out
    assert json.loads(out_json.read_text())["sven"]["n"] == 2


def test_cli_user_errors_are_messages_not_tracebacks(tmp_path, capsys):
    assert main(["--sven", str(tmp_path / "missing")]) == 2
    bad = tmp_path / "cwe-001.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert main(["--sven", str(bad)]) == 2
    assert main(["--cvefixes", str(tmp_path / "none.csv")]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err and f"{bad}:1" in err
    with pytest.raises(SystemExit):
        main([])


# --------------------------------------------------------------------------- harness


@pytest.mark.usefixtures("no_api_keys")
def test_harness_runs_detect_with_env_metrics(sven_dir, tmp_path):
    from security_verifiers.evaluation.config import EvalConfig
    from security_verifiers.evaluation.runner import evaluate
    from security_verifiers.serving import PolicyServer, serve_in_thread

    server = PolicyServer(lambda r: scanner_oracle_policy(r.last_user_text()), "probe")
    env_args = {"task": "detect", "source": "sven", "path": str(sven_dir)}
    with serve_in_thread(server) as base_url:
        config = EvalConfig(env="e3", models=[f"probe@{base_url}"], n=None, env_args=env_args,
                            output_root=tmp_path, resume=False, show_progress=False)  # fmt: skip
        with open(os.devnull, "w") as devnull:
            [result] = asyncio.run(evaluate(config, Console(file=devnull)))
    metrics = result.summary["metrics"]
    assert metrics["n"] == 12 and metrics["invalid_rate"] == 0.0
    assert set(metrics["by_language"]) == {"python", "c", "cpp", "other"}
    assert result.summary["n_errors"] == 0


# --------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_sven_sample_loads_and_runs_the_baseline(realdata):
    path = realdata / "E3_code_vulnerability" / "sven" / "val"
    if not path.is_dir():
        pytest.skip(f"SVEN sample not present: {path}")
    items = load_sven(path)
    pairs = group_pairs(items)
    assert len(items) == 2 * len(pairs) and len(pairs) >= 50
    assert len({i.id for i in items}) == len(items)
    assert {i.language for i in items} <= {"python", "c", "cpp", "other"}
    assert all(p[0].vulnerable and not p[1].vulnerable and p[0].cwe for p in pairs)
    assert all(i.cwe.startswith("CWE-") for i in items if i.vulnerable)
    assert all(p[0].code != p[1].code for p in pairs)
    subset = [i for p in group_pairs(items)[::6] for i in p]  # every sixth pair: a quick run
    metrics = evaluate_detection_baseline(subset, workers=4)
    assert metrics["n"] == len(subset) and metrics["invalid_rate"] == 0.0
    assert 0.0 <= metrics["accuracy"] <= 1.0 and 0.0 <= metrics["brier"] <= 1.0
    assert metrics["n_pairs"] == len(subset) // 2
    assert set(metrics["by_language"]) <= {"python", "c", "cpp", "other"}
    assert all(k.startswith("CWE-") for k in metrics["by_cwe"])
    env = build_detection_env(items[:6])
    assert parse_rendered_code(env.get_eval_dataset()[0]["prompt"][-1]["content"]) is not None
