"""What a person tells an agent, read by the offline extractor: "Please remember that I'm allergic
to shellfish" is a fact told, "Remember to buy milk" an errand, "Update on the move: ..." a label
before what it heads."""

from __future__ import annotations

import pytest

from consolidator.model.offline import OfflineModel
from consolidator.model.offline.text import sentences
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest
from tests.support.offline_kit import told, told_against, told_lines


def _told(text: str) -> tuple[list[str], list[str]]:
    return told(text, "Noted.")


@pytest.mark.parametrize(("said", "fact"), [
    ("Please remember that I'm allergic to shellfish.", "Maya is allergic to shellfish."),
    ("hey can u remember that my landlord's name is Rui Costa", "Rui Costa is Maya's landlord."),
    ("Keep in mind that I'm vegetarian.", "Maya is vegetarian."),
    ("Note: my new number is 555-0199.", "Maya's phone number is 555-0199."),
    ("Don't forget I'm vegetarian.", "Maya is vegetarian."),
])
def test_what_one_asks_the_agent_to_remember_is_a_fact_and_no_errand(said, fact):
    """A request to remember gave nothing (its words read as a request, not a statement); what
    follows it is what was said, and no task ("I am vegetarian" was one)."""
    assert _told(said) == ([fact], [])


@pytest.mark.parametrize(("said", "title"), [
    ("Remember to buy milk.", "Buy milk"),
    ("Please remember to call the bank tomorrow.", "Call the bank"),
    ("I need to remember to call Ana.", "Call Ana"),
])
def test_remember_to_is_an_errand(said, title):
    assert _told(said)[1] == [title]


def test_remember_when_is_a_question():
    assert _told("Remember when we went to Lisbon?") == ([], [])


@pytest.mark.parametrize(("said", "fact"), [
    ("Quick update on my health stuff: blood test results came back, cholesterol is high (245).",
     "Maya said: Blood test results came back, cholesterol is high (245) (2025-03-03)."),  # not "Quick update on ..."
    ("Quick update on my health: my cholesterol is high (245).", "Maya's cholesterol is high (245) (2025-03-03)."),
])
def test_a_label_on_a_topic_heads_what_follows(said, fact):
    assert _told(said)[0] == [fact]


@pytest.mark.parametrize(("text", "said"), [
    ("it died this morning. dropping it off tomorrow", ["it died this morning.", "dropping it off tomorrow"]),
    ("wow! so happy for you", ["wow!", "so happy for you"]),
    ("I was thinking... maybe not", ["I was thinking... maybe not"]),  # an ellipsis is a pause
    ("we met at 9 a.m. today, apples etc. are fine", ["we met at 9 a.m. today, apples etc. are fine"]),
])
def test_chat_in_lower_case_ends_its_sentences(text, said):
    """"yeah until next March. dropping it off at the store tomorrow" was one sentence (a sentence
    ended only before a capital), so its second half was lost to its first."""
    assert sentences(text) == said


def _lines(*texts: str) -> list[str]:
    return told(*texts)[0]


@pytest.mark.parametrize(("said", "correction", "fact"), [
    ("My dentist appointment is on Tuesday at 4.", "Sorry, I meant Thursday, not Tuesday.",
     "Maya's dentist appointment is on Thursday (2025-03-06) at 4, not Tuesday (2025-03-03)."),
    ("My dentist appointment is on Tuesday at 4.", "Oops, I meant Friday.",  # the one weekday said before
     "Maya's dentist appointment is on Friday (2025-03-07) at 4, not Tuesday (2025-03-03)."),
    ("My rent is 950 a month.", "Sorry, I meant 980, not 950.", "Maya's rent is 980 a month, not 950 (2025-03-03)."),
    ("My flight lands at 9:30 on the 12th.", "Oops, I meant 10:30.",  # the one other hour of its form
     "Maya's flight lands at 10:30 on the 12th, not 9:30 (2025-03-03)."),
    ("I'm meeting Ana on Friday.", "Sorry, I meant Saturday.",  # a plan's day, in a sentence of any verb
     "Maya is meeting Ana, not Friday (2025-03-08)."),
    ("I have dinner with Ana on Friday.", "I have dinner with Ana on Saturday, not Friday.",
     "Maya has dinner with Ana on Saturday, not Friday (2025-03-03)."),
])
def test_a_correction_of_the_line_before_is_that_line_said_right(said, correction, fact):
    """"Sorry, I meant Thursday, not Tuesday" said nothing (no subject), and the Tuesday stayed:
    it is the sentence it corrects said right, which supersedes what that said."""
    assert _lines(said, "Noted.", correction, "Updated.") == [fact]


@pytest.mark.parametrize("correction", ["Sorry, I meant Sunday, not Monday.", "Oops, I meant 4pm.",
                                        "I meant 3 and 5."])  # no hour said; two numbers meant
def test_a_correction_of_nothing_said_is_nothing(correction):
    """"Oops, I meant 4pm" after a line with no hour was the fact "Maya meant 4pm"."""
    assert _lines("My dentist appointment is on Tuesday at 4.", "Noted.", correction,
                  "Ok.") == ["Maya's dentist appointment is on Tuesday (2025-03-04) at 4 (2025-03-03)."]


def test_a_he_of_the_next_line_means_the_person_the_line_before_named():
    """"I want to surprise Leo with a trip" - "Lovely idea." - "He loves Japanese food": Leo (named
    as an object, a person by "surprise"), when the line between names no one else."""
    assert "Leo loves Japanese food." in _lines("I want to surprise Leo with a trip to Kyoto.", "Lovely idea.",
                                                "He loves Japanese food.", "Nice.")
    assert not any(f.startswith("Leo loves") for f in _lines(
        "I want to surprise Leo with a trip to Kyoto.", "Did Rui like his gift?", "He loves Japanese food.", "Nice."))


@pytest.mark.parametrize(("said", "facts"), [
    ("I moved into a new flat yesterday.", ["Maya moved into a new flat (2025-03-02)."]),  # was home: "a new flat"
    ("Yesterday was exhausting. I moved all my stuff into the new flat.",
     ["Maya moved all their stuff into the new flat (2025-03-02)."]),  # was nothing
    ("We moved into our new place in Porto.", ["Maya lives in Porto."]),  # a place said: the home
])
def test_a_move_into_a_dwelling_is_an_event_and_its_place_the_home(said, facts):
    assert _lines(said, "Congrats!") == facts


@pytest.mark.parametrize(("said", "fact"), [
    ("I meant to call my sister Ana yesterday.", "Ana is Maya's sister."),
    ("No, I mean my sister Ana is a nurse now.", "Ana is Maya's sister."),
])
def test_a_clause_that_opens_with_i_meant_is_read_as_any_other(said, fact):
    """Only a bare correction ("I meant 4pm") is placed or dropped; these lost every claim."""
    assert fact in _lines("Thanks for the reminder.", "Sure.", said, "Ok.")


def test_an_unnamed_user_is_written_as_a_common_noun_inside_a_sentence():
    """A user logged without a speaker name is "The user"; the relation read "The user's sister"
    and the fact "Ana is The user's sister.", a capital in mid-sentence on every contact card."""
    lines = [line.model_copy(update={"speaker": None}) for line in told_lines(
        "My sister Ana lives in Porto.", "Noted.", "I went to the dentist with Ana yesterday.", "Ok.")]
    model = OfflineModel()
    facts = [f.text for f in model.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts]
    assert "Ana is the user's sister." in facts
    assert any(f.startswith("The user went to the dentist with Ana") for f in facts)  # a sentence's start keeps it
    ana, = model.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts
    assert ana.details["relation"] == "the user's sister"


@pytest.mark.parametrize(("said", "fact"), [
    ("My friend Rui is coming on Saturday.", "Rui is coming (2025-03-08)."),
    ("My sister Ana is visiting next week.", "Ana is visiting (week of 2025-03-10)."),
    ("Ana is visiting next week.", "Ana is visiting (week of 2025-03-10)."),
])
def test_a_plan_of_someone_named_is_kept_by_its_day(said, fact):
    """The plan's day is its news: "is coming" adds no word to "Rui is Maya's friend", so the plan
    was dropped; a week ahead counted as no plan's day at all ("Ana is visiting next week": nothing),
    and "coming on Saturday" left "Rui is coming on (2025-03-08)" (the "on" was not the date's)."""
    assert fact in _told(said)[0]


@pytest.mark.parametrize(("said", "fact"), [
    ("I prefer aisle seats.", "Maya prefers aisle seats."),
    ("I'd rather sit by the window.", "Maya would rather sit by the window."),
    ("My friend Rui prefers email over phone calls.", "Rui prefers email over phone calls."),
])
def test_a_preference_told_is_a_fact(said, fact):
    """What a person prefers is what an assistant most needs to keep; "I prefer aisle seats" gave
    nothing (too few words of substance for a plain clause)."""
    assert fact in _told(said)[0]


@pytest.mark.parametrize(("said", "known"), [
    ("Move the dentist to Thursday December 10, same time.",
     "Maya has a dentist appointment on Thursday December 3 (2025-12-03) at 15:30 (2025-03-01)."),
    ("We have to postpone the move to June.", "Maya is moving to Porto (April 2025)."),
    ("Push the call with Rui to Friday.", "Maya has a call with Rui Santos on Wednesday (2025-03-05) at 3pm (2025-03-01)."),
])
def test_a_plan_the_person_moves_supersedes_the_plan(said, known):
    """A plan moved by the person, or asked moved ("Move the dentist to ...", "We have to postpone
    the move to March") left the old day current: only "X was moved to ..." was read as a move."""
    [fact] = told_against([known], said, "Done.")
    assert (fact.op, fact.target_id) == ("UPDATE", "f1") and " was moved to " in fact.text, fact


def test_a_him_or_her_of_the_speakers_clause_is_the_person_just_spoken_of():
    """"I promised to visit him in January" kept its "him": a fact that names no one."""
    facts, _ = _told("My brother Rui lives in Porto. I promised to visit him in January.")
    assert "Maya promised to visit Rui (January 2026)." in facts, facts
    facts, _ = _told("My sister Ana is coming. I gave her mom a card.")  # a possessive "her" stays
    assert not any("Ana mom" in f or "gave Ana" in f for f in facts), facts


@pytest.mark.parametrize(("known", "said"), [
    ("Maya needs to renew their car insurance before November 30 (2025-11-30) (2025-03-01).",
     "I renewed the car insurance, went with Fidelidade."),
    ("Maya promised to send Rui the new price list by Monday (2025-03-10) (2025-03-01).", "I sent Rui the new price list."),
])
def test_a_need_met_supersedes_the_need(known, said):
    """"Maya needs to renew their car insurance" stayed current after "I renewed the car
    insurance" (the done one said no new word, so it was not even written)."""
    [fact] = told_against([known], said, "Great.")
    assert (fact.op, fact.target_id) == ("UPDATE", "f1"), fact
    facts, _ = told("I need to renew my car insurance before November 30.", "Ok.", "I renewed the car insurance.", "Great.")
    assert not any("needs to" in f for f in facts), facts  # within one batch: the need met is not written
    assert all(f.op == "ADD" for f in told_against([known], "I renewed my passport.", "Great."))


def test_a_plan_called_off_after_all_by_what_it_is_supersedes_the_plan():
    """"I'm not going to the board meeting after all" ended nothing: an ending had to name a name
    ("Berlin"); its words of substance say which plan it ends, and "after all" is an ending."""
    known = ["Maya is going to the board meeting on December 15 (2025-12-15) (2025-03-01).",
             "Maya is going to the gym on Monday (2025-03-10) (2025-03-01)."]
    ops = [(f.op, f.target_id) for f in told_against(
        known, "I'm not going to the board meeting after all, Rui will present it.", "Ok.")]
    assert ("UPDATE", "f1") in ops and ("UPDATE", "f2") not in ops, ops
    assert _told("It was fun after all.")[0] == []  # no plan called off
