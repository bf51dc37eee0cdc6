"""The offline contacts rules: the pastimes and places a person's own clauses name, claims of
sentences that open with an interjection reaching the person they are about, two people of one
first name, and the details said in passing (where someone is from, a birthday)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from consolidator.model.offline.model import OfflineModel
from consolidator.model.offline.text import destinations, third_person_predicate
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest, KnownContact, Line

MODEL = OfflineModel()
AT = datetime(2024, 3, 9, 10, 0, tzinfo=timezone.utc)


def contacts(*said: tuple[str, str], known: list[KnownContact] = ()) -> dict:
    lines = [Line(id=f"m{i}", at=AT, role="user", speaker=who, text=text) for i, (who, text) in enumerate(said)]
    reply = MODEL.update_contacts(ContactsRequest(scope="s", messages=lines, known=list(known)))
    return {c.name: c for c in reply.contacts}


def test_a_persons_pastimes_and_places_become_listed_details():
    """"went sailing", "took the kids to the aquarium", "been to Lisbon": what Tomas does and where
    he goes, kept on his card whatever the fact store keeps of the clauses."""
    got = contacts(("Tomas", "We went sailing last weekend. Yesterday I took the kids to the aquarium."),
                   ("Ines", "Nice! I have never been to Lisbon."),
                   ("Tomas", "Oh, I've been to Lisbon twice! And I went to a street fair there."))
    tomas = got["Tomas"]
    assert tomas.details["pastimes"] == "sailing"
    assert tomas.details["places"] == "aquarium; Lisbon; street fair"
    assert "Tomas went sailing" in tomas.biography
    assert "places" not in got["Ines"].details  # "never been": a place not gone to


def test_a_listed_place_is_added_to_the_known_ones_once():
    known = [KnownContact(name="Tomas", details={"places": "aquarium; Lisbon"})]
    got = contacts(("Tomas", "I went to the aquarium again, and then we went to a night market."), known=known)
    assert got["Tomas"].details["places"] == "aquarium; Lisbon; night market"


def test_a_person_gone_to_and_the_days_routine_are_no_places():
    got = contacts(("Tomas", "I went to Ines for advice, then I went to bed early."), ("Ines", "Good call."))
    assert "places" not in got["Tomas"].details


def test_a_claim_after_an_interjection_reaches_its_person():
    """"Oh, I've moved to Porto!": the claim is read from the sentence without its "Oh," and,
    before, was never matched back to Tomas's sentence, so his home was not updated."""
    got = contacts(("Tomas", "Oh, I've moved to Porto!"), ("Ines", "Wow, congrats!"))
    assert got["Tomas"].details["home"] == "Porto"


def test_destinations_are_noun_phrases_or_names_as_written():
    assert destinations("Yesterday I took the kids to the aquarium, so cool") == {"aquarium"}
    assert destinations("We've been to New York City and went to an LGBTQ+ book fair") == {"New York City", "LGBTQ+ book fair"}
    assert destinations("I went to bed early. I'm going to try that.") == frozenset()
    assert destinations("Then we went to my sister. We came to the old mill.") == {"old mill"}  # a relative is no place
    assert destinations("I came to the conclusion it was brought to my attention late.") == frozenset()  # idioms


def test_a_perfect_said_without_its_have_keeps_a_verb_that_agrees():
    """"I just been busy" is "has been", never "beens"."""
    assert third_person_predicate("been looking after him") == "has been looking after him"
    assert third_person_predicate("gone to the market") == "has gone to the market"


def test_a_listed_detail_keeps_its_newest_items():
    """Twenty places gone to, in one history: the card lists the newest LISTED_ITEMS of them."""
    from consolidator.model.offline.contacts import LISTED_ITEMS

    known = [KnownContact(name="Tomas", details={"places": "; ".join(f"Town{i}" for i in range(LISTED_ITEMS))})]
    got = contacts(("Tomas", "Last week I went to Lisbon."), known=known)
    places = got["Tomas"].details["places"].split("; ")
    assert len(places) == LISTED_ITEMS and places[-1] == "Lisbon" and "Town0" not in places


def test_a_listed_item_said_more_specifically_gives_way_and_a_vaguer_one_adds_nothing():
    """"pride parade" after "LGBTQ+ pride parade" adds nothing; "dog" gives way to "Rex (dog)"."""
    known = [KnownContact(name="Tomas", details={"places": "LGBTQ+ pride parade; old mill"})]
    got = contacts(("Tomas", "Yesterday I went to the pride parade again."), known=known)
    assert "places" not in got["Tomas"].details  # nothing new: no change sent
    known = [KnownContact(name="Tomas", details={"places": "market; old mill"})]
    got = contacts(("Tomas", "Yesterday I went to the night market."), known=known)
    assert got["Tomas"].details["places"] == "old mill; night market"


def test_who_someone_says_they_are_becomes_their_listed_roles():
    """"my journey as a first-time mom", "tough as a single parent": the speaker's; "your
    courage as a trans person": the other speaker's. A stage of life, a thing, a job (the job
    rule's) and a question give no role."""
    got = contacts(("Ana", "I made this quilt to show my journey as a first-time mom. It'll be tough as a single parent!"),
                   ("Tomas", "I'm in awe of your courage as a trans person. I loved quilting as a kid."),
                   ("Ana", "Thanks! I got it as a gift. Lost my job as a nurse though. Do you see yourself as a dad?"),
                   ("Tomas", "Not as a parent yet, no."))
    assert got["Ana"].details["roles"] == "first-time mom; single parent; trans person"
    assert "Ana is a single parent." in got["Ana"].biography
    assert "roles" not in got["Tomas"].details


def test_a_biography_tells_a_listed_item_once():
    """A batch that adds Miso to Tomas's pets and names Rex again tells only Miso's claim to the
    biography (Rex is listed already); a claim the biography holds with another date moves to
    the end instead of standing twice."""
    known = [KnownContact(name="Tomas", details={"pets": "Rex (dog)"},
                          biography="Tomas adopted a dog named Rex. Tomas works as a nurse.")]
    got = contacts(("Tomas", "I adopted a dog named Rex last year. Yesterday I adopted a cat named Miso."),
                   ("Ana", "Nice!"), known=known)
    assert got["Tomas"].details["pets"] == "Rex (dog); Miso (cat)"
    assert got["Tomas"].biography == ("Tomas adopted a dog named Rex. Tomas works as a nurse. "
                                      "Tomas adopted a cat named Miso (2024-03-08).")
    again = contacts(("Tomas", "Yesterday I went to Lisbon."), ("Ana", "Nice!"),
                     known=[KnownContact(name="Tomas", details={"places": "aquarium"},
                                         biography="Tomas went to Lisbon (2024-01-05). Tomas sails.")])
    assert again["Tomas"].biography == "Tomas sails. Tomas went to Lisbon (2024-03-08)."


def test_a_name_to_call_someone_by_is_their_alias():
    assert contacts(("Maya", "Call me Mia, everyone does. I love hiking."))["Maya"].aliases == ["Mia"]
    assert contacts(("Tomas", "I go by Tom at work."))["Tomas"].aliases == ["Tom"]
    # said to Ana, "call me Ana" asks her to phone: no alias
    said_to = contacts(("Maya", "Call me Ana when you land."), ("Ana", "Will do!"))
    assert "Ana" not in said_to["Maya"].aliases


def test_a_relative_and_someone_else_of_one_first_name_are_two_people():
    """"My cousin Rui" and "my landlord Rui Costa" were one contact, "Maya's cousin; Maya's
    landlord"; a bare "Rui" after them is the one called by that name."""
    got = contacts(("Maya", "My cousin Rui is visiting next week."), ("Maya", "Rui loves surfing."),
                   ("Maya", "And my landlord Rui Costa raised the rent."), ("Maya", "Rui is bringing his board."))
    assert got["Rui"].details["relation"] == "Maya's cousin" and got["Rui"].details["likes"] == "surfing"
    assert got["Rui Costa"].details == {"relation": "Maya's landlord"} and got["Rui Costa"].aliases == []
    # known from an earlier batch: the same, unless the relation is the known one's
    cousin = KnownContact(name="Rui", details={"relation": "Maya's cousin"})
    assert "Rui Costa" in contacts(("Maya", "My landlord Rui Costa raised the rent."), known=[cousin])
    assert contacts(("Maya", "My cousin Rui Costa is visiting."), known=[cousin])["Rui"].aliases == ["Rui Costa"]
    both = KnownContact(name="Rui", details={"relation": "Maya's cousin; Maya's boss"})  # one relation fits: him
    assert contacts(("Maya", "My cousin Rui Costa came by."), known=[both])["Rui"].aliases == ["Rui Costa"]


def test_a_short_name_is_the_full_name_whatever_else_they_are_called():
    """Two roles that one person may have ("my boss Joana Silva", "my colleague Joana"), or none
    said, keep the short name the full name's."""
    got = contacts(("Maya", "My boss Joana Silva wants the report by Friday."), ("Maya", "My colleague Joana helped."))
    assert list(got) == ["Maya", "Joana Silva"] and got["Joana Silva"].aliases == ["Joana"]
    got = contacts(("Maya", "My mom Rosa called."), ("Maya", "My mother Rosa Lima is coming."))
    assert list(got) == ["Maya", "Rosa Lima"]


def test_where_someone_is_from_said_in_passing_is_their_origin():
    """"a gift from my grandma in my home country, Sweden", "my hometown is Braga" gave no origin
    (the sentence's fact kept it, the card did not); the fact stays as it was, with no second fact
    of it. Where one was born is a birthplace, beside where one grew up; a month or a year is no
    place of birth; "back home in London", where one lives now as often as where one is from, is
    neither, nor of the speaker when said of someone else."""
    said = {"This necklace is a gift from my grandma in my home country, Sweden.": "Sweden",
            "My hometown is Braga.": "Braga", "My home town, Braga, is lovely in spring.": "Braga"}
    for text, place in said.items():
        assert contacts(("Maya", text))["Maya"].details == {"origin": place}, text
    born = contacts(("Maya", "I was born in Angola but grew up in Lisbon."))["Maya"]  # both hold: no one replaces
    assert born.details == {"birthplace": "Angola", "origin": "Lisbon"}
    assert contacts(("Maya", "Rui's hometown is Faro."))["Rui"].details == {"origin": "Faro"}
    for text in ("I'm finally back home in London after a week in Paris.", "My sister Ana is back home in Brazil."):
        assert not any("origin" in c.details for c in contacts(("Maya", text)).values()), text
    for text in ("I was born in May.", "I was born in 1990."):
        maya = contacts(("Maya", text)).get("Maya")
        assert maya is None or "birthplace" not in maya.details, text
    lines = [Line(id="m0", at=AT, role="user", speaker="Maya", text="This necklace is a gift from my grandma in my "
                  "home country, Sweden.")]
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    assert [f.text for f in facts] == ["Maya said: This necklace is a gift from Maya's grandma in Maya's home country, "
                                       "Sweden (2024-03-09)."]


@pytest.mark.parametrize(("said", "who", "day"), [
    ("My birthday is on March 3rd.", "Maya", "March 3"),
    ("Rui's birthday is March 3, he'll be 40.", "Rui", "March 3"),
    ("My son Leo turns 7 on February 2nd.", "Leo", "February 2"),
    ("My daughter Lia was born on 3 May 2019.", "Lia", "May 3"),
    ("My sister Ana is visiting. Her birthday is next week, on the 14th of December.", "Ana", "December 14"),
    ("My sister Ana is visiting. She turns 30 on May 4th.", "Ana", "May 4"),
    ("Leo turns 7 on February 2 and Ana turns 8 on March 3.", "Ana", "March 3"),  # each said
    ("I was born on 12 June 1990.", "Maya", "June 12"),
    ("Leo turns 7 on Feb 2, the big day.", "Leo", "February 2"),  # a month as people write it
    ("My birthday is on the 5th of Sept.", "Maya", "September 5"),
])
def test_a_birthday_said_is_on_the_card(said, who, day):
    """A birthday was a fact's words only ("Rui's birthday is March 3 (2025-...)"); the card has its day."""
    assert contacts(("Maya", said))[who].details["birthday"] == day


@pytest.mark.parametrize("said", ["My birthday party is on March 3.", "His birthday is May 5.",
                                  "Our anniversary is October 9.", "She turns 7 on February 2nd.",
                                  "It turned 5 on May 3rd.", "Everyone's birthday is on May 1st.",
                                  "My birthday is on February 30th."])
def test_a_party_an_anniversary_no_one_or_no_day_is_no_birthday(said):
    """"She turns 7 ..." with no one named before, "It", "Everyone" were contacts with a birthday."""
    assert not any("birthday" in c.details for c in contacts(("Maya", said)).values())
