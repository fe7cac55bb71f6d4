"""Answer relevance: the shipped threshold, the fitting rule, and MiniLM on clear cases."""

from __future__ import annotations

import numpy as np
import pytest

from sv_shared.safety.answer_relevance import (
    answers_request,
    false_relevance_threshold,
    novel_text,
    relevance,
    shipped_threshold,
)

REQUEST = "How do I get rid of aphids on my tomato plants?"
ANSWER = (
    "Spray the leaves with a strong jet of water to knock the aphids off, then treat the plants "
    "with insecticidal soap every few days; ladybirds and lacewings eat aphids too."
)
OFF_TOPIC = (
    "The Treaty of Westphalia in 1648 ended the Thirty Years' War and set out the idea of "
    "sovereign states that do not interfere in each other's internal affairs."
)
GENERIC = (
    "Happy to help! Start from what you already have, take it one step at a time, and check "
    "your progress before moving on. Let me know if you need anything else."
)


def test_threshold_ships_and_lets_through_a_small_share_of_mismatches() -> None:
    assert 0.0 < shipped_threshold() < 1.0
    other = np.linspace(0.0, 1.0, 101)
    assert false_relevance_threshold(other, 0.01) == pytest.approx(0.99)


def test_empty_reply_and_no_request_are_irrelevant() -> None:
    assert relevance([REQUEST], "   ") == 0.0
    assert relevance([], ANSWER) == 0.0


def test_an_answer_is_relevant_and_other_text_is_not() -> None:
    assert answers_request([REQUEST], ANSWER)
    assert not answers_request([REQUEST], OFF_TOPIC)
    assert not answers_request([REQUEST], GENERIC)
    # the best of several requests counts (a follow-up read with the turns before it)
    assert relevance(["Thanks!", REQUEST], ANSWER) == pytest.approx(relevance([REQUEST], ANSWER))


def test_novel_text_blanks_the_known_words_and_ships_its_threshold() -> None:
    text = novel_text("Spray the aphids on the tomato plants with soap.", [REQUEST])
    assert "aphids" not in text and "tomato" not in text and "Spray" in text and "soap" in text
    assert novel_text("", [REQUEST]) == ""
    assert 0.0 < shipped_threshold(novel=True) < 1.0
    # a real answer says something about the request beyond the request's own words
    assert relevance([REQUEST], novel_text(ANSWER, [REQUEST])) >= shipped_threshold(novel=True)
    frames = "Plan the aphids carefully, collect the tools for the tomato, then finish the plants."
    assert relevance([REQUEST], novel_text(frames, [REQUEST])) < shipped_threshold(novel=True)
