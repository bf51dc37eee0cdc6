"""What an agent's user writes, read by the offline extractor: a plan under way with its "I'm"
dropped ("Starting at Acme next month"), a named person's things ("Rui's birthday is ..."), and a
plan called off, which supersedes the plan it ends and nothing else."""

from __future__ import annotations

import pytest

from consolidator.model.offline import OfflineModel
from consolidator.model.offline.restate import correction, restate
from consolidator.model.offline.text import activities
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest, KnownContact, KnownFact, Line
from tests.support.offline_kit import LATE, chat, said_by_caroline, told

MODEL = OfflineModel()


@pytest.mark.parametrize(("said", "facts"), [
    ("Starting at Acme next month as a product manager.", ["Caroline is starting at Acme as a product manager (June 2023)."]),
    ("Heading to Porto tomorrow for the weekend.", ["Caroline is heading to Porto for the weekend (2023-05-08)."]),
    ("Starting a business takes courage.", []),  # a gerund subject: no "I'm" dropped
    ("Moving keeps me busy.", []),
])
def test_a_plan_under_way_with_its_im_dropped(said, facts):
    assert said_by_caroline(said) == facts


def test_a_named_persons_thing_is_theirs():
    """"Rui's birthday is March 3" was "Caroline said: ...": a birthday makes Rui a person."""
    assert said_by_caroline("Rui's birthday is March 3, he'll be 40.") == ["Rui's birthday is March 3 (2023-05-07)."]


def _ops(said: str, known: str) -> list[tuple[str, str | None]]:
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text=said)]
    request = FactExtractionRequest(scope="s", messages=lines, neighbours=[KnownFact(id="f1", text=known, similarity=0.7)])
    return [(f.op, f.target_id) for f in MODEL.extract_facts(request).facts]


@pytest.mark.parametrize("said", [
    "We're not going to Berlin anymore, the conference got cancelled.",
    "I'm not going to Berlin anymore.",
    "The Berlin trip is off.",
    "I cancelled my Berlin trip.",
])
def test_a_plan_called_off_supersedes_the_plan(said):
    assert _ops(said, "Maya is flying to Berlin for a conference (2024-03-14).") == [("UPDATE", "f1")]


@pytest.mark.parametrize(("said", "known"), [
    ("I'm not going to Berlin anymore.", "Maya lived in Berlin (2019)."),  # what happened stays
    ("I don't like Berlin anymore.", "Maya is moving to Berlin in May."),  # a taste ends no plan
    ("The Acme party got cancelled.", "Maya works at Acme."),  # a state is no plan
    ("I'm not going anymore.", "Maya is flying to Berlin for a conference."),  # names nothing it ends
])
def test_an_ending_supersedes_nothing_else(said, known):
    assert all(op == "ADD" for op, _ in _ops(said, known))


def test_a_plan_the_batch_calls_off_is_not_written():
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="I'm flying to Berlin on March 14 for a conference."),
             Line(id="u2", at=LATE, role="user", speaker="Maya", text="Update: I am not going to Berlin anymore, it got cancelled.")]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    assert [(f.text, f.source_ids) for f in facts] == [
        ("Maya is not going to Berlin anymore, it got cancelled (2025-03-03).", ["u2"])]


@pytest.mark.parametrize(("said", "facts"), [
    ("We adopted a rescue dog, her name is Bela.", ["Caroline adopted a rescue dog (2023-05-07).", "Caroline has a dog named Bela."]),
    ("I got a kitten last week. His name is Pip.", ["Caroline got a kitten (week of 2023-04-24).", "Caroline has a kitten named Pip."]),
])
def test_a_pet_got_is_whom_her_name_names(said, facts):
    """"her name is Bela" after "adopted a rescue dog" named the last person spoken of instead."""
    assert said_by_caroline(said) == facts


def _told(said: str) -> tuple[list[str], list[str]]:
    return told(said)


def test_a_standing_rule_told_to_the_agent_is_a_wish_not_a_task():
    assert _told("Please don't schedule anything on Friday afternoons, that's family time.") == (
        ["Maya said: Please do not schedule anything on Friday afternoons (2025-03-03)."], [])
    assert _told("Please never book flights before 8am.") == (["Maya said: Please never book flights before 8am (2025-03-03)."], [])
    assert _told("Please book a table at Luigi's for Friday.")[1] == ["Book a table at Luigi's"]


def test_a_rule_between_two_people_is_advice():
    lines = chat(("Tiago", "Never skip breakfast before a long run."), ("Ines", "Good point, thanks!"))
    assert MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts == []


def test_a_person_leaving_the_company_is_news_about_them():
    """"Tomas is leaving the company in February" gave nothing: "leaving" did not stem as "left"
    does (the irregular past's base was not stemmed), "is" hid the verb, and leaving a job weighed
    as little as "the company"."""
    assert said_by_caroline("Tomas is leaving the company in February, his replacement is Clara.") == [
        "Tomas is leaving the company (February 2024).", "Tomas's replacement is Clara (2023-05-07)."]


def test_an_irregular_past_and_its_other_forms_share_a_stem():
    from consolidator.model.offline.clauses import first_verb
    from consolidator.model.offline.text import stem
    assert stem("left") == stem("leaving") == stem("leave") and stem("made") == stem("making")
    assert first_verb("is leaving the company") == first_verb("has left the company") == stem("leave")
    assert first_verb("is a nurse") != stem("leave")


def test_an_events_own_date_said_for_the_first_time_is_news():
    """"We land in Tokyo on April 4" after "flying to Tokyo" adds a date and little else: the date
    weighs as a number does; said without it, it adds nothing and is not written."""
    known = [KnownFact(id="f1", text="Maya is flying to Tokyo for two weeks.", similarity=0.8)]

    def written(said: str) -> list[str]:
        lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text=said)]
        return [f.text for f in MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=known)).facts]

    assert written("We land in Tokyo on April 4.") == ["Maya lands in Tokyo (2025-04-04)."]
    assert written("We land in Tokyo.") == []


@pytest.mark.parametrize(("said", "facts"), [
    ("Quick one: my flight to Tokyo is JL 042.", ["Caroline's flight to Tokyo is JL 042 (2023-05-07)."]),  # was "said: Quick one: ..."
    ("Big news: I got the job!", ["Caroline got the job (2023-05-07)."]),  # getting a job is a life event
])
def test_a_label_heads_what_follows_and_a_job_got_is_news(said, facts):
    assert said_by_caroline(said) == facts


def test_a_correction_is_a_label():
    assert _told("Sorry, correction: the budget is 150, not 120.")[0] == ["Maya said: The budget is 150, not 120 (2025-03-03)."]


@pytest.mark.parametrize(("said", "facts"), [
    # a list's commas do not end what is liked or planned; its last item is no new statement
    ("I love hiking, swimming, and reading.", ["Caroline loves hiking, swimming, and reading."]),
    ("We're planning to ski, try the local food, and enjoy the views.",
     ["Caroline is planning to ski, try the local food, and enjoy the views."]),
    # a list's last item with a time after it is no new subject ("Braga last summer")
    ("We visited Lisbon, Porto and Braga last summer.", ["Caroline visited Lisbon, Porto and Braga last summer (2023-05-07)."]),
    # what follows the comma states something: the value ends there
    ("I love hiking, it's so relaxing.", ["Caroline loves hiking."]),
    ("I love camping with my family, 'cause nature brings such peace and quiet.", ["Caroline loves camping with their family."]),
    ("I love painting, especially landscapes and portraits.", ["Caroline loves painting."]),
])
def test_a_list_is_one_value(said, facts):
    assert said_by_caroline(said) == facts


def test_tomorrow_leads_a_plan_as_yesterday_leads_an_event():
    assert said_by_caroline("Tomorrow I will buy a bike.") == said_by_caroline("I will buy a bike tomorrow.") != []
    assert said_by_caroline("Tomorrow morning I fly to Madrid.") == ["Caroline flies to Madrid (2023-05-08)."]


@pytest.mark.parametrize(("said", "pastimes"), [
    ("I took up running.", {"running"}),
    ("I got into climbing last year.", {"climbing"}),
    ("I started painting a few years back.", {"painting"}),
    ("We went sailing.", {"sailing"}),
    ("I started looking for a job.", set()),  # what follows the gerund says it is no pastime
    ("I started working at Acme.", set()),
    ("I started doing this a few years back.", set()),
    ("I started crying.", set()),
    ("I started seeing a therapist.", set()),
    ("I started dancing a few years ago.", {"dancing"}),
])
def test_a_pastime_taken_up_is_as_specific_as_a_name(said, pastimes):
    assert activities(said) == pastimes


def test_a_common_pastime_taken_up_is_a_fact():
    assert said_by_caroline("I took up running.") and said_by_caroline("Yesterday morning I ran 10k.")


@pytest.mark.parametrize(("said", "fact"), [
    ("The funeral is on Thursday in Braga.", "Maya said: The funeral is on Thursday (2025-03-06) in Braga (2025-03-03)."),
    ("The new dishwasher leaks again.", "Maya said: The new dishwasher leaks again (2025-03-03)."),
    ("The old boiler died.", "Maya said: The old boiler died (2025-03-03)."),
])
def test_a_things_news_told_to_the_agent_is_kept(said, fact):
    """Told to the agent, a thing's news is the person's life; between two people it is talk, kept
    only with more substance (MIN_SAID)."""
    assert _told(said)[0] == [fact]
    assert said_by_caroline(said) == []


@pytest.mark.parametrize("said", ["Around 20.", "Senior product manager.", "Three times a week, mostly weights.",
                                  "Book it for 8pm for two."])
def test_a_fragment_or_a_request_told_is_no_things_news(said):
    assert _told(said)[0] == []


@pytest.mark.parametrize(("said", "known", "ops"), [
    ("Sorry, correction: the budget is 150, not 120.", "Maya's budget is around 120 euros for the week.",
     [("UPDATE", "f1")]),
    ("My flight is at 9, not 8.", "Maya's flight is at 8 (2025-03-03).", [("UPDATE", "f1")]),
    ("Our budget is 200 now, not 150.", "Maya said: The budget is 150, not 120 (2025-03-01).", [("UPDATE", "f1")]),
    # a thing moved in time: what was said of its time is past
    ("The funeral got moved to Friday.", "Maya said: The funeral is on Thursday (2025-03-06) in Braga (2025-03-03).",
     [("UPDATE", "f1")]),
    ("My dentist appointment was postponed.", "Maya has a dentist appointment at 3pm (2025-03-04).", [("UPDATE", "f1")]),
    # someone moved it: the thing moved (restate.restate)
    ("The dentist moved my appointment to Thursday.", "Maya's dentist appointment is on Tuesday (2025-03-04) (2025-03-03).",
     [("UPDATE", "f1")]),
    ("Ana moved our dinner to Saturday.", "Maya has dinner with Ana on Friday (2025-03-07).", [("UPDATE", "f1")]),
    # an amount changed: what was said of it is past
    ("My rent went up to 950 euros.", "Maya's rent is 900 euros a month (2025-03-01).", [("UPDATE", "f1")]),
    ("My rent went up to 950 euros.", "Maya's landlord is Rui.", [("ADD", None)]),  # another thing
    ("My flight is at 9, not 8.", "Maya's train is at 8 (2025-03-03).", [("ADD", None)]),  # another thing
    # a day corrected in a sentence of any verb; a date written out is its weekday
    ("I have dinner with Ana on Saturday, not Friday.", "Maya has dinner with Ana (2025-03-07).", [("UPDATE", "f1")]),
    ("I have dinner with Ana on Saturday, not Friday.", "Maya has lunch with Rui (2025-03-07).", [("ADD", None)]),
])
def test_a_correction_supersedes_the_value_it_names(said, known, ops):
    assert _ops(said, known) == ops


def test_a_thing_moved_in_time_is_news_however_short():
    assert _told("The funeral got moved to Friday.")[0] == ["Maya said: The funeral got moved to Friday (2025-03-07) (2025-03-03)."]
    assert _told("It got moved to Friday.")[0] == []  # nothing named


def test_a_mood_is_no_value_a_correction_replaces_and_a_move_to_a_place_no_change_of_time():
    assert correction("Maya is happy, not sad.") is None and correction("Maya said: It is 150, not 120.") is None
    assert correction("Maya's family moved to Porto last year.") is None


def test_a_correction_first_in_its_batch_corrects_the_context_line_it_follows():
    """"Sorry, I meant Saturday" opening a batch reads the line before it (the batch's context,
    never a claim of its own) and supersedes the fact that line gave; it said nothing before."""
    dinner = Line(id="c0", at=LATE, role="user", speaker="Maya", text="I have dinner with Ana on Friday.")
    fix = Line(id="u1", at=LATE, role="user", speaker="Maya", text="Sorry, I meant Saturday.")
    known = KnownFact(id="f1", text="Maya has dinner with Ana on Friday (2025-03-03).", similarity=0.7)
    request = FactExtractionRequest(scope="s", messages=[fix], neighbours=[known], context=[dinner])
    assert [(f.op, f.target_id, f.text) for f in MODEL.extract_facts(request).facts] == [
        ("UPDATE", "f1", "Maya has dinner with Ana on Saturday, not Friday (2025-03-03).")]


def test_a_value_the_batch_corrects_is_not_written():
    lines = [Line(id="a1", at=LATE, role="assistant", speaker=None, text="What's your budget?"),
             Line(id="u1", at=LATE, role="user", speaker="Maya", text="Around 120 euros for the week."),
             Line(id="u2", at=LATE, role="user", speaker="Maya", text="Sorry, correction: the budget is 150, not 120.")]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    assert [f.text for f in facts] == ["Maya said: The budget is 150, not 120 (2025-03-03)."]


@pytest.mark.parametrize("said", ["I finally got over my insomnia.", "I no longer have insomnia.",
                                  "I've recovered from insomnia, sleeping great."])
def test_a_condition_got_over_ends_it(said):
    assert _ops(said, "Maya has insomnia.") == [("UPDATE", "f1")]


def test_a_condition_gone_ends_it():
    assert _ops("I stopped taking ibuprofen, the migraines are gone.", "Maya has migraines.") == [
        ("ADD", None), ("UPDATE", "f1")]
    assert _told("The insomnia is over, finally!")[0] == ["Maya no longer has insomnia."]


def test_leave_from_work_is_a_life_event():
    """"on parental leave from January to April" is common words: it fell under novelty's need."""
    assert said_by_caroline("I'm on parental leave from January to April.") == [
        "Caroline is on parental leave from January to April (2023-05-07)."]


@pytest.mark.parametrize(("said", "facts"), [
    # a relative named in a question is whom the she after it means
    ("What's a good gift for my sister? She loves gardening and mystery novels.",
     ["Maya's sister loves gardening and mystery novels."]),
    # a named one's relative set off by commas, as "my therapist, Dr. Costa," is
    ("Rui's mom, Teresa, is visiting from Brazil next week.",
     ["Teresa is Rui's mom.", "Teresa is visiting from Brazil (week of 2025-03-10)."]),
    ("My therapist Dr. Costa says I should rest more.", ["Costa is Maya's therapist."]),  # was also "Dr is ..."
    ("Our dog Max is 12 and has arthritis.",  # a named pet has an age, as a person has
     ["Maya has a dog named Max.", "Max is 12 years old.", "Max has arthritis."]),
])
def test_whom_a_line_speaks_of(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("In two weeks we fly to Tokyo.", ["Maya flies to Tokyo (2025-03-17)."]),  # was nothing
    ("The day after tomorrow I have a job interview at Initech.",  # was "Maya said: Maya has ..."
     ["Maya has a job interview at Initech (2025-03-05)."]),
    ("My sister's wedding was last Saturday, it was beautiful.",  # its own date kept in place is news
     ["Maya's sister's wedding was last Saturday (2025-03-01) (2025-03-03)."]),
    ("I learned Spanish in 2 years.", ["Maya learned Spanish in 2 years (2025-03-03)."]),  # a duration, no date
    # "Dr." ends no clause: the tense before it still places the day ("have a follow-up": ahead)
    ("I have a follow-up with Dr. Reis on the 18th at 10:30.", ["Maya has a follow-up with Dr. Reis at 10:30 (2025-03-18)."]),
])
def test_a_time_ahead_and_a_date_kept_in_place(said, facts):
    assert _told(said)[0] == facts


def test_how_the_agent_should_work_is_a_standing_wish_not_a_task():
    """"your answers" told to the agent are the assistant's; "always ..." opened a task."""
    assert _told("Please keep your answers short.") == (["Maya said: Please keep the assistant's answers short (2025-03-03)."], [])
    assert _told("Please always reply in Portuguese.") == (["Maya said: Please always reply in Portuguese (2025-03-03)."], [])
    assert _told("Please send your report to Ana.")[0] == []  # an errand, not how the agent works


def test_pronouns_are_a_persons_detail():
    assert _told("My pronouns are she/her.")[0] == ["Maya's pronouns are she/her."]
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="My friend Lia is visiting. Their pronouns are they/them.")]
    (lia,) = [c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts
              if c.name == "Lia"]
    assert lia.details["pronouns"] == "they/them"


@pytest.mark.parametrize(("said", "facts"), [
    # a weekday said as a habit is no name: "Tuesdays at 6" was a fact of its own
    ("Leo starts swimming lessons in January, Tuesdays at 6.", ["Leo starts swimming lessons, Tuesdays at 6 (January 2026)."]),
    # a move in is a timetable's present, as "starts on Monday" is: the date ahead
    ("We bought a house in Matosinhos! We move in on March 1st.", ["Maya lives in Matosinhos.", "Maya moves in (2026-03-01)."]),
    ("Our cleaner Rosa comes every Thursday morning.", ["Rosa is Maya's cleaner."]),  # whom one knows by their role
])
def test_a_households_week(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize("said", ["Rui and I are separated now.", "I am divorced from Rui."])
def test_a_separation_ends_the_partner(said):
    """"Rui and I are separated now" gave nothing ("are separated" was no reciprocal verb)."""
    assert _ops(said, "Maya is married to Rui.") == [("UPDATE", "f1")]


@pytest.mark.parametrize(("said", "facts"), [
    ("I've been having migraines lately.", ["Maya has migraines."]),  # a condition however it is said
    ("I was diagnosed with ADHD last year.", ["Maya was diagnosed with ADHD (2024)."]),  # dated: an event
    ("I've been dealing with insomnia.", ["Maya has insomnia."]),
    ("I'm at Globex now as a product lead.", ["Maya works at Globex.", "Maya works as a product lead."]),  # was an event
])
def test_a_condition_and_a_job_however_said(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    # news ahead is a life event as much as news done: each gave nothing
    ("We're having a baby in May!", ["Maya is having a baby (May 2025)."]),
    ("My sister is having twins.", ["Maya's sister is having twins (2025-03-03)."]),
    ("We're getting married in June.", ["Maya is getting married (June 2025)."]),
    ("I'm starting a new job on Monday.", ["Maya is starting a new job (2025-03-10)."]),
    ("My mom is in the hospital.", ["Maya's mom is in the hospital (2025-03-03)."]),
    ("The party was about getting married young.", []),  # a wedding talked of is none
    ("My sister moved back in with my parents.", ["Maya's sister moved back in with Maya's parents (2025-03-03)."]),
    ("Rui proposed last night and I said yes!", ["Maya is engaged to Rui."]),  # the proposal and its yes
    ("Tiago proposed a new plan and I said yes.", ["Tiago proposed a new plan (2025-03-03)."]),  # a plan, no ring
])
def test_life_news_ahead(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    # a parent called by their home name is the speaker's own: each gave nothing or "Maya said: ..."
    ("Mom is visiting next week.", ["Maya's mom is visiting (week of 2025-03-10)."]),
    ("Dad had a heart attack last night.", ["Maya's dad had a heart attack (2025-03-02)."]),
    ("Grandma turned 90 yesterday.", ["Maya's grandma is 90 years old."]),
    ("Thanks, Mom!", []),  # addressed, not spoken of
    ("Mom, where are you?", []),
])
def test_a_parent_called_by_their_home_name(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    # the sentence after one that ends on a thing unsaid says what it was: one fact
    ("I had a frustrating issue at the bank. The card machines were all broken.",
     ["Caroline had a frustrating issue at the bank: the card machines were all broken (2023-05-07)."]),
    ("I had a frustrating issue at the bank. Can you believe it?", ["Caroline had a frustrating issue at the bank (2023-05-07)."]),
    ("I have some news! My sister Ana is pregnant.", ["Ana is Caroline's sister.", "Ana is pregnant."]),  # a person's own news
])
def test_a_thing_unsaid_takes_the_sentence_that_says_it(said, facts):
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("Don't book me anything before 10.", ["Maya said: Do not book Maya anything before 10 (2025-03-03)."]),  # was a question
    # a wish after a comma is a clause of its own: it was cut, or read as the first clause's end
    ("I hate mornings, so please never book me anything before 10.",
     ["Maya hates mornings.", "Maya said: Please never book Maya anything before 10 (2025-03-03)."]),
    ("I prefer morning meetings, never after 4pm.", ["Maya prefers morning meetings, never after 4pm (2025-03-03)."]),
    ("Don't let me forget the dentist on Friday.", []),  # a reminder asked for: a task, no wish
])
def test_a_standing_wish_however_it_opens(said, facts):
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    # a sibling's place tells two apart; each gave no relation (and no contact)
    ("My older brother Tiago lives in Porto.", ["Tiago is Maya's older brother.", "Tiago lives in Porto."]),
    ("My older brother lives in Porto. My younger brother lives in Lisbon.",
     ["Maya's older brother lives in Porto.", "Maya's younger brother lives in Lisbon."]),  # two people, no update
    ("Ana is my new boss, she started on Monday.", ["Ana is Maya's boss."]),  # "new" is the day's, not the relation's
])
def test_a_relation_said_with_a_word_before_it(said, facts):
    assert _told(said)[0] == facts
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text=said)]
    contacts = {c.name: c.details for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert all(contacts[f.split(" is ")[0]]["relation"] == f.split(" is ")[1].rstrip(".") for f in facts if " is Maya's " in f)


@pytest.mark.parametrize(("said", "facts"), [
    ("I have the flu.", ["Maya has the flu (2025-03-03)."]),  # an illness of the day: news, not a condition
    ("I caught a bad cold last week.", ["Maya caught a bad cold (week of 2025-02-24)."]),
    ("My goal this year is to run a marathon.", ["Maya's goal this year is to run a marathon (2025-03-03)."]),  # a plan
    ("The key is to stay positive.", []),  # a thing's "is to": advice, no plan of anyone's
    # a name with no verb after it starts no clause: it was "Rui on Saturday at 8, at Tasca do Chico"
    ("Dinner with Ana and Rui on Saturday at 8.", ["Maya said: Dinner with Ana and Rui on Saturday at 8 (2025-03-03)."]),
])
def test_illness_goals_and_notes(said, facts):
    assert _told(said)[0] == facts


def test_one_of_a_group_is_a_person():
    """"Ana from work" is someone (a place would be "in"); the clause was nothing or "Maya said: ..."."""
    assert _told("Ana from work invited me to her wedding in June.")[0] == [
        "Ana from work invited Maya to her wedding (June 2024)."]
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="Joana from accounting is helping with the budget.")]
    names = [c.name for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts]
    assert "Joana" in names and _told("Greetings from Lisbon.")[0] == []


@pytest.mark.parametrize(("said", "facts"), [
    ("I'm trying to cut down on sugar.", ["Maya is trying to cut down on sugar (2025-03-03)."]),
    ("I'm trying to quit smoking.", ["Maya is trying to quit smoking (2025-03-03)."]),
    ("I'm trying to stay positive.", []),
])
def test_an_effort_under_way_is_news_a_stance_kept_is_not(said, facts):
    """"I'm trying to cut down on sugar" weighed as a feeling and gave nothing."""
    assert _told(said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("My flight to Lisbon is on Friday.", ["Maya's flight to Lisbon is on Friday (2025-03-07) (2025-03-03)."]),
    ("The funeral is on Thursday.", ["Maya said: The funeral is on Thursday (2025-03-06) (2025-03-03)."]),
    ("I have a meeting tomorrow.", ["Maya has a meeting (2025-03-04)."]),
    ("Tomorrow is my last day at Acme.", ["Maya said: Tomorrow (2025-03-04) is Maya's last day at Acme (2025-03-03)."]),
    ("The party was on Friday.", []),  # a day gone is no plan
    ("Call the plumber tomorrow about the leak.", []),  # a request: the task's, not a fact
])
def test_a_day_ahead_is_as_specific_as_a_name(said, facts):
    """What is on a day ahead is what an agent plans around: "My flight is on Friday" weighed only
    "flight" and gave nothing. Between two people it is still talk (MIN_SAID)."""
    assert _told(said)[0] == facts
    assert said_by_caroline("The party is on Friday.") == []


@pytest.mark.parametrize(("said", "restated"), [
    ("The dentist moved my appointment to Thursday.", "My appointment was moved to Thursday by the dentist."),
    ("Ana moved our dinner to Saturday.", "Our dinner was moved to Saturday by Ana."),
    ("They postponed the wedding until June.", "The wedding was moved until June."),  # a pronoun names no one
    ("The company moved the office to Porto.", "The company moved the office to Porto."),  # a place: no time moved
    ("Move the dentist to Thursday December 10.", "My dentist was moved to Thursday December 10."),  # asked: theirs
    ("We have to postpone the move to March.", "My move was moved to March."),
    ("Can you push the call with Rui to Friday?", "My call with Rui was moved to Friday."),
])
def test_a_thing_someone_moved_is_said_as_the_thing_moved(said, restated):
    assert restate(said) == restated


def test_a_changed_number_is_the_new_number():
    """"Ana changed her number, it's 555-0199 now" left her old number current."""
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="Ana's number is 555-0101."),
             Line(id="u2", at=LATE, role="user", speaker="Maya", text="Ana changed her number, it's 555-0199 now."),
             Line(id="u3", at=LATE, role="user", speaker="Maya", text="My sister Ines is visiting. She got a new number, it is 555-0100.")]
    contacts = {c.name: c.details for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert contacts["Ana"]["phone"] == "555-0199" and contacts["Ines"]["phone"] == "555-0100", contacts


@pytest.mark.parametrize(("said", "employer"), [
    ("I left Acme last week.", None), ("I quit Acme.", None), ("I quit my job at Acme.", None),
    ("I quit smoking last year.", "Acme"),  # a habit ended, not the job
])
def test_leaving_the_employer_said_in_the_same_batch_ends_it(said, employer):
    """"I quit Acme" was a habit given up, and "I left Acme" after "I work at Acme" in one batch
    ended a partner no one had: the employer stayed."""
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="I work at Acme as a designer."),
             Line(id="u2", at=LATE, role="user", speaker="Maya", text=said)]
    maya = next(c for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts if c.name == "Maya")
    assert maya.details.get("employer") == employer and maya.details.get("job") == "a designer", maya.details


@pytest.mark.parametrize("said", ["I broke up with my boyfriend Bruno.", "Bruno and I broke up last month."])
def test_a_partner_after_a_breakup_is_an_ex(said):
    """Bruno stayed "Maya's boyfriend" after "Bruno and I broke up" (known from an earlier batch,
    or said in the same sentence); a breakup names no one else ("I left Acme" makes no contact)."""
    known = [KnownContact(name="Bruno", details={"relation": "Maya's boyfriend"}, biography="")]
    for people in (known, []):
        lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text=said)]
        if not people:
            lines.insert(0, Line(id="u0", at=LATE, role="user", speaker="Maya", text="My boyfriend Bruno is lovely."))
        contacts = {c.name: c.details for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=people)).contacts}
        assert contacts["Bruno"]["relation"] == "Maya's ex-boyfriend", (people, contacts)
    lines = [Line(id="u1", at=LATE, role="user", speaker="Maya", text="I left Acme.")]
    assert [c.name for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=known)).contacts] == ["Maya"]
