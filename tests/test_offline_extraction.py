"""The offline extractor on conversations: events as dated facts, real subjects, possessives,
changes that supersede, contacts that are people, local days (the task rules:
test_offline_tasks.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from sqlalchemy import select

from consolidator.model.offline.text import sentences
from consolidator.model.schemas import (
    BatchRequest,
    ContactsRequest,
    Line,
)
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.memory import Task
from tests.support.facts_kit import facts_of, later, machine, say
from tests.support.offline_kit import LATE, MODEL, UTC, chat, fact_texts, said_by_caroline


# --- events and experiences -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I went to an LGBTQ support group yesterday.", "Caroline went to an LGBTQ support group (2023-05-06)."),
        ("I finally finished my screenplay!", "Caroline finally finished their screenplay (2023-05-07)."),
        ("We adopted a pup from a shelter in Ohio.", "Caroline adopted a pup from a shelter in Ohio (2023-05-07)."),
        ("I recorded a song with my band last week.", "Caroline recorded a song with their band (week of 2023-04-24)."),
        ("I painted a sunset over the lake.", "Caroline painted a sunset over the lake (2023-05-07)."),
        ("Our house was hit by a flood in March.", "Caroline's house was hit by a flood (March 2023)."),
        ("I visited my grandma in Sweden.", "Caroline visited their grandma in Sweden (2023-05-07)."),
        ("I joined a book club at the library.", "Caroline joined a book club at the library (2023-05-07)."),
    ],
)
def test_events_become_dated_third_person_facts(said, fact):
    """A past event, whatever its verb, is one fact: the speaker's name, the whole clause, the day."""
    assert fact in said_by_caroline(said)


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("So happy for you! Inspiring \U0001f4aa I emailed three wholesalers and one replied yes today!",
         "Caroline emailed three wholesalers and one replied yes today (2023-05-07)."),
        ("Thanks! \U0001f389 We adopted a pup from a shelter in Ohio.",
         "Caroline adopted a pup from a shelter in Ohio (2023-05-07)."),
    ],
)
def test_an_emoji_before_a_capital_ends_a_sentence(said, fact):
    """Chat ends a sentence with an emoji: read as part of the next one, "Inspiring \U0001f4aa I emailed ..."
    made no fact and "Thanks! \U0001f389 We adopted ..." was quoted whole, thanks and all."""
    assert said_by_caroline(said) == [fact]


def test_an_emoji_inside_a_sentence_leaves_it_whole():
    """Only a capital after the emoji starts a sentence: "a pup \U0001f436 from a shelter" is one."""
    said = "We adopted a pup \U0001f436 from a shelter in Ohio."
    assert sentences(said) == [said]


def test_a_leading_time_phrase_dates_its_event():
    """'Last Friday, I went ...' said on Sunday 2023-05-07 is dated Friday 2023-05-05, the words gone."""
    assert said_by_caroline("Last Friday, I went to a pottery workshop.") == [
        "Caroline went to a pottery workshop (2023-05-05)."
    ]


@pytest.mark.parametrize(("zone", "day"), [("UTC", "2025-03-03"), ("Europe/Paris", "2025-03-04"),
                                           ("America/New_York", "2025-03-03")])
def test_the_date_is_the_local_day_in_the_scopes_zone(zone, day):
    """23:30 UTC on Monday is already Tuesday in Paris: the fact carries the local day."""
    lines = [Line(id="m", at=LATE, role="user", speaker="Maya", text="I went to a jazz concert in Lyon.")]
    assert fact_texts(lines, zone) == [f"Maya went to a jazz concert in Lyon ({day})."]


# --- when it happened --------------------------------------------------------------------------
# AT is Sunday 2023-05-07 in UTC.


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Last Fri I took my kids to a pottery workshop.", "Caroline took their kids to a pottery workshop (2023-05-05)."),
        ("I ran a 10k two weekends ago.", "Caroline ran a 10k (2023-04-22)."),
        ("I'm having an LGBTQ art show next month.", "Caroline is having an LGBTQ art show (June 2023)."),
        ("I painted that lake sunrise last year.", "Caroline painted that lake sunrise (2022)."),
        ("I finished my screenplay 3 days ago.", "Caroline finished their screenplay (2023-05-04)."),
    ],
)
def test_an_event_is_dated_when_it_happened_not_when_it_was_told(said, fact):
    """One relative date in the clause dates the fact, resolved against the day it was said; its words go."""
    assert fact in said_by_caroline(said)


def test_two_relative_dates_that_disagree_are_written_out_in_place():
    """'yesterday' and 'last week' in one clause: neither dates the fact; both are written out beside their words."""
    (fact,) = said_by_caroline("I booked the ferry to Naxos yesterday for our trip next month.")
    assert fact == "Caroline booked the ferry to Naxos yesterday (2023-05-06) for their trip next month (June 2023) (2023-05-07)."


def test_a_date_that_bounds_a_span_does_not_date_the_event():
    """'since last year' is not when it happened: the words stay, written out, and the day it was said dates it."""
    assert said_by_caroline("I've been learning the piano since last year.") == [
        "Caroline has been learning the piano since last year (2022) (2023-05-07)."]


def test_yesterday_said_after_local_midnight_dates_the_local_day_before():
    """00:30 Tuesday in Paris (Monday 23:30 UTC): 'yesterday' is Monday 2025-03-03 in Paris, Sunday in UTC."""
    lines = [Line(id="m", at=LATE, role="user", speaker="Maya", text="I went to a jazz concert in Lyon yesterday.")]
    assert fact_texts(lines, "Europe/Paris") == ["Maya went to a jazz concert in Lyon (2025-03-03)."]
    assert fact_texts(lines, "UTC") == ["Maya went to a jazz concert in Lyon (2025-03-02)."]


def test_a_rules_fact_has_its_relative_date_written_out():
    """An attribute rule keeps the words it matched; 'yesterday' gets its date beside it."""
    assert "Caroline lost their job as a banker yesterday (2023-05-06)." in said_by_caroline(
        "I lost my job as a banker yesterday.")


def test_a_contacts_summary_keeps_the_date_the_event_happened():
    """The running summary line is the fact, with the event's date, not a bare 'yesterday'."""
    lines = chat(("Caroline", "I went to an LGBTQ support group yesterday."), ("Melanie", "Wow!"))
    contacts = {c.name: c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert contacts["Caroline"].summary == "Caroline went to an LGBTQ support group (2023-05-06)."


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I hope to build my own family.", "Caroline hopes to build their own family."),
        ("I dream of opening a bakery in Lisbon.", "Caroline dreams of opening a bakery in Lisbon."),
        ("I hope for a quiet summer in Maine.", "Caroline hopes for a quiet summer in Maine."),
    ],
)
def test_a_hope_or_a_dream_is_said_with_its_own_words(said, fact):
    """'hope to', 'hope for' and 'dream of' each keep their preposition: never 'hopes to to build'."""
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Haha, I totally ran a marathon in Chicago \U0001f600", "Caroline ran a marathon in Chicago (2023-05-07)."),
        ("Oh wow, you know, the mural in Boston stands for freedom and pride, honestly.",
         "Caroline said: The mural in Boston stands for freedom and pride (2023-05-07)."),
        ("Whoa, Mel, you know, that sign on the cafe door in Boston looks serious!",
         "Caroline said: That sign on the cafe door in Boston looks serious (2023-05-07)."),
    ],
)
def test_a_fact_keeps_no_interjection_marker_emoji_or_name_addressed(said, fact):
    """The fact parser reads the compacted sentence (text_compact): "Whoa", "you know", emoji
    and the name of the person spoken to are how it was said, not what."""
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        ("It was Matt Patterson, he is so talented!", ["Caroline said: It was Matt Patterson (2023-05-07)."]),
        ("That was the Grand Canyon!", ["Caroline said: That was the Grand Canyon (2023-05-07)."]),
        ("He married Lisa.", []),  # who is "he"? no one was named before
        ("Remind me to call Ana!", []),  # a request opens with its verb, not a name
        ("Hey Mel!", []),  # the short form of the listener's name names nobody new
        ("Thanks Mel, appreciate it!", []),
        ("It was great, Melanie!", []),
        ("Ha ha DOING IT", []),  # capitals for emphasis are no name
    ],
)
def test_a_short_answer_that_names_someone_is_kept(said, facts):
    """A few words with a name in them answer "who" ("It was Matt Patterson"), though they have
    too few words for a clause kept in the speaker's name; greetings, thanks and requests are
    no such statement."""
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        ("My dog is called Rex.", ["Caroline has a dog named Rex."]),
        ("My cat's name is Luna.", ["Caroline has a cat named Luna."]),
        ("My sister is named Ana and she lives in Lyon.", ["Ana is Caroline's sister.", "Ana lives in Lyon."]),
    ],
)
def test_a_name_given_to_a_pet_or_relative_is_kept_and_is_who_she_is(said, facts):
    """"is called Rex" names the dog (before: "Caroline has a dog."), and the relative named is
    who a following "she" is."""
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        ("I adopted a puppy named Max last week!", ["Caroline adopted a puppy named Max (week of 2023-04-24)."]),
        ("I rescued a dog yesterday.", ["Caroline rescued a dog (2023-05-06)."]),
        ("We got another cat named Bailey.", ["Caroline got another cat named Bailey."]),  # no date said
    ],
)
def test_a_pet_adopted_is_dated_when_it_was_adopted(said, facts):
    """The pet rule's template keeps no time words; the sentence's one relative date dates it,
    as a plain event is dated."""
    assert said_by_caroline(said) == facts


def test_a_dash_typed_against_its_word_still_separates_clauses():
    """"they're good- we got a cat" is two statements; "self- and peer-review" is one word pair."""
    assert said_by_caroline("Thanks for asking, they're good- we got another cat named Bailey.") == [
        "Caroline got another cat named Bailey."]
    assert said_by_caroline("I signed up for a self- and peer-review course at the library.") == [
        "Caroline signed up for a self- and peer-review course at the library (2023-05-07)."]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Mel, you know, we're moving to Denver next month.", "Caroline is moving to Denver (June 2023)."),
        ("Hi Mel, you know, I adopted a cat last week.", "Caroline adopted a cat (week of 2023-04-24)."),
        ("I went hiking in Utah with Jon and Mel.", "Caroline went hiking in Utah with Jon and Mel (2023-05-07)."),
    ],
)
def test_a_name_addressed_is_set_off_by_a_comma_and_a_companion_is_not(said, fact):
    """'Mel, ...' and 'Hi Mel, ...' speak to Melanie; '... with Jon and Mel' is who came along."""
    assert said_by_caroline(said) == [fact]


def test_a_pet_is_dated_by_its_own_clause_only():
    """'next week' belongs to the job, not to the cat adopted."""
    facts = said_by_caroline("I adopted a cat, and next week I start my new job at Google.")
    assert "Caroline adopted a cat." in facts


@pytest.mark.parametrize("said", ["I'm kinda nervous about the audition in Boston.",
                                  "I'm pretty sure Jon moved to Boston."])
def test_a_hedging_degree_word_stays_in_the_fact(said):
    """'kinda' and 'pretty sure' hedge as 'I think' does: the fact keeps them."""
    assert any(("kinda nervous" in f or "pretty sure" in f) for f in said_by_caroline(said))


def test_a_hedge_stays_in_the_fact():
    """'I guess we'll sell' is a guess: the fact says so, in the third person ('guesses')."""
    assert said_by_caroline("I guess we'll sell the house in Ohio.") == [
        "Caroline guesses they will sell the house in Ohio (2023-05-07)."]


def test_a_statement_with_a_tag_question_is_a_statement():
    """', right?' asks to be agreed with; what comes before it is said, and a rule reads it."""
    assert said_by_caroline("I moved to Boston in March, didn't I?") == ["Caroline lives in Boston."]
    assert said_by_caroline("Did you move to Boston in March?") == []


def test_a_quoted_titles_words_are_a_name_not_a_judgement():
    """'The Great Gatsby' is specific though 'great' is a vague word: the clause has substance."""
    assert said_by_caroline('The novel I\'m reading is "The Great Gatsby".') == [
        'Caroline said: The novel Caroline is reading is "The Great Gatsby" (2023-05-07).']


@pytest.mark.parametrize(
    ("said", "details"),
    [
        ('I loved "Becoming Nicole" by Amy Ellis Nutt.', ['"Becoming Nicole"', "Amy Ellis Nutt"]),
        ("I ran 10 miles in 95 minutes this morning.", ["10 miles", "95 minutes"]),
        ("I bought a painting of a sunset at a market in Lisbon.", ["a painting of a sunset", "market in Lisbon"]),
        ("I'm thinking of working with trans people, helping them accept themselves.",
         ["working with trans people", "helping them accept themselves"]),
    ],
)
def test_details_a_question_asks_for_are_kept(said, details):
    """Titles, names, numbers, places and objects stay in the fact, not a three-word stub."""
    (fact,) = said_by_caroline(said)
    assert all(d in fact for d in details), fact


def test_you_is_the_person_spoken_to():
    """'I love how you paint' said to Melanie is about Melanie, by name."""
    assert said_by_caroline("I love how you use watercolours to paint your lake scenes.") == [
        "Caroline loves how Melanie uses watercolours to paint Melanie's lake scenes (2023-05-07)."
    ]


def test_a_clause_with_no_person_for_subject_is_kept_in_the_speakers_name():
    """'This necklace ... a gift from my grandma' is what Caroline said, with the place kept."""
    (fact,) = said_by_caroline("This necklace is super special to me - a gift from my grandma in my home country, Sweden.")
    assert fact.startswith("Caroline said: This necklace is special to Caroline") and "Sweden" in fact


@pytest.mark.parametrize(
    "said",
    ["I'm so happy for you!", "I know, right?", "I love that!", "That sounds amazing.", "Thanks so much, Mel!",
     "Did you go to the parade last week?", "How does art help you with your journey"],
)
def test_talk_without_substance_and_questions_give_no_fact(said):
    """Feelings, agreement, thanks and questions are not facts."""
    assert said_by_caroline(said) == []


# --- subjects ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    ["Sounds like your event was amazing!", "Unconditional love is so important.", "Wow, that is a lovely painting.",
     "Thanks for the beautiful flowers.", "That was a fun afternoon at the lake.", "Pottery helps me relax after work.",
     "Doctors said everything is fine."],
)
def test_interjections_and_sentence_openers_are_never_subjects(said):
    """Capitalised openers and common nouns never become a fact's subject or a contact."""
    lines = chat(("Caroline", said), ("Melanie", "Wow!"))
    assert all(t.startswith("Caroline") for t in fact_texts(lines))
    reply = MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[]))
    assert sorted(c.name for c in reply.contacts) == ["Caroline", "Melanie"]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Ana called me from Madrid last night.", "Ana called Caroline from Madrid (2023-05-06)."),
        ("Lisbon was hit by a heatwave in June.", "Lisbon was hit by a heatwave (June 2022)."),
    ],
)
def test_names_are_subjects_on_evidence(said, fact):
    """A name doing a people verb, or a proper noun seen mid-sentence in the batch, is a subject."""
    lines = chat(("Caroline", said), ("Melanie", "I have never been to Lisbon."))
    assert fact in fact_texts(lines)


# --- possessives -------------------------------------------------------------------------------


def test_a_possessive_chain_is_read_whole():
    """'Oliver is my mother's cat' is the mother's cat, never 'Oliver is Caroline's mother'."""
    texts = said_by_caroline("Oliver is my mother's cat.")
    assert texts == ["Oliver is Caroline's mother's cat (2023-05-07)."]


def test_a_relatives_name_makes_a_contact_with_the_relation():
    """'My sister's name is Ana': a contact Ana, relation Caroline's sister."""
    lines = chat(("Caroline", "My sister's name is Ana."), ("Melanie", "Nice!"))
    assert "Ana is Caroline's sister." in fact_texts(lines)
    contacts = {c.name: c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert contacts["Ana"].details == {"relation": "Caroline's sister"}


# --- changes that supersede, through the real facts step --------------------------------------

CHANGES = [
    ("I work at Acme.", "I've been hired by Globex.", "Maya works at Globex."),
    ("I work at Acme.", "I got a new job at Globex last month.", "Maya works at Globex."),
    ("I work as a teacher.", "I got a job as a nurse.", "Maya works as a nurse."),
    ("I work as a teacher.", "I was promoted to head teacher.", "Maya was promoted to head teacher."),
    ("I live in London.", "I relocated to Lisbon.", "Maya lives in Lisbon."),
    ("I live in London.", "We just moved into a place in Porto.", "Maya lives in Porto."),
    ("I'm dating Tom.", "We split up.", "Maya split up."),
    ("I'm dating Tom.", "I'm now dating Ana.", "Maya is dating Ana."),
    ("I'm dating Tom.", "I got engaged to Tom!", "Maya is engaged to Tom."),
]


@pytest.mark.slow
@pytest.mark.parametrize(("before", "after", "now"), CHANGES)
def test_a_change_in_other_words_supersedes_the_old_fact(app, before, after, now):
    """A job, home or partner change said in varied words closes the old fact ("updated") for the new one."""
    consolidator, _ = machine(app)
    t0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    say(app, "maya", t0, [before])
    consolidator.drain(later(t0))
    (old,) = facts_of(app)
    t1 = t0 + timedelta(days=7)
    say(app, "maya", t1, [after])
    consolidator.drain(later(t1))
    current = {f.text: f for f in facts_of(app)}
    assert old.text not in current
    assert now in current
    closed = next(f for f in facts_of(app, current=False) if f.id == old.id)
    assert closed.end_reason == "updated" and closed.superseded_by == current[now].id


# --- contacts ----------------------------------------------------------------------------------


def test_contacts_are_people_named_as_people():
    """Speakers, a relative, a greeted friend and a people-verb object are contacts; a place is not."""
    lines = chat(("Maya", "Hey Leo! My friend Ines moved to Paris. I met Sofia Reyes at the gallery."),
                 ("Leo", "Paris is lovely. In March we went to Paris too."))
    names = sorted(c.name for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts)
    assert names == ["Ines", "Leo", "Maya", "Sofia Reyes"]


def test_a_nickname_addressed_to_a_speaker_is_their_alias():
    """'Thanks, Mel!' said to Melanie makes Mel Melanie's alias, not a new contact."""
    lines = chat(("Melanie", "I finished a painting of a lake."), ("Caroline", "Thanks, Mel! It looks great."))
    contacts = {c.name: c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert sorted(contacts) == ["Caroline", "Melanie"] and contacts["Melanie"].aliases == ["Mel"]


# --- through the daemon, with a scope in Paris ---------------------------------------------------


@pytest.mark.slow
def test_the_scopes_zone_reaches_the_model_through_the_batch_call(tmp_path):
    """A Paris scope's batch: the fact is dated and the reminder due on Paris days."""
    app = open_app(Settings(state_dir=tmp_path / "state", model={"provider": "offline"},
                            scopes={"maya": {"timezone": "Europe/Paris"}}))
    try:
        consolidator = build_consolidator(app)
        append_messages(app.engine, [
            NewMessage("maya", LATE, "user", "I went to a jazz concert in Lyon.", speaker="Maya"),
            NewMessage("maya", LATE + timedelta(seconds=5), "user", "Remind me tomorrow to call Ana.", speaker="Maya"),
        ], LATE)
        consolidator.drain(LATE + timedelta(hours=2))
        assert [f.text for f in facts_of(app)] == ["Maya went to a jazz concert in Lyon (2025-03-04)."]
        with reading(app.engine) as session:
            (task,) = session.execute(select(Task).where(Task.scope == "maya")).scalars()
        assert (task.title, task.due) == ("Call Ana", date(2025, 3, 5))
    finally:
        app.close()


def test_batch_requests_pass_their_zone_to_each_part():
    """BatchRequest's timezone reaches the facts, contacts and tasks requests it is made of."""
    request = BatchRequest(scope="s", messages=[], neighbours=[], known_contacts=[], open_tasks=[],
                           timezone="Europe/Paris")
    parts = (request.facts_request(), request.contacts_request(), request.tasks_request())
    assert [p.timezone for p in parts] == ["Europe/Paris"] * 3


@pytest.mark.parametrize(("said", "fact"), [
    ("I have a dentist appointment on Thursday.", "Ana has a dentist appointment (2023-05-11)."),
    ("I am flying to Lisbon on Saturday.", "Ana is flying to Lisbon (2023-05-13)."),
    ("I visited Lisbon on Saturday.", "Ana visited Lisbon (2023-05-06)."),
])
def test_a_fact_said_with_a_bare_weekday_is_dated_by_its_tense(said, fact):
    """Said on Sunday 2023-05-07: what will be is the coming weekday, what was the last one. The
    fact was dated the day it was said, the weekday left in its words ("... on Thursday
    (2023-05-07)"): a date its reader took for the appointment's."""
    assert fact_texts(chat(("Ana", said), ("Tomas", "Nice!"))) == [fact]


@pytest.mark.parametrize(("said", "facts"), [
    ("I started a new job at Acme as a data analyst last Monday.", ["Ana works at Acme.", "Ana works as a data analyst."]),
    ("I work at the hospital as a nurse.", ["Ana works at the hospital.", "Ana works as a nurse."]),
    ("I got a job at Acme as soon as I graduated.", ["Ana works at Acme."]),
])
def test_an_employer_and_the_job_held_there_are_both_kept(said, facts):
    """'at Acme as a data analyst': the employer and the job, where the job was lost to the
    employer's value ending at 'as'; 'as soon as' names no job."""
    assert fact_texts(chat(("Ana", said), ("Tomas", "Congrats!"))) == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("My sister Maya is visiting from Lisbon on Saturday.", ["Maya is Ana's sister.", "Maya is visiting from Lisbon (2023-05-13)."]),
    ("My dog Rex chewed my new shoes yesterday.", ["Ana has a dog named Rex.", "Rex chewed Ana's new shoes (2023-05-06)."]),
])
def test_what_a_named_relative_or_pet_did_is_kept_beside_who_they_are(said, facts):
    """"My sister Maya is visiting ...": the relation was kept and the visit dropped, as if naming
    someone were all the sentence said."""
    assert fact_texts(chat(("Ana", said), ("Tomas", "Nice!"))) == facts


def test_a_place_ends_before_how_long():
    """"moved to Lisbon for two years": the home is Lisbon, not "Lisbon for two years"."""
    assert fact_texts(chat(("Ana", "I moved to Lisbon for two years."), ("Tomas", "Nice!"))) == ["Ana lives in Lisbon."]


@pytest.mark.parametrize(("said", "facts"), [
    # a thing has no home: "moved to Friday" is a new day, ahead, whatever the verb's tense
    ("My dentist appointment moved to Friday.", ["Ana's dentist appointment moved to Friday (2023-05-12) (2023-05-07)."]),
    ("My bowl is cracked.", ["Ana's bowl is cracked (2023-05-07)."]),  # the thing's own words are its substance
    ("My sister moved to Berlin.", ["Ana's sister lives in Berlin."]),  # a relative is no thing: a person's home
])
def test_what_is_said_of_ones_things_is_a_plain_clause_not_a_persons_attribute(said, facts):
    """'My dentist appointment moved to Friday' gave "Ana's dentist appointment lives in Friday."."""
    assert fact_texts(chat(("Ana", said), ("Tomas", "Nice!"))) == facts


def test_a_relative_named_anywhere_is_who_they_are_and_whom_he_means_next():
    """"Dinner with my partner Bruno" names Bruno where he is no subject: he is Ana's partner, and
    the next sentence's "He" is Bruno; a relative who is the subject is not said twice."""
    said = "Dinner with my partner Bruno, probably. He loves sushi."
    facts = fact_texts(chat(("Ana", said), ("Tomas", "Nice!")))
    assert "Bruno is Ana's partner." in facts and "Bruno loves sushi." in facts, facts
    assert "Maya is Ana's sister." in fact_texts(chat(("Ana", "I called my sister Maya."), ("Tomas", "Nice!")))
    subject = fact_texts(chat(("Ana", "My friend Maya Lopez works at Acme."), ("Tomas", "Nice!")))
    assert [t for t in subject if "friend" in t] == ["Maya Lopez is Ana's friend."], subject


@pytest.mark.parametrize("said", ["Add my sister Maya, her number is 555-0142.", "Save my sister Maya's number: 555-0142.",
                                  "My sister Maya's wedding is in June."])
def test_a_relative_is_who_they_are_beside_another_claim_of_them_or_a_possessive(said):
    """A claim of Maya that does not say she is the sister (her number), or the sister named in a
    possessive ("my sister Maya's"), left the relation out."""
    assert "Maya is Ana's sister." in fact_texts(chat(("Ana", said), ("Tomas", "Nice!")))
