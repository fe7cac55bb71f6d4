"""task=detect payoffs on the shipped data set: no label-independent policy (a constant, or
"always vulnerable" with a CWE guessed from API names) beats the best constant answer, and
the true labels score clearly highest. Also: task=detect loads with its defaults."""

from __future__ import annotations

import itertools
import json
import random
import statistics
from collections.abc import Callable

import pytest

from sv_env_code_vulnerability import load_environment
from sv_env_code_vulnerability.detection import (
    COMPONENTS,
    DetectionWeights,
    detection_components,
    load_detection_items,
    parse_detection,
    total_reward,
)
from sv_env_code_vulnerability.detection.data import DetectionItem, group_pairs
from sv_env_code_vulnerability.probes import detect_probe_suite
from sv_shared.probes import run_probes

W = DetectionWeights()
Policy = Callable[[DetectionItem], str]

# The API-name guesser (kept apart from probes.api_name_cwe on purpose: an independent rule).
API_RULES = (
    ("CWE-78", ("shell=True", "os.system", "os.popen", "subprocess", "Popen")),
    ("CWE-502", ("pickle", "yaml.load", "marshal", "shelve")),
    ("CWE-89", ("sqlite3", "execute(", "cursor")),
    ("CWE-94", ("eval(", "exec(", "literal_eval")),
    ("CWE-611", ("xml", "etree", "XMLParser")),
    ("CWE-601", ("redirect", "next_url", "return_to", "Location")),
    ("CWE-330", ("random", "secrets")),
    ("CWE-327", ("hashlib", "md5", "sha1", "DES", "ECB", "cipher")),
    ("CWE-798", ("password", "secret", "api_key", "API_KEY", "TOKEN")),
    ("CWE-918", ("urlopen", "requests", "urllib", "http://")),
    ("CWE-295", ("ssl", "verify=", "CERT_", "check_hostname")),
    ("CWE-732", ("chmod", "0o6", "0o7", "umask", "mode=")),
    ("CWE-117", ("logging", "logger", "log line", "access-log")),
    ("CWE-1333", ("re.compile", "re.match", "re.fullmatch", "re.search")),
    ("CWE-79", ("html", "<li>", "<p>", "<a ")),
    ("CWE-22", ("open(", "os.path", "Path", "zipfile", "tarfile")),
)


def guess_cwe(code: str) -> str:
    for cwe, names in API_RULES:
        if any(name in code for name in names):
            return cwe
    return "CWE-20"


def answer(vulnerable: bool, cwe: str | None, confidence: float) -> str:
    return json.dumps({"vulnerable": vulnerable, "cwe": cwe, "confidence": confidence})


def reward(text: str, item: DetectionItem, weights: DetectionWeights = W) -> float:
    parts = detection_components(parse_detection(text).answer, item.vulnerable, item.cwe)
    return total_reward(parts, weights)


def mean_reward(policy: Policy, items: list[DetectionItem]) -> float:
    return statistics.fmean(reward(policy(i), i) for i in items)


def old_reward(text: str, item: DetectionItem) -> float:
    """The payoff before issue 48: CWE bonus on true positives only, nothing on a wrong call."""
    a = parse_detection(text).answer
    if a is None:
        return -W.decision
    right = a.vulnerable == item.vulnerable
    hit = item.vulnerable and a.vulnerable and item.cwe and a.cwe == item.cwe
    calibration = 1 - (a.confidence - float(right)) ** 2
    return W.decision * (1 if right else -1) + W.cwe * hit + W.calibration * calibration + W.format


@pytest.fixture(scope="module", params=["test", "all"])
def items(request) -> list[DetectionItem]:
    found = load_detection_items(split=request.param)
    assert found and len(found) % 2 == 0
    return found


def constants(items: list[DetectionItem]) -> dict[str, Policy]:
    """Every constant answer: verdict x CWE (none or a label's) x confidence."""
    cwes = [*sorted({i.cwe for i in items if i.cwe}), None]
    out: dict[str, Policy] = {}
    for vulnerable, cwe, conf in itertools.product((False, True), cwes, (0.0, 0.25, 0.5, 0.75, 1)):
        text = answer(vulnerable, cwe, conf)
        out[f"const-{vulnerable}-{cwe}-{conf}"] = lambda _, t=text: t
    return out


LABEL_INDEPENDENT: dict[str, Policy] = {
    "always-safe": lambda i: answer(False, None, 0.5),
    "always-vulnerable": lambda i: answer(True, None, 0.5),
    "always-vulnerable-api-cwe": lambda i: answer(True, guess_cwe(i.code), 0.5),
    "always-vulnerable-api-cwe-sure": lambda i: answer(True, guess_cwe(i.code), 1.0),
    "always-safe-api-cwe": lambda i: answer(False, guess_cwe(i.code), 0.5),
    "abstain-empty": lambda i: "",
    "abstain-prose": lambda i: "I cannot tell without more context.",
}


def test_labels_are_paired_and_balanced(items):
    pairs = group_pairs(items)
    assert all(len(p) == 2 and {m.vulnerable for m in p} == {True, False} for p in pairs)
    assert sum(i.vulnerable for i in items) * 2 == len(items)


def test_no_label_independent_policy_beats_the_best_constant(items):
    best = max(mean_reward(p, items) for p in constants(items).values())
    scores = {name: mean_reward(p, items) for name, p in LABEL_INDEPENDENT.items()}
    reference = mean_reward(lambda i: answer(i.vulnerable, i.cwe, 1.0), items)
    assert best == pytest.approx(0.25)  # always safe, no CWE, confidence 0.5 (reward docstring)
    assert scores["always-safe"] == pytest.approx(best)
    assert scores["always-vulnerable"] == pytest.approx(0.125)
    assert scores["abstain-empty"] == scores["abstain-prose"] == pytest.approx(-W.decision - W.cwe)
    for name, score in scores.items():
        assert score <= best + 1e-9, (name, score, best)
    assert reference == pytest.approx(sum(W.as_dict().values()))
    assert reference > best + 1.0
    # the guesser is a real CWE classifier on the vulnerable items, so the bound is not vacuous
    vulnerable = [i for i in items if i.vulnerable]
    q = statistics.fmean(guess_cwe(i.code) == i.cwe for i in vulnerable)
    assert q >= 0.5
    assert scores["always-vulnerable-api-cwe"] == pytest.approx(0.25 + W.cwe * (q - 1) / 2)


def test_the_old_payoff_paid_the_api_guess(items):
    """The hole closed here: before, the API guess beat the neutral constant."""
    old = {
        name: statistics.fmean(old_reward(LABEL_INDEPENDENT[name](i), i) for i in items)
        for name in ("always-safe", "always-vulnerable-api-cwe")
    }
    assert old["always-vulnerable-api-cwe"] > old["always-safe"] + 0.05


def test_pair_blind_policies_never_beat_the_constant(items):
    """Same verdict and confidence on both members of a pair, any CWE on each: <= 0.25."""
    rng = random.Random(48)
    pairs = group_pairs(items)
    cwes = [None, "CWE-20", *sorted({i.cwe for i in items if i.cwe})]
    for _ in range(200):
        texts = {}
        for pair in pairs:
            vulnerable, conf = rng.random() < 0.5, rng.choice((0.0, 0.3, 0.5, 0.8, 1.0))
            for member in pair:
                texts[member.id] = answer(vulnerable, rng.choice(cwes), conf)
        assert statistics.fmean(reward(texts[i.id], i) for i in items) <= 0.25 + 1e-9


def test_detect_probe_suite():
    suite = detect_probe_suite()
    assert suite.min_reward == -W.decision - W.cwe and suite.max_reward == pytest.approx(1.55)
    report = run_probes(suite)
    assert report.episodes == len(load_detection_items(split="all")), report.table()
    assert not report.failures, report.table()
    rows = {r.name: r for r in report.rows}
    assert report.reference_mean == pytest.approx(suite.max_reward)
    for name in ("always-vulnerable", "always-vulnerable-api-cwe", "always-safe-api-cwe"):
        assert rows[name].over_baseline is not None and rows[name].over_baseline <= 1e-9
    assert rows["abstain-empty"].share == 0.0


def test_load_detect_with_defaults_and_score_one_example():
    env = load_environment(task="detect")
    rows = env.get_eval_dataset()
    assert len(rows) == len(load_detection_items()) and env.sv_dataset_info["split"] == "test"
    row = rows[0]
    info = row["info"]
    gold = json.loads(row["answer"])
    assert gold["vulnerable"] == info["vulnerable"]
    completion = [{"role": "assistant", "content": answer(info["vulnerable"], info["cwe"], 1.0)}]
    ours = {
        f.__name__: (f, w)
        for r in getattr(env.rubric, "rubrics", [env.rubric])
        for f, w in zip(r.funcs, r.weights, strict=True)
        if f.__name__ in COMPONENTS
    }
    assert set(ours) == set(COMPONENTS)
    total = sum(w * f(completion=completion, info=info) for f, w in ours.values())
    assert total == pytest.approx(sum(W.as_dict().values()))
