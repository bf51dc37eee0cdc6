"""What the offline extractor keeps as a fact, and how short: rare content over filler, what a
fact adds to the known ones, events over attitudes, trimmed clauses, bounded contact summaries."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from consolidator.contacts.step import SUMMARY_ENTRIES, newest_entries
from consolidator.model.offline import OfflineModel
from consolidator.model.offline.contacts import SUMMARY_WORDS
from consolidator.model.offline.clauses import substance
from consolidator.model.offline.text import acquisitions, activities, destinations
from consolidator.model.offline.words import RARE_ZIPF
from consolidator.model.offline.worth import NAME_WEIGHT, RARE_BASE, is_evaluation, kind_of, new_worth, stems_of, tidy, worth
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest, KnownFact
from tests.support.offline_kit import chat, fact_texts, said_by_caroline

MODEL = OfflineModel()


# --- worth and filler ----------------------------------------------------------------------------


def test_rare_specific_words_outweigh_feelings_and_common_words():
    """A named place, a number or a rare object weighs more than praise, feelings and light verbs."""
    assert worth("went to a pottery workshop in Lisbon") > worth("is so grateful for all the support") + 2
    assert worth("is so happy and excited, thanks so much") == 0
    assert worth("ran 10 miles") > worth("ran miles")


def test_the_speakers_names_weigh_nothing():
    """'Caroline' in a fact about Caroline says nothing new; 'Oliver' does."""
    assert worth("Caroline met Caroline's friends", ("Caroline",)) < worth("Caroline met Oliver", ("Caroline",))


def test_new_worth_counts_only_words_the_known_texts_lack():
    """A clause repeating a stored fact adds nothing; its new detail is what counts."""
    known = stems_of("Maya went to a pottery workshop in Lisbon (2023-05-07).")
    assert new_worth("Maya went to the pottery workshop", known) == 0
    assert new_worth("Maya went to the pottery workshop with Ana", known) > 0


@pytest.mark.parametrize(
    ("clause", "trimmed"),
    [
        ("went to a workshop and it was really enlightening", "went to a workshop"),
        ("ran a charity race - it was fun", "ran a charity race"),
        ("is super proud of the painting", "is proud of the painting"),
        ("is so happy about the new job", "is happy about the new job"),
        ("loves the new studio <3", "loves the new studio"),
        ("went to a workshop and it was about Kafka", "went to a workshop and it was about Kafka"),
    ],
)
def test_intensifiers_emoticons_and_trailing_evaluations_are_trimmed(clause, trimmed):
    """How it felt is cut; what it was about stays."""
    assert tidy(clause) == trimmed


def test_an_evaluation_has_nothing_rare_in_it():
    """'it was so powerful' judges; 'it was a reading of Kafka's letters' describes."""
    assert is_evaluation("it was so powerful")
    assert not is_evaluation("it was a reading of Kafka's letters")


@pytest.mark.parametrize(
    ("predicate", "kind"),
    [
        ("went to Rome last week", "event"),
        ("is taking a cooking class", "event"),
        ("was hit by a flood in March", "event"),
        ("has finished their screenplay", "event"),
        ("is grateful for the support", "attitude"),
        ("will keep pushing", "attitude"),
        ("can make a real difference", "attitude"),
        ("wants to savor the good vibes", "attitude"),
        ("mentors a transgender teen", "state"),
        ("is a Weight Watchers coach", "state"),
        ("is off to go swimming with the kids", "event"),
        ("loves going hiking", "attitude"),
        ("is staying hopeful", "attitude"),  # a stance kept...
        ("stays determined and focused", "attitude"),
        ("is staying in Lisbon", "event"),  # ...not a stay somewhere
        ("kept a diary of the sailing trip", "event"),
        ("felt liberated after the race", "attitude"),  # past forms of feeling and belief
        ("thought it would help the shop grow", "attitude"),
        ("bet they bring lots of joy", "attitude"),
        ("is trying to cut down on sugar", "event"),  # an effort under way, as a goal is...
        ("is trying to learn Spanish", "event"),
        ("is trying to stay upbeat", "attitude"),  # ...not a stance kept
        ("is trying to be patient with the kids", "attitude"),
        ("is trying hard", "attitude"),
    ],
)
def test_kinds_of_predicate(predicate, kind):
    """What happened, a stance or intention, or a standing state."""
    assert kind_of(predicate) == kind


def test_a_pastime_named_by_go_weighs_as_a_name():
    """"went swimming": the -ing form after "go" names what someone does, however common the
    word; "went according to plan" names nothing."""
    assert activities("We went biking, then I'm going swimming. Things go according to plan.") == {"biking", "swimming"}
    assert activities("The cat went missing.") == frozenset()
    assert worth("went swimming") == worth("went to Lisbon") > worth("went to swim")
    assert worth("went according to plan") < worth("went swimming")


# --- what the extractor keeps --------------------------------------------------------------------


def test_where_someone_went_weighs_as_a_place_name():
    """The head of "went to the ..." / "took the kids to the ..." names a place, however common
    its word ("fair"); the day's routine ("went to bed") and "going to <verb>" name none."""
    assert destinations("We went to a street fair recently and have been to the new art gallery") == {
        "street fair", "new art gallery"}
    assert destinations("I went to bed early. I'm going to try that. I went back to work.") == frozenset()
    assert worth("went to the fair") == worth("went to Lisbon") > worth("saw the fair")
    assert substance("went to Boston") == 2 and substance("went to a support group") == 3  # clauses.substance


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I'm off to go swimming with the kids. Talk to you soon!",
         "Caroline is off to go swimming with the kids (2023-05-07)."),
        ("Yesterday we went camping.", "Caroline went camping (2023-05-06)."),
        ("Oh yeah, we went to the beach last weekend. It was awesome!", "Caroline went to the beach (2023-04-29)."),
        ("Yesterday I took the kids to the zoo - they loved it!", "Caroline took the kids to the zoo (2023-05-06)."),
    ],
)
def test_a_pastime_or_a_visit_is_a_fact_though_its_word_is_common(said, fact):
    """Before, "swimming", "camping" and "beach" were too common to give a fact a worth of its own."""
    assert fact in said_by_caroline(said)


def test_a_number_in_words_before_what_it_counts_weighs_as_a_number():
    """"has two kids" is what "how many" asks; "two weeks ago" counts time, a date's business."""
    assert worth("Maya has two kids") == worth("Maya has 2 kids") > worth("Maya has kids") + 2
    assert worth("went two weeks ago") == worth("went weeks ago")


def test_a_thing_someone_got_new_weighs_as_a_name_though_its_word_is_common():
    """"shoes" alone weighs too little for a fact; a thing got new is news. The causative get
    ("got some new offers going") and a get without "new" ("got some rest") name nothing."""
    assert acquisitions("Just got some new shoes, too!") == {"shoes"}
    assert acquisitions("I bought myself a brand-new bike today") == {"bike"}
    assert acquisitions("I got some rest. We got some new offers and promotions going on the store.") == frozenset()
    assert "Caroline got some new shoes (2023-05-07)." in said_by_caroline("Pip is so playful! Just got some new shoes, too!")


@pytest.mark.parametrize(("said", "fact"), [
    ("I graduated last month!", "Caroline graduated (April 2023)."),
    ("We had a baby girl last week.", "Caroline had a baby girl (week of 2023-04-24)."),
    ("My grandpa passed away last week.", "Caroline's grandpa passed away (week of 2023-04-24)."),
    ("I started a new job yesterday.", "Caroline started a new job (2023-05-06)."),
    ("My best friend Sofia just had twins!", "Sofia had twins (2023-05-07)."),
    ("My mother moved in with us last week.", "Caroline's mother moved in with Caroline (week of 2023-04-24)."),
    ("I've decided to go back to university part-time.", "Caroline has decided to go back to university part-time (2023-05-07)."),
    ("Oh, and I got promoted last week, did I tell you?", "Caroline got promoted (week of 2023-04-24)."),  # no "to": no job
    ("We bought a house last week.", "Caroline bought a house (week of 2023-04-24)."),
])
def test_a_life_event_is_a_fact_though_its_words_are_common(said, fact):
    """Each gave no fact: "graduated", "baby", "passed away" weighed too little for a clause's worth."""
    assert fact in said_by_caroline(said)


@pytest.mark.parametrize("said", ["Things went according to plan, all good.", "I went to bed early last night."])
def test_a_go_without_a_pastime_or_a_place_gives_no_fact(said):
    assert said_by_caroline(said) == []


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I went to a pottery workshop and it was so much fun.", "Caroline went to a pottery workshop (2023-05-07)."),
        ("I made my own pots, it was fun and therapeutic.", "Caroline made their own pots (2023-05-07)."),
        ("I ran a charity race for mental health last Saturday – it was really rewarding.",
         "Caroline ran a charity race for mental health (2023-05-06)."),
    ],
)
def test_a_trailing_evaluation_and_what_continues_it_leave_the_fact(said, fact):
    """'..., it was fun and therapeutic' is cut whole, not left as '... and therapeutic'."""
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Took a short trip to Rome last week.", "Caroline took a short trip to Rome (week of 2023-04-24)."),
        ("Started hitting the gym last week.", "Caroline started hitting the gym (week of 2023-04-24)."),
        ("Been practicing salsa routines with my sister.",
         "Caroline has been practicing salsa routines with their sister (2023-05-07)."),
        ("Just moved to Lisbon.", "Caroline lives in Lisbon."),  # "moved to" is going, not "so moved"
        ("Headed to the coast for a sailing weekend.",
         "Caroline headed to the coast for a sailing weekend (2023-05-07)."),
        ("Gonna try the grilled octopus in Lisbon next week.",
         "Caroline is going to try the grilled octopus in Lisbon (week of 2023-05-08)."),
        ("Gotta finish the aquarium tank before Friday.",
         "Caroline has to finish the aquarium tank before Friday (2023-05-12) (2023-05-07)."),  # a deadline, ahead
        ("Wanna learn to sail someday.", "Caroline wants to learn to sail someday (2023-05-07)."),
    ],
)
def test_a_sentence_that_drops_its_i_gets_the_speaker_as_subject(said, fact):
    """Chat drops the 'I': the fact names the speaker instead of quoting them."""
    assert said_by_caroline(said) == [fact]


@pytest.mark.parametrize("said", ["Excited to show you my new painting of a lake!",
                                  "So moved by the letter my grandmother wrote."])
def test_a_word_of_feeling_opening_a_sentence_gives_no_dropped_i_fact(said):
    """'moved' is going only before "to": 'So moved by ...' is a feeling, no fact about Caroline."""
    assert not any(t.startswith("Caroline moved") or t.startswith("Caroline excited") for t in said_by_caroline(said))


def test_a_word_of_feeling_at_the_start_is_not_a_dropped_i():
    """'Excited to show you my painting!' never becomes 'Caroline excited to ...'."""
    texts = said_by_caroline("Excited to show you my new painting of a lake!")
    assert not any(t.startswith("Caroline excited") for t in texts)


@pytest.mark.parametrize(
    "said",
    ["Let's keep chasing our dreams together and supporting each other!", "Keep up the great work with the studio!",
     "Remember that stumbling blocks can be opened doors."],
)
def test_advice_to_the_other_person_gives_no_fact(said):
    """Advice and cheering are said to someone, about no one."""
    assert said_by_caroline(said) == []


def test_a_quote_that_opens_with_the_speakers_possessive_needs_no_said():
    """'My own journey and the support I got made a difference' is about Caroline already."""
    texts = said_by_caroline("My own journey and the support I got from my Swedish grandma made a huge difference.")
    assert texts and texts[0].startswith("Caroline's own journey") and "said:" not in texts[0]


def test_a_clause_cut_at_cause_is_two_clauses():
    """"'cause" joins two statements as "because" does: the reason never swallows the event."""
    texts = said_by_caroline("I chose the Lisbon agency 'cause they help LGBTQ+ folks with adoption.")
    assert texts and texts[0] == "Caroline chose the Lisbon agency (2023-05-07)."


def test_a_photo_caption_never_joins_a_fact():
    """A photo's caption is an annotation: none of its words reach a fact."""
    texts = said_by_caroline("This island is where I grew up in Sweden.", "a boat on a lake")
    assert texts and not any("boat" in t or "photo" in t for t in texts)


def test_a_repeat_of_a_known_fact_is_not_kept_but_a_new_detail_is():
    """The neighbours already say it: only the clause with something new becomes a fact."""
    known = [KnownFact(id="f1", text="Caroline went to a pottery workshop in Lisbon (2023-05-01).", similarity=0.8)]
    lines = chat(("Caroline", "I went to the pottery workshop in Lisbon again."),
                 ("Caroline", "I bought a blue ceramic vase from Giulia at the workshop."))
    texts = fact_texts(lines, neighbours=known)
    assert texts == ["Caroline bought a blue ceramic vase from Giulia at the workshop (2023-05-07)."]


def test_events_need_less_than_attitudes():
    """'went camping in the Rockies' is kept; 'will keep pushing to make our dreams come true' is not."""
    assert said_by_caroline("We went camping in the Rockies.") == ["Caroline went camping in the Rockies (2023-05-07)."]
    assert said_by_caroline("I will keep pushing to make my dreams come true!") == []


def test_an_attitude_that_is_kept_ranks_below_an_event():
    """A kept feeling or intention gets a lower importance than what happened."""
    lines = chat(("Caroline", "I will open a dance studio in Porto with my cousin Ana next spring."),
                 ("Caroline", "I adopted a pup from a shelter in Ohio."))
    request = FactExtractionRequest(scope="s", messages=lines, neighbours=[])
    by_text = {f.text: f.importance for f in MODEL.extract_facts(request).facts}
    hope = next(i for t, i in by_text.items() if "Porto" in t)
    pup = next(i for t, i in by_text.items() if "pup" in t)
    assert hope < pup


@pytest.mark.parametrize(
    ("said", "bad"),
    [("I wanna open a dance studio in Porto.", "wannas"), ("Ugh, I hit a snag - my new Prius broke down.", "mys"),
     ("I learnt to play the cello at the conservatory.", "learnts")],
)
def test_informal_and_irregular_verbs_are_not_inflected_wrongly(said, bad):
    """'wanna' reads 'wants to'; a possessive or 'learnt' never takes an -s."""
    assert not any(bad in t for t in said_by_caroline(said))


# --- contacts ------------------------------------------------------------------------------------


def test_a_contacts_batch_summary_is_one_third_person_line():
    """The batch's summary of a person is their most telling claim, not their raw sentences."""
    lines = chat(("Caroline", "I went to a pottery workshop in Lisbon. It was so much fun. I love you all!"),
                 ("Melanie", "Wow!"))
    reply = MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[]))
    caroline = next(c for c in reply.contacts if c.name == "Caroline")
    assert caroline.summary == "Caroline went to a pottery workshop in Lisbon."
    assert len(caroline.summary.split()) <= SUMMARY_WORDS


def test_a_running_summary_keeps_its_newest_entries_whole():
    """Older dated entries leave whole: no entry is cut mid-sentence."""
    day = datetime(2025, 3, 3, tzinfo=timezone.utc)
    entries = [f"{(day + timedelta(days=i)).date()}: Ana did thing {i}." for i in range(SUMMARY_ENTRIES + 3)]
    kept = newest_entries("\n".join(entries), SUMMARY_ENTRIES)
    assert kept.split("\n") == entries[-SUMMARY_ENTRIES:]


def test_a_word_as_rare_as_a_name_counts_as_one_in_substance():
    """"tendinitis" (once in millions of English words) is as specific as a name: "it was
    tendinitis" and "Gonna try some ceviche" are statements; a typo wordfreq never saw is not
    a rare word, and a common one ("soup") stays a plain content word."""
    assert RARE_BASE - NAME_WEIGHT == RARE_ZIPF  # the zipf at which worth weighs a word as a name
    assert substance("is going to try some ceviche") == 2 == substance("is going to try some Lisbon")
    assert substance("is going to try some soup") == 1
    assert substance("is going to try some soupp") == 1
    assert said_by_caroline("Gonna try some ceviche!") == ["Caroline is going to try some ceviche (2023-05-07)."]
