"""A suggestion one person makes to the other is a fact in the speaker's name (suggest.py)."""

from __future__ import annotations

import pytest

from tests.support.offline_kit import chat, fact_texts


def facts_of(said: str) -> list[str]:
    """Ana says `said` to Tomas, who has just said something of no substance."""
    return fact_texts(chat(("Tomas", "My back hurts again."), ("Ana", said), ("Tomas", "Good idea, thanks!")))


@pytest.mark.parametrize(("said", "fact"), [
    ("Try a standing desk instead.", "Ana suggested Tomas try a standing desk instead (2023-05-07)."),
    ("Have you considered swapping your office chair for a kneeling stool?",
     "Ana suggested Tomas consider swapping Tomas's office chair for a kneeling stool (2023-05-07)."),
    ("Maybe look into physiotherapy or pilates classes?",
     "Ana suggested Tomas look into physiotherapy or pilates classes (2023-05-07)."),
    ("Tomas, you should try my mom's ginger tea.", "Ana suggested Tomas try Ana's mom's ginger tea (2023-05-07)."),
])
def test_a_concrete_suggestion_to_the_other_person_is_a_fact(said, fact):
    """Before, advice said to someone was no statement about anyone, and gave nothing."""
    assert fact in facts_of(said)


@pytest.mark.parametrize("said", [
    "Try to relax.", "Try it!", "Have you tried anything new lately?", "Check out my new bowl!", "Keep it up!",
])
def test_a_suggestion_of_nothing_in_particular_gives_no_fact(said):
    assert not any("suggested" in f for f in facts_of(said))


def test_a_suggestion_needs_someone_to_address():
    """Alone in the batch, Ana speaks to no one: no suggestion is read."""
    assert not any("suggested" in f for f in fact_texts(chat(("Ana", "Try a standing desk instead."))))
