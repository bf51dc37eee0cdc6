"""A reply given as a fragment is read as the statement its question implies (offline/replies.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from consolidator.model.offline.replies import confirmed_statement, implied_statement
from consolidator.model.schemas import FactExtractionRequest, Line
from tests.support.offline_kit import AT, MODEL, chat, fact_texts, said_by_caroline


@pytest.mark.parametrize(("question", "reply", "statement"), [
    ("How long have you been married?", "5 years already!", "I have been married for 5 years already."),
    ("Nice! How long have you been living in Porto?", "About 5 years now.",
     "I have been living in Porto for about 5 years now."),
    ("How long have you been creating art?", "Since 2019.", "I have been creating art since 2019."),
    ("Which cuisine do you prefer?", "Thai, or maybe Italian.", "I prefer Thai, or maybe Italian."),
    ("What kind of music do you like the most?", "Jazz, mostly.", "I like Jazz, mostly."),
    ("Where do you live?", "In Porto, near the river.", "I live in Porto, near the river."),
    ("Where do you work?", "Acme.", "I work at Acme."),
    ("Where are you from?", "Lisbon, originally.", "I am from Lisbon, originally."),
    ("What do you do for a living?", "A nurse.", "I work as a nurse."),
    ("How old are you?", "34.", "I am 34 years old."),
    ("And how old is your son now?", "Five!", "My son is five years old."),
    ("When do you leave for Lisbon?", "Next Monday.", "I leave for Lisbon next Monday."),
    ("When will your sister arrive?", "On the 3rd.", "My sister arrives on the 3rd."),
    ("How many kids do you have?", "Two.", "I have two kids."),
    ("Fun! When is the derby?", "Saturday the 15th at 8pm.", "The derby is on Saturday the 15th at 8pm."),
    ("When is your exam?", "Next Friday.", "My exam is next Friday."),
    ("How much coffee do you drink now?", "Like 4 cups a day.", "I drink like 4 cups a day."),
    ("What's your budget?", "Around 120 euros for the week.", "My budget is around 120 euros for the week."),
    ("What are your hobbies?", "Climbing and chess.", "My hobbies are Climbing and chess."),
    ("What's your email again?", "maya.silva@example.com", "My email is maya.silva@example.com."),
])
def test_a_fragment_answer_is_the_statement_its_question_implies(question, reply, statement):
    assert implied_statement(question, reply) == statement


@pytest.mark.parametrize(("question", "reply"), [
    ("How long have you been married?", "Thanks for asking!"),  # no answer
    ("How long have you been married?", "Too long haha."),  # no duration
    ("How long have you been creating art?", "Since I was 17 or so."),  # a clause of its own
    ("What type of music do you play?", "Guitar's mostly my thing."),  # says something itself
    ("What type of music do you play?", "I play guitar mostly."),  # a sentence: the rules read it
    ("Where will she stay?", "With us."),  # not asked of "you"
    ("How was the trip?", "Amazing!"),  # a question of another shape
    ("Where do you live?", "Yes, it is lovely there."),
    ("I moved to Porto.", "Porto!"),  # no question
    ("How old are you?", "Almost 40."),  # an age it does not say
    ("How old is she?", "Old enough haha."),
    ("When does he start?", "Not sure yet."),  # no time given
    ("What's your take on it?", "Hard to say."),  # no thing of "you" asked for
    ("How much do you earn?", "Enough."),  # no amount
])
def test_anything_else_is_left_to_the_rules(question, reply):
    assert implied_statement(question, reply) is None


def test_a_reply_in_a_word_becomes_the_speakers_fact_in_a_chat_and_in_an_agents_log():
    """Between two people, and to the agent's question: the fact is the replier's, cited to the
    reply (the question only lends its words); the rules read the statement (a home, a job)."""
    assert fact_texts(chat(("Ana", "How long have you been married?"), ("Tomas", "5 years already!"))) == [
        "Tomas has been married for 5 years already (2023-05-07)."]
    lines = [Line(id="a1", at=AT, role="assistant", text="Noted. Where do you live these days?"),
             Line(id="u1", at=AT + timedelta(minutes=1), role="user", speaker="Maya", text="Porto."),
             Line(id="a2", at=AT + timedelta(minutes=2), role="assistant", text="And what do you do for work?"),
             Line(id="u2", at=AT + timedelta(minutes=3), role="user", speaker="Maya", text="A data analyst.")]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    assert [(f.text, f.source_ids) for f in facts] == [("Maya lives in Porto.", ["u1"]),
                                                      ("Maya works as a data analyst.", ["u2"])]


def test_a_reply_to_ones_own_question_or_that_says_something_is_read_as_it_is():
    assert fact_texts(chat(("Ana", "How long have I been married? 5 years!"), ("Tomas", "Wow."))) == []
    said = fact_texts(chat(("Ana", "How long have you been married?"), ("Tomas", "We married in Lisbon in 2015.")))
    assert said and not any("for" in t for t in said)


def test_the_statement_a_fragment_implies_reaches_the_persons_card():
    """"Where do you live these days?" - "Porto.": the card's home, cited to the reply."""
    from consolidator.model.schemas import ContactsRequest

    lines = [Line(id="a1", at=AT, role="assistant", text="Where do you live these days?"),
             Line(id="u1", at=AT + timedelta(minutes=1), role="user", speaker="Maya", text="Porto.")]
    [maya] = MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts
    assert (maya.name, maya.details, maya.source_ids) == ("Maya", {"home": "Porto"}, ["u1"])


def test_an_age_given_alone_is_the_age_of_whom_the_question_asks_about():
    """The agent asks "How old is he?" after Maya named her son: "Five." is Leo's age, on his card."""
    from consolidator.model.schemas import ContactsRequest

    lines = [Line(id="u1", at=AT, role="user", speaker="Maya", text="My son Leo starts school in September."),
             Line(id="a1", at=AT + timedelta(minutes=1), role="assistant", text="How exciting! How old is he?"),
             Line(id="u2", at=AT + timedelta(minutes=2), role="user", speaker="Maya", text="Five.")]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    assert ("Leo is five years old.", ["u2"]) in [(f.text, f.source_ids) for f in facts]
    leo = [c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts if c.name == "Leo"]
    assert leo and leo[0].details.get("age") == "five"


@pytest.mark.parametrize(("question", "reply", "statement"), [
    ("Pip is your dog, right?", "Yes, a beagle.", "Pip is my dog."),
    ("Noted. You are vegetarian, correct?", "Yep!", "I am vegetarian."),
    ("Your sister lives in Lyon, right?", "Yes.", "My sister lives in Lyon."),
    ("You work at Acme, right?", "Yes but not for long.", "I work at Acme."),  # a yes with a but: still a yes
    ("You work at Acme, right?", "Yes, not anymore.", None),  # a yes taken back
    ("You like jazz, right?", "No, not really.", None),
    ("Is Pip your dog?", "Yes.", None),  # asked, not stated
    ("The meeting is at 3, right?", "Yes.", None),  # not about "you"
    ("Do you still work at Nordlys?", "Yes, but I'm remote on Fridays.", "I still work at Nordlys."),
    ("Have you noticed any positive changes?", "Yes, a few!", "I have noticed some positive changes."),
    ("Are you vegetarian?", "Yep.", "I am vegetarian."),
    ("Do you want me to book it?", "Yes.", None),  # an offer (tasks.py), no statement
    ("Did you finish?", "Yes.", None),  # its tense is not the statement's
])
def test_a_statement_about_you_asked_to_be_confirmed_and_a_yes_is_the_repliers(question, reply, statement):
    assert confirmed_statement(question, reply) == statement


def _agent_asks(question: str, reply: str) -> list[tuple[str, list[str]]]:
    """The facts of the agent's `question` and Maya's `reply` a minute later, with their sources."""
    lines = [Line(id="a1", at=AT, role="assistant", text=question),
             Line(id="u1", at=AT + timedelta(minutes=1), role="user", speaker="Maya", text=reply)]
    request = FactExtractionRequest(scope="s", messages=lines, neighbours=[])
    return [(f.text, f.source_ids) for f in MODEL.extract_facts(request).facts]


@pytest.mark.parametrize(("question", "reply", "facts"), [
    ("Pip is your dog, right?", "Yes, a beagle.", [("Maya has a dog named Pip.", ["u1"])]),
    ("When do you leave for Lisbon?", "Next Monday.", [("Maya leaves for Lisbon (2023-05-08).", ["u1"])]),
    ("How many kids do you have?", "Two.", [("Maya has two kids (2023-05-07).", ["u1"])]),
    ("Good luck! What's the role again?", "UX researcher at Farfetch.",
     [("Maya works as UX researcher.", ["u1"]), ("Maya works at Farfetch.", ["u1"])]),
])
def test_a_reply_to_the_agents_question_gives_the_fact_it_implies(question, reply, facts):
    assert _agent_asks(question, reply) == facts


def test_a_confirmation_adds_to_what_the_reply_says_itself():
    """"Yes, but I'm remote on Fridays" says something of its own; the yes still confirms the employer."""
    assert ("Maya works at Nordlys.", ["u1"]) in _agent_asks("Do you still work at Nordlys?",
                                                             "Yes, but I'm remote on Fridays.")


def test_a_hedged_fragment_is_read_by_its_question_not_kept_as_said():
    """"Mostly Thai and Japanese." names things, so it was kept as "Maya said: Mostly Thai and
    Japanese"; the question says what it answers, and "mostly" hedges the answer."""
    lines = [Line(id="a1", at=AT, role="assistant", speaker=None, text="What kind of food do you like?"),
             Line(id="u1", at=AT, role="user", speaker="Maya", text="Mostly Thai and Japanese.")]
    assert fact_texts(lines) == ["Maya likes Thai and Japanese."]


def test_a_pronoun_in_a_reply_means_the_relative_the_question_asked_about():
    lines = [Line(id="a1", at=AT, role="assistant", speaker=None, text="How old is your son?"),
             Line(id="u1", at=AT, role="user", speaker="Maya", text="He's 7.")]
    assert fact_texts(lines) == ["Maya's son is 7 years old."]


def test_an_address_given_alone_keeps_its_case_and_is_the_detail_asked_for():
    """The email answered was "Maya silva@example.com": the sentence's first letter was capitalised
    and "Maya" read as a name."""
    lines = [Line(id="a", at=AT, role="assistant", speaker=None, text="What's your email?"),
             Line(id="u", at=AT + timedelta(minutes=1), role="user", speaker="Maya", text="maya.silva@example.com")]
    assert fact_texts(lines) == ["Maya's email is maya.silva@example.com."]


@pytest.mark.parametrize(("said", "facts"), [
    ("My passport expires in April, is that a problem?", ["Caroline's passport expires (April 2024)."]),
    ("I started running last week - any tips?", ["Caroline started running (week of 2023-04-24)."]),
    ("When you're in Porto, will you visit Ana?", []),  # no statement before the question
    ("Is your passport still valid, do you know?", []),
])
def test_a_statement_followed_by_a_question_to_the_listener_is_said(said, facts):
    """A question put after a statement ("..., is that a problem?") asks the listener something;
    the statement before it is still news."""
    assert said_by_caroline(said) == facts
