"""Who people are to the speaker, as an agent's user says it: relatives and the people one knows by
their role ("my therapist Leo Costa", "my ex"), a name said after the relation ("My boss is Joana"),
titles ("Dr. Costa"), two who did something together ("Ana and I went ...", "Rui and his wife"), and
how to reach someone (a phone number, an email, an address)."""

from __future__ import annotations

import pytest

from consolidator.model.offline import OfflineModel
from consolidator.model.offline.text import sentences
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest, KnownFact
from tests.support.offline_kit import chat, fact_texts, said_by_caroline

MODEL = OfflineModel()


@pytest.mark.parametrize(("said", "facts"), [
    ("My therapist Leo Costa is great.", ["Leo Costa is Caroline's therapist."]),
    ("My ex-wife Ana lives in Porto.", ["Ana is Caroline's ex-wife.", "Ana lives in Porto."]),
    ("My boss is Joana.", ["Joana is Caroline's boss."]),  # a rare word: a name
    ("My new manager is Rui Silva.", ["Rui Silva is Caroline's manager."]),  # a full name
    ("My doctor is Dr. Leo Costa.", ["Leo Costa is Caroline's doctor."]),  # a title
    ("My therapist, Dr. Costa, says I should rest more.", ["Costa is Caroline's therapist."]),
    # each gave no relation: a place after the name, a future "will be", a name set off at the sentence's end
    ("My dentist is Dr. Helena Sousa at Clinica Sorriso.", ["Helena Sousa is Caroline's dentist."]),
    ("My new manager will be Jonas Weber.", ["Jonas Weber is Caroline's manager."]),
    ("New landlady is Mrs. Pires.", ["Pires is Caroline's landlady."]),  # a note with its "my" dropped
    ("I had lunch with my accountant, Sofia Reis.",
     ["Caroline had lunch with their accountant Sofia Reis (2023-05-07).", "Sofia Reis is Caroline's accountant."]),
])
def test_a_relative_or_someone_known_by_role_is_named(said, facts):
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize("said", ["My husband is French.", "My sister is Catholic.", "My boss is German."])
def test_a_word_that_says_what_someone_is_is_no_name(said):
    """Nationalities and faiths are as common as first names: only a rare word, a full name, a
    title or the batch's evidence makes "my X is Y" a name."""
    assert not any(" is Caroline's " in f for f in said_by_caroline(said))


def test_a_title_ends_no_sentence():
    assert sentences("I see Dr. Costa every other Thursday. Mrs. Silva too.") == [
        "I see Dr. Costa every other Thursday.", "Mrs. Silva too."]


@pytest.mark.parametrize(("said", "facts"), [
    ("Ana and I baked a huge chocolate cake for the party.",
     ["Caroline and Ana baked a huge chocolate cake for the party (2023-05-07)."]),
    ("Ana and I went to Lisbon last week.", ["Caroline and Ana went to Lisbon (week of 2023-04-24)."]),
    # what two do with each other: the other is whom the speaker did it with
    ("Me and Rui got engaged!", ["Caroline is engaged to Rui."]),
    ("Ana and I broke up last month.", ["Caroline broke up with Ana last month (April 2023)."]),
    ("I went home and I slept for ten hours.", ["Caroline slept for ten hours (2023-05-07)."]),  # two clauses still
])
def test_someone_and_i_is_one_subject(said, facts):
    assert said_by_caroline(said) == facts


def test_a_discourse_opener_leaves_the_statement():
    assert said_by_caroline("By the way I am allergic to shellfish.") == ["Caroline is allergic to shellfish."]
    assert said_by_caroline("FYI I am allergic to penicillin.") == ["Caroline is allergic to penicillin."]
    assert said_by_caroline("Now I'm looking at a used hatchback.") == [
        "Caroline is looking at a used hatchback (2023-05-07)."]  # was "Caroline said: Now Caroline is ..."


def test_a_companion_whose_name_starts_like_my_is_a_name():
    """"me and March 14, 2019" raised IndexError: a name starting with M was cut as "my X"."""
    said_by_caroline("me and  March 14, 2019")  # raised
    assert said_by_caroline("Mara and I went to Lisbon last week.") == ["Caroline and Mara went to Lisbon (week of 2023-04-24)."]


@pytest.mark.parametrize(("said", "facts"), [
    ("Tiago and Ines are getting married in June!", ["Tiago is getting married to Ines (June 2023)."]),
    ("Rui and his wife split up.", ["Rui split up with his wife."]),  # "his" was the last person named before
    ("Tiago and his sister are opening a bakery in Porto.", ["Tiago and his sister are opening a bakery in Porto (2023-05-07)."]),
    ("Porto and Lisbon are beautiful cities.", []),  # common enough to be no names of people here
    # the other named, or the one named by who they are: was "Tiago's girlfriend Ines broke up" (and she
    # stayed his girlfriend)
    ("Tiago and his girlfriend Ines broke up.", ["Tiago broke up with his girlfriend Ines.", "Ines is Tiago's ex-girlfriend."]),
    ("My brother Tiago and his girlfriend broke up.", ["Tiago is Caroline's brother.", "Tiago broke up with his girlfriend."]),
])
def test_two_named_are_one_subject(said, facts):
    assert said_by_caroline(said) == facts


def test_a_subject_pronoun_never_means_the_object_of_its_clause():
    """"My dad had a stroke. They're keeping him for observation": they are not the dad."""
    lines = chat(("Maya", "My dad had a minor stroke on Sunday."), ("Maya", "They're keeping him for observation until Friday."))
    assert fact_texts(lines) == ["Maya's dad had a minor stroke (2023-04-30)."]


@pytest.mark.parametrize(("said", "fact", "detail"), [
    ("Rui's new number is 912 345 678.", "Rui's phone number is 912 345 678.", ("Rui", "phone", "912 345 678")),
    ("My email changed to maya.silva@example.org.", "Maya's email is maya.silva@example.org.",
     ("Maya", "email", "maya.silva@example.org")),
    ("My new address is Rua das Flores 12, Porto.", "Maya's address is Rua das Flores 12, Porto.",
     ("Maya", "address", "Rua das Flores 12, Porto")),
    # said as had: a fact only, never on the card
    ("Rui has a new phone number: +49 151 2345 6789.", "Rui's phone number is +49 151 2345 6789.",
     ("Rui", "phone", "+49 151 2345 6789")),
    ("I got a new email, maya@example.org.", "Maya's email is maya@example.org.", ("Maya", "email", "maya@example.org")),
])
def test_how_to_reach_someone_is_a_detail_of_theirs(said, fact, detail):
    lines = chat(("Maya", said))
    assert fact_texts(lines) == [fact]
    name, key, value = detail
    got = {c.name: c.details for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert got[name][key] == value


@pytest.mark.parametrize("said", ["His number is great.", "My number is 42.", "I have a new address in Lisbon now.",
                                  "Ana has a new address to send the invites to.", "I got a new number of followers."])
def test_what_is_no_phone_number_is_no_detail(said):
    assert all("phone" not in f and "years old" not in f and "address is" not in f for f in fact_texts(chat(("Maya", said))))


def test_a_new_number_replaces_the_old_one():
    lines = chat(("Maya", "Rui's new number is 912 345 678."))
    known = [KnownFact(id="f1", text="Rui's phone number is 911 111 111.", similarity=0.8)]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=known)).facts
    assert [(f.op, f.target_id) for f in facts] == [("UPDATE", "f1")]


@pytest.mark.parametrize(("said", "details"), [
    ("My sister Ines is a pediatrician at Santa Maria hospital.", {"job": "a pediatrician", "employer": "Santa Maria hospital"}),
    ("My sister Ines works as a nurse at Nova university.", {"job": "a nurse", "employer": "Nova university"}),
])
def test_a_job_at_a_named_workplace_is_a_job_and_an_employer(said, details):
    lines = chat(("Maya", said))
    got = {c.name: c.details for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])).contacts}
    assert {k: got["Ines"].get(k) for k in details} == details


def test_a_thing_called_something_is_no_one_called():
    """"a sushi place in Ginza called Sushi Saito" made a contact of the restaurant ("called" is a
    people verb: "I called Ana")."""
    def names(said: str) -> set[str]:
        return {c.name for c in MODEL.update_contacts(ContactsRequest(scope="s", messages=chat(("Maya", said)), known=[])).contacts}

    assert "Sushi Saito" not in names("Ana recommended a sushi place in Ginza called Sushi Saito.")
    assert "Ana" in names("I called Ana yesterday about the trip.")


@pytest.mark.parametrize(("said", "facts"), [
    ("My sister Ana moved to Berlin last month for a new job at Siemens.",  # the employer said with the move
     ["Ana is Caroline's sister.", "Ana lives in Berlin.", "Ana works at Siemens."]),
    ("I moved to Porto for a job.", ["Caroline lives in Porto."]),  # was "lives in Porto for a job"
])
def test_a_move_for_a_job(said, facts):
    assert said_by_caroline(said) == facts


@pytest.mark.parametrize(("said", "wrong"), [
    ("My sister Joana had migraines for years. He prescribed rest.", "Joana prescribed"),
    ("My brother Rui is visiting. She is a nurse.", "Rui is a nurse"),
    ("Thanks, Melanie! His ankle is getting better, but still sore.", "Melanie's ankle"),  # whom one speaks to
])
def test_a_she_or_he_never_means_one_the_batch_says_it_cannot(said, wrong):
    """'my sister Joana' is no 'he' ('Mr. Costa' no 'her'): a relation word or a title says which
    pronoun may mean a person, and a he is never the one spoken to. The clause is lost rather
    than said of the wrong one."""
    facts = said_by_caroline(said)
    assert not any(wrong in f for f in facts), facts
    assert facts or "Melanie" in said  # what the first sentence says stays


@pytest.mark.parametrize(("said", "fact"), [
    ("I met Ana at the gym, she's a nurse.", "Ana is a nurse."),
    ("The physio is called Lia, her clinic is on Rua Augusta.", "Lia's clinic is on Rua Augusta"),
    ("My sister Joana called Rui, she is moving to Lisbon.", "Joana is moving to Lisbon"),  # a subject first
    ("My son Leo and my daughter Ana came. She loves the beach.", "Ana loves the beach."),
])
def test_a_she_or_he_means_the_person_the_sentence_named_before(said, fact):
    """A clause's she/he with no one said of in its sentence means the last person the sentence
    named, even as an object ("I met Ana ..."); a clause's own subject comes first; a she passes
    over a son for the daughter."""
    assert any(fact in f for f in said_by_caroline(said)), said_by_caroline(said)


@pytest.mark.parametrize(("said", "fact"), [
    ("Rui, my boss, wants the report on Friday.", "Rui is Caroline's boss."),  # a name set off before its relation
    ("Ana, my client, called about the invoice.", "Ana is Caroline's client."),
    ("My investor Tiago wants a demo.", "Tiago is Caroline's investor."),  # whom one works with, by role
    ("Our plumber Leo fixed the sink.", "Leo is Caroline's plumber."),
])
def test_a_name_and_relation_set_off_by_commas_and_roles_at_work(said, fact):
    assert fact in said_by_caroline(said)


def test_a_name_called_by_a_relation_is_no_relation_said():
    """'Ana, my friend, you are the best' calls Ana a friend: no verb follows, no fact."""
    assert not any("friend" in f for f in said_by_caroline("Ana, my friend, you are the best."))


@pytest.mark.parametrize(("said", "fact"), [
    ("We're planning a dinner at our favourite place, Cantinho do Avillez.",
     "Caroline is planning a dinner at their favourite place, Cantinho do Avillez"),
    ("My team: Bruno (backend), Lia (design), Tiago (QA).", "Caroline's team: Bruno (backend), Lia (design)"),
])
def test_a_name_that_goes_on_or_is_glossed_is_no_clause(said, fact):
    """'Cantinho do Avillez' made the fact 'Cantinho do Avillez' (Cantinho, then 'do Avillez' as
    what it does) and 'Bruno (backend)' one of its own: a name's particle or a gloss is no verb."""
    facts = said_by_caroline(said)
    assert any(f.startswith(fact) for f in facts) and len(facts) == 1, facts


def test_her_name_after_a_relative_names_them():
    """'Met my new neighbour today, her name is Ines, she's a nurse' gave "Tomas's neighbour's name
    is Ines" and a neighbour with no name: Ines is the neighbour, and what follows is hers."""
    facts = said_by_caroline("Met my new neighbour today, her name is Ines, she's a nurse at Santa Maria hospital.")
    assert "Ines is Caroline's neighbour." in facts and "Ines is a nurse." in facts, facts
    assert not any("name is Ines" in f for f in facts)
    assert not any("is Caroline's brother" in f for f in said_by_caroline("I met my brother, her name is Ana."))
