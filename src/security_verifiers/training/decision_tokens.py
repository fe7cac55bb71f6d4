"""The decision token of a classification answer and a token loss that can weight it.

Every SFT answer of E1 and E4 opens with `{"label": "` and then the label word (`Benign`,
`Malicious`, `Phishing`, `Legitimate`, `Abstain`); the label word's first token is the answer's
decision, the token the environment's decision reward turns on. Under a plain mean over the
answer's ~20-40 tokens it carries a few per cent of the loss, and the rest (the JSON frame, the
evidence list) is learned long before it: in the E4 proof the SFT model reached a token accuracy
of 0.96 while its labels were right on 0.66 of training emails (issue 21 note).
`train.decision_weight` multiplies that one token's cross-entropy; `decision_accuracy` is logged
either way, so the curves show whether the label is being learned.

The stated confidence (`"confidence": 0.74`: one token per digit and point in the SmolLM2
tokenizer) is likewise a handful of tokens among many, and the only ones the calibration reward
reads; `train.confidence_weight` multiplies their cross-entropies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What every classification answer starts with; the next token is the decision.
ANSWER_PREFIX = '{"label": "'
#: The key a stated confidence follows (then optional spaces, then the number).
CONFIDENCE_KEY = 'confidence":'
IGNORE = -100


@dataclass(frozen=True)
class ConfidenceTokens:
    """The token ids that locate a stated confidence: the key's, the whitespace that may
    follow it, and those a number is written with (digits and the point)."""

    key: tuple[int, ...]
    spaces: frozenset[int]
    number: frozenset[int]


def confidence_tokens(tokenizer: Any) -> ConfidenceTokens:
    """The tokenizer's `ConfidenceTokens` (a number token is one that decodes to digits and
    points only)."""
    key = tuple(tokenizer(CONFIDENCE_KEY, add_special_tokens=False)["input_ids"])
    spaces = frozenset(tokenizer(" ", add_special_tokens=False)["input_ids"])
    number = frozenset(
        index
        for token, index in tokenizer.get_vocab().items()
        if (text := tokenizer.convert_tokens_to_string([token])) and set(text) <= set("0123456789.")
    )
    return ConfidenceTokens(key, spaces, number)


def answer_prefix_ids(tokenizer: Any) -> list[int]:
    """The answer prefix's token ids as they appear inside a chat-templated answer."""
    return list(tokenizer(ANSWER_PREFIX, add_special_tokens=False)["input_ids"])


def decision_mask(input_ids: Any, labels: Any, prefix_ids: list[int]) -> Any:
    """A (rows, positions) bool mask: per row, the first trained position right after the
    answer prefix (all False in a row without one)."""
    import torch

    rows, length = input_ids.shape
    width = len(prefix_ids)
    if not width or length <= width:
        return torch.zeros_like(input_ids, dtype=torch.bool)
    follows = torch.ones(rows, length - width, dtype=torch.bool, device=input_ids.device)
    for offset, token in enumerate(prefix_ids):
        follows &= input_ids[:, offset : length - width + offset] == token
    after_prefix = torch.zeros_like(input_ids, dtype=torch.bool)
    after_prefix[:, width:] = follows
    candidates = after_prefix & (labels != IGNORE)
    return candidates & (candidates.cumsum(dim=1) == 1)


def confidence_mask(input_ids: Any, labels: Any, tokens: ConfidenceTokens | None) -> Any:
    """A (rows, positions) bool mask of the trained number tokens that directly follow a
    confidence key (after optional whitespace tokens); all False without `tokens`."""
    import torch

    mask = torch.zeros_like(input_ids, dtype=torch.bool)
    if tokens is None or not tokens.key:
        return mask
    width = len(tokens.key)
    for row, ids in enumerate(input_ids.tolist()):
        for start in range(len(ids) - width + 1):
            if tuple(ids[start : start + width]) != tokens.key:
                continue
            position = start + width
            while position < len(ids) and ids[position] in tokens.spaces:
                position += 1
            while position < len(ids) and ids[position] in tokens.number:
                mask[row, position] = True
                position += 1
    return mask & (labels != IGNORE)


def untrained_decision(input_ids: list[int], labels: list[int], prefix_ids: list[int]) -> list[int]:
    """`labels` with the row's decision token set to IGNORE: the rest of the answer still
    trains, the choice of label does not (unchanged without a decision token)."""
    import torch

    ids = torch.tensor([input_ids])
    gold = torch.tensor([labels])
    position = decision_mask(ids, gold, prefix_ids)[0].nonzero()
    if not len(position):
        return list(labels)
    masked = list(labels)
    masked[int(position[0])] = IGNORE
    return masked


def keep_decisions_where(dataset: Any, column: str, prefix_ids: list[int]) -> Any:
    """A prepared SFT dataset (`input_ids`, `labels`) whose rows with a false `column` no
    longer train their decision token."""

    def mask(row: dict[str, Any]) -> dict[str, Any]:
        if row[column]:
            return {"labels": row["labels"]}
        return {"labels": untrained_decision(row["input_ids"], row["labels"], prefix_ids)}

    return dataset.map(mask, desc="Untraining decisions")


def weighted_loss(
    logits: Any,
    gold: Any,
    decision: Any,
    count: Any,
    decision_weight: float,
    confidence: Any = None,
    confidence_weight: float = 1.0,
) -> tuple[Any, float | None]:
    """The trained tokens' cross-entropies (`logits` and `gold` of the trained positions),
    each `decision` token's times `decision_weight` and each `confidence` token's times
    `confidence_weight`, summed over `count`; and the share of decision tokens predicted
    right (None when there are none)."""
    import torch
    import torch.nn.functional as F

    weights = 1.0 + (decision_weight - 1.0) * decision.float()
    if confidence is not None and confidence_weight != 1.0:
        weights = weights + (confidence_weight - 1.0) * confidence.float()
    per_token = F.cross_entropy(logits, gold, reduction="none")
    loss = (per_token * weights).sum() / torch.as_tensor(count).clamp(min=1)
    if not bool(decision.any()):
        return loss, None
    with torch.no_grad():
        right = float((logits[decision].argmax(-1) == gold[decision]).float().mean())
    return loss, right
