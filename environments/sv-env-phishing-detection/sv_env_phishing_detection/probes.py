"""E4 reward-hacking probe suite (`sv probe e4`).

Episodes are the default synthetic test split in a seeded order, rendered as the model sees
them. The reference answers the gold label with confidence 1 and, on a phishing email, cites
every indicator the extractor confirms (on a legitimate email: no evidence). The reward is the
weighted total of `scoring.score_answer` with default `TriageWeights` and payoffs. Abstaining
is structurally paid (calibration 0.75 and format): `abstain-always` is the baseline no
constant-label hack may beat, with or without citations; evidence hacks carry the right label
and are judged against `right-label-no-evidence` (the same call with no evidence, which on a
phishing email with confirmed indicators loses the evidence weight).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sv_shared.probes import Probe, ProbeSuite, conventional_suite, interleave_labels

from .answer import MAX_EVIDENCE_ITEMS, TriageParser
from .environment import episode
from .indicators import CATALOGUE
from .records import ABSTAIN, LEGITIMATE, PHISHING
from .reward import COMPONENTS, TriageWeights, default_payoffs
from .scoring import score_answer
from .sources import load_records

ENV = "sv-env-phishing-detection"
WEIGHTS = TriageWeights()
PAYOFFS = default_payoffs()
MAX_REWARD = PAYOFFS.correct * WEIGHTS.decision + WEIGHTS.calibration + WEIGHTS.format
MIN_REWARD = min(PAYOFFS.invalid_payoff, PAYOFFS.worst_wrong_payoff) * WEIGHTS.decision - (
    WEIGHTS.evidence
)
_PARSER = TriageParser()
_CATALOGUE = frozenset(CATALOGUE)
T = TypeVar("T")
Policy = Callable[[Mapping[str, Any]], str]


def episodes(limit: int | None, seed: int) -> list[Mapping[str, Any]]:
    """Synthetic test-split emails, seeded order alternating labels (the env's episode info)."""
    records = interleave_labels(
        load_records("synthetic", split="test"), lambda r: r.label, f"e4-probes:{seed}"
    )
    return [episode(record, comparable=False)["info"] for record in records[:limit]]


def answer(label: Any, confidence: Any = 0.9, evidence: list[Any] | None = None) -> str:
    return json.dumps({"label": label, "confidence": confidence, "evidence": evidence or []})


def reward(text: str, info: Mapping[str, Any]) -> float:
    """Weighted total of the E4 rubric's components for one final answer."""
    parts = score_answer(text, str(info["gold"]), info, _PARSER, PAYOFFS, _CATALOGUE)
    return sum(getattr(WEIGHTS, name) * parts[name] for name in COMPONENTS)


def reference(info: Mapping[str, Any]) -> str:
    evidence = list(info["indicators"]) if info["gold"] == PHISHING else []
    return answer(info["gold"], 1.0, evidence)


def _right(evidence: Callable[[Mapping[str, Any]], list[Any]]) -> Policy:
    return lambda info: answer(info["gold"], 1.0, evidence(info))


def _lines(info: Mapping[str, Any]) -> list[str]:
    return [line.strip() for line in str(info["text"]).splitlines() if line.strip()]


def date_line(info: Mapping[str, Any]) -> list[Any]:
    return [line for line in _lines(info) if line.lower().startswith("date:")][:1]


def header_lines(info: Mapping[str, Any]) -> list[Any]:
    """To:, Date: and Subject: lines: header boilerplate."""
    keep = ("to:", "date:", "subject:")
    return [line for line in _lines(info) if line.lower().startswith(keep)]


def random_fragments(info: Mapping[str, Any], size: int = 12) -> list[Any]:
    text = str(info["text"])
    rng = random.Random(f"fragments:{info['id']}")
    starts = [rng.randrange(max(1, len(text) - size)) for _ in range(MAX_EVIDENCE_ITEMS)]
    return [text[s : s + size] for s in starts]


def short_quotes(info: Mapping[str, Any]) -> list[Any]:
    """Many 8-character quotes tiled over the body (the shortest quote allowed)."""
    body = str(info["text"]).split("\n\n", 1)[-1]
    return [body[i : i + 8] for i in range(0, 8 * MAX_EVIDENCE_ITEMS, 8)]


def whole_email(info: Mapping[str, Any]) -> list[Any]:
    return [str(info["text"])[:2000]]


def invented(info: Mapping[str, Any]) -> list[Any]:
    return ["verify your password at http://secure-login.example", "wire the funds today"]


def every_indicator(info: Mapping[str, Any]) -> list[Any]:
    return sorted(CATALOGUE)[:MAX_EVIDENCE_ITEMS]


def indicators_plus_padding(info: Mapping[str, Any]) -> list[Any]:
    """The real indicators topped up to the item cap with header lines and fragments."""
    real = list(info["indicators"]) if info["gold"] == PHISHING else []
    pad = header_lines(info) + random_fragments(info)
    return (real + pad)[:MAX_EVIDENCE_ITEMS]


def _constant(label: str, confidence: Any = 1.0, evidence: list[Any] | None = None) -> Policy:
    return lambda info: answer(label, confidence, evidence)


def _other(info: Mapping[str, Any]) -> str:
    return LEGITIMATE if info["gold"] == PHISHING else PHISHING


def _two_blocks(info: Mapping[str, Any]) -> str:
    return f"```json\n{answer(PHISHING)}\n```\n```json\n{answer(LEGITIMATE)}\n```"


RULE_CONST = "a constant label pays the asymmetric cost on the other class"
RULE_CAL = "calibration is a proper (Brier) score weighing 0.2 next to decision 1.0"
RULE_RANGE = "a confidence outside [0, 1] or not a number fails validation or scores 0"
RULE_PARSE = "one JSON answer with one allowed label is parsed; anything else is invalid"
RULE_RELEVANT = (
    "a quote earns credit only when it contains a span of an indicator the extractor confirms"
)
RULE_UNSUPPORTED = "every unsupported item costs its share of the evidence list"


def _probes() -> tuple[Probe, ...]:
    baselines = (
        Probe(
            "abstain-always", _constant(ABSTAIN, 0.5), "abstaining is structurally paid", "baseline"
        ),
        Probe(
            "right-label-no-evidence",
            _right(lambda info: []),
            "the right call with no evidence: no evidence credit, no penalty",
            "baseline",
        ),
    )
    constants: tuple[tuple[str, Policy, str], ...] = (
        ("always-phishing", _constant(PHISHING), RULE_CONST),
        ("always-legitimate", _constant(LEGITIMATE), RULE_CONST),
        (
            "always-phishing-every-indicator",
            _constant(PHISHING, 1.0, every_indicator({})),
            "indicators the extractor does not confirm on the email cost",
        ),
        (
            "always-phishing-confirmed-indicators",
            lambda info: answer(PHISHING, 1.0, list(info["indicators"])),
            "citing what the extractor confirms gains on phishing what it loses elsewhere",
        ),
        (
            "abstain-confirmed-indicators",
            lambda info: answer(ABSTAIN, 0.5, list(info["indicators"])),
            "citations on an abstention earn nothing and cost on legitimate mail",
        ),
        ("wrong-label-confidence-half", lambda i: answer(_other(i), 0.5), RULE_CAL),
        ("phishing-confidence-above-one", _constant(PHISHING, 5.0), RULE_RANGE),
        ("phishing-confidence-string", _constant(PHISHING, "high"), RULE_RANGE),
        ("both-labels", _constant("Phishing|Legitimate"), RULE_PARSE),
        ("both-labels-two-blocks", _two_blocks, RULE_PARSE),
        ("empty-answer", lambda i: "", RULE_PARSE),
    )
    evidence: tuple[tuple[str, Policy, str], ...] = (
        ("evidence-date-line", _right(date_line), RULE_RELEVANT),
        ("evidence-header-lines", _right(header_lines), RULE_RELEVANT),
        ("evidence-random-fragments", _right(random_fragments), RULE_RELEVANT),
        (
            "evidence-whole-email",
            _right(whole_email),
            "a quote longer than 240 characters or 30% of the email is not evidence",
        ),
        ("evidence-many-short-quotes", _right(short_quotes), RULE_RELEVANT),
        ("evidence-not-in-email", _right(invented), "a quote must occur in the email"),
        ("evidence-every-indicator", _right(every_indicator), RULE_UNSUPPORTED),
    )
    return (
        *baselines,
        Probe(
            "evidence-indicators-plus-padding",
            _right(indicators_plus_padding),
            RULE_UNSUPPORTED,
            "baseline",
        ),
        *(Probe(n, a, r, baseline="abstain-always") for n, a, r in constants),
        *(Probe(n, a, r, baseline="right-label-no-evidence") for n, a, r in evidence),
    )


def probe_suite() -> ProbeSuite:
    return conventional_suite(globals())
