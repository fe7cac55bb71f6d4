"""Pure, decision-theoretic reward components for classification environments.

Contract
--------
The model answers with a label from the task's label set, or with the abstain label, plus
a confidence ``c`` = its probability that the answered label is correct. The reward is a
weighted sum (:func:`combine`, :class:`RewardWeights`) of four components:

``decision`` (:func:`reward_asymmetric_cost`)
    ``Payoffs.correct`` for a correct label, ``Payoffs.abstain`` for abstaining,
    ``-cost_matrix[gold][predicted]`` for a wrong label (a missing entry costs
    ``DEFAULT_COST = 1``), and ``Payoffs.invalid`` for an unparseable answer. By default
    ``invalid`` is the worst wrong-answer payoff, so a format failure is never cheaper than
    any wrong answer. Defaults: a missed attack (gold ``Malicious``, answer ``Benign``) costs
    2, a false alarm costs 1.

``calibration`` (:func:`reward_calibration`)
    ``1 - (c - 1[correct])**2`` (one minus the Brier score), a strictly proper scoring rule:
    a model whose probability of being right is ``p`` maximises its expected score only by
    reporting ``c = p``. An abstention scores ``abstain_score = 0.75``; an invalid answer 0.

``format``
    1 if the answer parsed and validated, else 0.

``accuracy``
    1 iff the answered label equals the gold label (weight 0 by default; for ablations).

Abstention threshold
--------------------
In a binary task, answering label ``y`` when the probability that ``y`` is right is ``p``
has expected decision payoff ``p * correct - (1 - p) * lam`` with
``lam = cost_matrix[other][y]``; abstaining pays ``abstain``. Answering is strictly better
iff ``p > p* = (abstain + lam) / (correct + lam)`` (:func:`abstention_threshold`). With the
defaults, answering ``Benign`` needs ``p > 2/3`` and answering ``Malicious`` needs
``p > 1/2``: the asymmetric cost makes the model abstain rather than wave through a
doubtful case.

The honest expected calibration score is ``1 - p(1 - p)``, which equals the abstention
score 0.75 exactly at ``p = 1/2`` and exceeds it by ``(p - 1/2)**2`` elsewhere. Hence the
calibration component leaves the threshold of the *total* reward unchanged where
``p* = 1/2`` and elsewhere shifts the answer-vs-abstain payoff gap at ``p*`` by at most
``w_cal * (p* - 1/2)**2`` (about ``0.2 / 36`` with the defaults for ``Benign``, i.e. the
threshold moves down by about 0.002). The format component is identical for both choices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Self, TypeGuard, TypeVar

from sv_shared.env_args import expect_object

if TYPE_CHECKING:
    from sv_shared.parsers import ParseResult

__all__ = [
    "COMPONENTS",
    "DEFAULT_COST",
    "Payoffs",
    "RewardWeights",
    "abstention_threshold",
    "check_weights",
    "classification_reward_components",
    "combine",
    "reward_accuracy",
    "reward_asymmetric_cost",
    "reward_calibration",
    "reward_format",
]

DEFAULT_COST = 1.0
"""Cost of a wrong answer whose (gold, predicted) pair is not in the cost matrix."""

COMPONENTS = ("decision", "calibration", "format", "accuracy")
"""Names of the reward components, in a fixed order."""


def _default_costs() -> dict[str, dict[str, float]]:
    return {"Malicious": {"Benign": 2.0}, "Benign": {"Malicious": 1.0}}


def _is_real(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_finite(name: str, value: object) -> float:
    if not _is_real(value) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Payoffs:
    """Payoffs of the decision component (see the module docstring).

    ``cost_matrix[gold][predicted]`` is the (non-negative) cost of a wrong answer; it is
    stored read-only. ``invalid=None`` resolves to :attr:`worst_wrong_payoff`.
    """

    correct: float = 1.0
    abstain: float = 0.0
    cost_matrix: Mapping[str, Mapping[str, float]] = field(
        default_factory=_default_costs, hash=False
    )
    invalid: float | None = None

    def __post_init__(self) -> None:
        correct = _check_finite("Payoffs.correct", self.correct)
        abstain = _check_finite("Payoffs.abstain", self.abstain)
        object.__setattr__(self, "correct", correct)
        object.__setattr__(self, "abstain", abstain)
        if not abstain < correct:
            raise ValueError(
                f"Payoffs.abstain ({abstain}) must be < Payoffs.correct ({correct}), "
                "otherwise abstaining is never worse than answering correctly"
            )
        if not isinstance(self.cost_matrix, Mapping):
            raise ValueError("Payoffs.cost_matrix must be a mapping gold -> predicted -> cost")
        frozen: dict[str, Mapping[str, float]] = {}
        for gold, row in self.cost_matrix.items():
            if not isinstance(row, Mapping):
                raise ValueError(f"Payoffs.cost_matrix[{gold!r}] must be a mapping")
            clean: dict[str, float] = {}
            for pred, cost in row.items():
                name = f"Payoffs.cost_matrix[{gold!r}][{pred!r}]"
                value = _check_finite(name, cost)
                if value < 0:
                    raise ValueError(f"{name} must be >= 0 (it is a cost), got {cost!r}")
                clean[str(pred)] = value
            frozen[str(gold)] = MappingProxyType(clean)
        object.__setattr__(self, "cost_matrix", MappingProxyType(frozen))
        if self.invalid is not None:
            invalid = _check_finite("Payoffs.invalid", self.invalid)
            if invalid > abstain:
                raise ValueError(
                    f"Payoffs.invalid ({invalid}) must be <= Payoffs.abstain ({abstain}), "
                    "otherwise emitting garbage beats abstaining"
                )
            object.__setattr__(self, "invalid", invalid)

    def cost(self, gold: str, predicted: str) -> float:
        """Cost of answering ``predicted`` when the truth is ``gold`` (0 if equal)."""
        if predicted == gold:
            return 0.0
        return float(self.cost_matrix.get(gold, {}).get(predicted, DEFAULT_COST))

    @property
    def worst_wrong_payoff(self) -> float:
        """``-max`` over all listed costs and :data:`DEFAULT_COST`."""
        costs = [c for row in self.cost_matrix.values() for c in row.values()]
        return -max([DEFAULT_COST, *costs])

    @property
    def invalid_payoff(self) -> float:
        """Resolved payoff of an unparseable answer."""
        return self.worst_wrong_payoff if self.invalid is None else float(self.invalid)

    def as_config(self) -> dict[str, Any]:
        """Plain JSON for run metadata (`reward_config.payoffs`), the invalid payoff resolved;
        `Payoffs(**payoffs.as_config())` rebuilds payoffs that score every answer the same."""
        return {
            "correct": self.correct,
            "abstain": self.abstain,
            "invalid": self.invalid_payoff,
            "cost_matrix": {gold: dict(row) for gold, row in self.cost_matrix.items()},
        }


def reward_accuracy(predicted: str | None, gold: str) -> float:
    """1.0 iff ``predicted == gold``; abstentions and invalid answers (None) score 0."""
    return 1.0 if predicted is not None and predicted == gold else 0.0


def reward_format(result_ok: bool) -> float:
    """1.0 for a valid answer, else 0.0."""
    return 1.0 if result_ok is True else 0.0


def reward_asymmetric_cost(
    predicted: str | None, gold: str, payoffs: Payoffs, abstain_label: str = "Abstain"
) -> float:
    """Decision payoff: correct, abstain, ``-cost`` for a wrong label, invalid for None."""
    if predicted is None:
        return payoffs.invalid_payoff
    if predicted == abstain_label:
        return float(payoffs.abstain)
    if predicted == gold:
        return float(payoffs.correct)
    return -payoffs.cost(gold, predicted)


def abstention_threshold(
    payoffs: Payoffs, predicted: str, labels: Sequence[str], abstain_label: str = "Abstain"
) -> float:
    """Probability of being right above which answering ``predicted`` beats abstaining.

    ``labels`` are the two decision labels of a binary task (``abstain_label`` is ignored
    if present). Returns ``(abstain + lam) / (correct + lam)`` with
    ``lam = cost(other, predicted)``; the value is always < 1 and may be <= 0 (always
    answer); ``-inf`` when ``correct + lam <= 0`` (answering always wins).
    """
    decision_labels = list(dict.fromkeys(lbl for lbl in labels if lbl != abstain_label))
    if len(decision_labels) != 2:
        raise ValueError(f"abstention_threshold needs exactly 2 labels, got {decision_labels}")
    if predicted not in decision_labels:
        raise ValueError(f"predicted {predicted!r} not in {decision_labels}")
    other = decision_labels[1] if decision_labels[0] == predicted else decision_labels[0]
    lam = payoffs.cost(other, predicted)
    denom = payoffs.correct + lam
    if denom <= 0:
        return -math.inf
    return (payoffs.abstain + lam) / denom


def best_decision(
    p_positive: float,
    payoffs: Payoffs,
    positive: str,
    negative: str,
    abstain_label: str = "Abstain",
    right: Mapping[str, float] | None = None,
    wrong: Mapping[str, float] | None = None,
) -> tuple[str, float]:
    """(label, confidence) with the highest expected decision payoff when the positive class
    has probability ``p_positive``: answering ``positive`` is worth
    ``p * correct - (1 - p) * cost(negative, positive)``, ``negative`` the mirror image,
    abstaining ``payoffs.abstain``; ties go to abstaining. ``right`` and ``wrong`` override
    what a right answer is worth and a wrong one costs, per answered label (e.g. a call made
    without the evidence it needs is worth less; one whose citations cost when it is wrong
    costs more).
    The confidence is the probability the answer is right (0.5 for an abstention)."""
    p = min(1.0, max(0.0, float(p_positive)))
    worth = {positive: payoffs.correct, negative: payoffs.correct, **(right or {})}
    cost = {
        positive: payoffs.cost(negative, positive),
        negative: payoffs.cost(positive, negative),
        **(wrong or {}),
    }
    values = {
        abstain_label: float(payoffs.abstain),
        positive: p * worth[positive] - (1 - p) * cost[positive],
        negative: (1 - p) * worth[negative] - p * cost[negative],
    }
    label = max(values, key=lambda name: values[name])
    confidence = {abstain_label: 0.5, positive: p, negative: 1 - p}[label]
    return label, round(confidence, 4)


def reward_calibration(
    confidence: float | None, correct: bool | None, abstain_score: float = 0.75
) -> float:
    """Brier-based proper score ``1 - (confidence - 1[correct])**2`` in ``[0, 1]``.

    ``correct is None`` means the model abstained and scores ``abstain_score`` (0.75 is
    the score of the uninformative forecast 0.5; see the module docstring for why this
    keeps the abstention threshold essentially unchanged). A missing, non-numeric,
    non-finite or out-of-range confidence on an answered prediction scores 0.
    """
    if correct is None:
        return float(abstain_score)
    if (
        confidence is None
        or not _is_real(confidence)
        or not math.isfinite(confidence)
        or not 0.0 <= confidence <= 1.0
    ):
        return 0.0
    outcome = 1.0 if correct else 0.0
    return 1.0 - (float(confidence) - outcome) ** 2


@dataclass(frozen=True)
class RewardWeights:
    """Non-negative weights of the reward components; 0 switches a component off."""

    decision: float = 1.0
    calibration: float = 0.2
    format: float = 0.1
    accuracy: float = 0.0

    def __post_init__(self) -> None:
        check_weights(self)

    def as_dict(self) -> dict[str, float]:
        """Weights keyed by component name."""
        return {name: getattr(self, name) for name in COMPONENTS}

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float] | None) -> RewardWeights:
        """Build from a (possibly partial) mapping (None: defaults); unknown keys and a
        non-object (`reward_weights=abc`) raise ValueError."""
        mapping = weights_mapping(mapping, COMPONENTS)
        for key in mapping:
            if key not in COMPONENTS:
                raise ValueError(
                    f"unknown reward weight {key!r}; expected one of {list(COMPONENTS)}"
                )
        return cls(**dict(mapping))


def classification_reward_components(
    result: ParseResult,
    gold: str,
    payoffs: Payoffs,
    abstain_label: str = "Abstain",
    abstain_calibration: float = 0.75,
) -> dict[str, float]:
    """All reward components for one parsed answer (keys: :data:`COMPONENTS`).

    An invalid answer gets ``format = accuracy = calibration = 0`` and the invalid payoff.
    """
    answer = result.answer
    if not result.ok or answer is None:
        return {
            "decision": payoffs.invalid_payoff,
            "calibration": 0.0,
            "format": 0.0,
            "accuracy": 0.0,
        }
    label = answer.label
    correct = None if label == abstain_label else label == gold
    return {
        "decision": reward_asymmetric_cost(label, gold, payoffs, abstain_label),
        "calibration": reward_calibration(answer.confidence, correct, abstain_calibration),
        "format": reward_format(True),
        "accuracy": reward_accuracy(None if correct is None else label, gold),
    }


def combine(components: Mapping[str, float], weights: RewardWeights) -> float:
    """Weighted sum of components. Zero-weight components are skipped entirely.

    Raises ValueError for unknown component names, or for a missing or non-finite
    component that has a non-zero weight.
    """
    for key in components:
        if key not in COMPONENTS:
            raise ValueError(f"unknown reward component {key!r}; expected {list(COMPONENTS)}")
    total = 0.0
    for name, weight in weights.as_dict().items():
        if weight == 0.0:
            continue
        if name not in components:
            raise ValueError(f"missing reward component {name!r} (weight {weight})")
        value = components[name]
        if not _is_real(value) or not math.isfinite(value):
            raise ValueError(f"reward component {name!r} must be finite, got {value!r}")
        total += weight * float(value)
    return total


_W = TypeVar("_W", bound=Any)


def check_weights(weights: Any, names: Sequence[str] | None = None) -> None:
    """Validate a frozen weights dataclass in its `__post_init__`: every field (or `names`)
    must be a finite number >= 0; values are stored as floats."""
    kind = type(weights).__name__
    for name in names if names is not None else [f.name for f in fields(weights)]:
        value = _check_finite(f"{kind}.{name}", getattr(weights, name))
        if value < 0:
            raise ValueError(f"{kind}.{name} must be >= 0, got {value}")
        object.__setattr__(weights, name, value)


def weights_dataclass(cls: type[_W], mapping: Mapping[str, float] | None) -> _W:
    """Build the weights dataclass `cls` from a user mapping; unknown names are an error."""
    names = [f.name for f in fields(cls)]
    mapping = weights_mapping(mapping, names)
    known = set(names)
    unknown = set(mapping) - known
    if unknown:
        raise ValueError(f"unknown reward weight(s) {sorted(unknown)}; valid: {sorted(known)}")
    return cls(**mapping)


def weights_mapping(value: Any, names: Sequence[str]) -> dict[str, Any]:
    """The user's `reward_weights` as a dict (None: empty); a non-object raises ValueError
    naming the argument and showing an object of these `names`."""
    example = "calibration" if "calibration" in names else (names[0] if names else "name")
    return expect_object("reward_weights", value, f'an object like {{"{example}": 0.0}}')


@dataclass(frozen=True)
class ComponentWeights:
    """Base of the environments' frozen reward-weight dataclasses.

    A subclass declares its weights as float fields; it gets validation on construction
    (`check_weights`: finite, >= 0, stored as floats), `from_mapping` (user weights, unknown
    names rejected) and `as_dict` (every field, in declaration order).
    """

    def __post_init__(self) -> None:
        check_weights(self)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float] | None) -> Self:
        return weights_dataclass(cls, mapping)

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
