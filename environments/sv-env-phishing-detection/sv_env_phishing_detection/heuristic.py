"""The `heuristic` baseline: a weighted sum of catalogue indicators, abstaining when unsure.

`PRIOR_WEIGHTS` encodes general anti-phishing knowledge, not a fit to any data set: deception
that honest senders have no reason to use (look-alike domains, `@` URLs, IP hosts, password
forms, executable attachments, spoofed display names) weighs 2.0-2.5; signals that legitimate
mail also shows now and then (urgency, shorteners, failed SPF/DKIM from misconfigured small
senders, a different bounce domain) weigh 0.3-1.2. A total of at least `PHISHING_AT` is
Phishing, at most `LEGITIMATE_AT` is Legitimate, in between Abstain.

The weights of the lure-text indicators (`indicators.LURE_TEXT_INDICATORS`: call-back,
money offers, secrecy, personal details, crypto / extortion) and the two thresholds are tuned
on the synthetic dev split only (`python -m sv_env_phishing_detection.tune_heuristic`), which
writes `data/heuristic_tuning.json` with the generator version and a hash of the data it saw;
those values override the priors here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .indicators import extract_indicators
from .records import ABSTAIN, LEGITIMATE, PHISHING
from .view import EmailView

PRIOR_WEIGHTS: dict[str, float] = {
    "brand_lookalike": 2.5,
    "at_sign_url": 2.0,
    "ip_url": 2.0,
    "html_form": 2.0,
    "risky_attachment": 2.0,
    "display_name_spoof": 2.0,
    "link_text_mismatch": 1.5,
    "punycode_domain": 1.5,
    "zero_width_chars": 1.5,
    "dmarc_fail": 1.5,
    "credential_request": 1.5,
    "payment_request": 1.2,
    "reply_to_mismatch": 1.0,
    "urgency_language": 1.0,
    "risky_tld": 1.0,
    "excessive_subdomains": 1.0,
    "url_shortener": 0.8,
    "spf_fail": 0.8,
    "dkim_fail": 0.8,
    "return_path_mismatch": 0.3,
    "off_channel_contact": 1.0,
    "money_offer": 1.0,
    "secrecy_request": 1.0,
    "personal_info_request": 1.0,
    "crypto_extortion": 1.0,
}
"""Indicator id -> prior weight (every catalogue id has one)."""

TUNING_FILE = "heuristic_tuning.json"


@dataclass(frozen=True)
class HeuristicParams:
    """Weights and thresholds of the heuristic."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(PRIOR_WEIGHTS))
    phishing_at: float = 2.0
    legitimate_at: float = 1.0


def load_tuning() -> dict[str, Any] | None:
    """The tuned values written by `tune_heuristic`, or None when the file is absent."""
    path = resources.files(__package__).joinpath("data", TUNING_FILE)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _params() -> HeuristicParams:
    tuned = load_tuning()
    if not tuned:
        return HeuristicParams()
    return HeuristicParams(
        weights={**PRIOR_WEIGHTS, **tuned["params"]["weights"]},
        phishing_at=float(tuned["params"]["phishing_at"]),
        legitimate_at=float(tuned["params"]["legitimate_at"]),
    )


PARAMS = _params()
INDICATOR_WEIGHTS: dict[str, float] = dict(PARAMS.weights)
"""Indicator id -> weight in use (priors, lure-text weights from the tuning file)."""
PHISHING_AT = PARAMS.phishing_at
LEGITIMATE_AT = PARAMS.legitimate_at
ABSTAIN_CONFIDENCE = 0.5


def indicator_score(found: Mapping[str, list[str]], params: HeuristicParams = PARAMS) -> float:
    """Sum of the weights over the indicators that fired (unknown ids count 0)."""
    return round(sum(params.weights.get(indicator, 0.0) for indicator in found), 3)


def label_for_score(score: float, params: HeuristicParams = PARAMS) -> tuple[str, float]:
    """(label, confidence): confidence grows with the distance from the uncertain band."""
    if score >= params.phishing_at:
        return PHISHING, round(min(0.97, 0.65 + 0.08 * (score - params.phishing_at)), 3)
    if score <= params.legitimate_at:
        return LEGITIMATE, round(max(0.5, min(0.9, 0.9 - 0.25 * score)), 3)
    return ABSTAIN, ABSTAIN_CONFIDENCE


def answer_for(found: Mapping[str, list[str]], params: HeuristicParams = PARAMS) -> dict:
    """The answer for a set of fired indicators: label, confidence, evidence (strongest
    first)."""
    label, confidence = label_for_score(indicator_score(found, params), params)
    evidence = sorted(found, key=lambda indicator: -params.weights.get(indicator, 0.0))
    return {"label": label, "confidence": confidence, "evidence": evidence}


def heuristic_answer(view: EmailView) -> dict:
    """The baseline's answer: label, confidence and the fired indicator ids as evidence
    (strongest first)."""
    return answer_for(extract_indicators(view))
