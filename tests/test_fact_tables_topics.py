"""A fact's table is chosen by what it says, not by whom it is about (names.topic_texts).

With the shipped static embeddings a rare name weighs as much as the words around it, so every
fact about one person looked alike: the first table to hold a few of them drew the rest, whatever
they said. These tests use the real embedder (a fake would not show the effect)."""

from __future__ import annotations

from consolidator.core.config import FactSettings
from consolidator.facts.tables import Survivor, TablePlanner, topic_vectors
from consolidator.model.embeddings import default_embedder
from consolidator.model.offline import OfflineModel
from consolidator.model.offline.names import topic_texts

HOBBIES = ["Ravi paints landscapes at weekends.", "Ravi plays chess online.", "Ravi collects old stamps.",
           "Ravi sings in a choir.", "Ravi knits scarves for friends.", "Ravi builds model trains."]
WORK = "Ravi works as a nurse at the city hospital."
HEALTH = "Ravi is allergic to peanuts."


def test_names_are_left_out_and_everything_else_is_kept():
    texts = ["Ravi adopted a cat named Pixel.", "Tom is Ravi's brother.", "The cafe near the office has good coffee.",
             "Coffee makes Ravi jittery.", "Ravi", "Ravi met Ines in March.", "Zoë moved to Ávila with Anne-Marie.",
             "I think O'Brien is kind."]
    assert topic_texts(texts) == [
        " adopted a cat named .",  # the subject and the cat's name
        " is  brother.",  # a name with its possessive
        "The cafe near the office has good coffee.",  # an everyday word opening a text is no name
        "Coffee makes  jittery.",  # seen in lower case elsewhere ("good coffee"): a word, not a name
        "Ravi",  # nothing left: the text keeps its own words
        " met  in .",
        " moved to  with .",  # names in any script, hyphenated names
        "I think  is kind.",  # one letter stays
    ]


def test_other_texts_of_the_scope_are_evidence():
    """Placement reads one new fact: the scope's other facts tell "Swimming" is a word."""
    assert topic_texts(["Swimming helps Ravi relax."]) == [" helps  relax."]
    assert topic_texts(["Swimming helps Ravi relax."], ["Ravi loves swimming."]) == ["Swimming helps  relax."]


def test_a_persons_many_facts_do_not_pull_a_new_fact_into_their_table():
    """Six hobbies of one person fill a table; a fact about that person's job or allergy still goes
    where its words belong, not after the name the hobbies share."""
    embedder = default_embedder()
    cfg = FactSettings()
    def survivor(fid: str, text: str, table: str | None) -> Survivor:
        return Survivor(fid, text, table)

    facts = [survivor(f"h{i}", text, "hobbies and interests") for i, text in enumerate(HOBBIES)]
    facts += [survivor("w", WORK, None), survivor("a", HEALTH, None)]
    registry = [(t.name, t.description) for t in cfg.tables]
    plan = TablePlanner(embedder, OfflineModel(), cfg.model_copy(update={"table_min": 1})).plan("s", facts, registry)
    assert plan.assigned["w"] == "work and study"
    assert plan.assigned["a"] == "health"
    assert not {f"h{i}" for i in range(len(HOBBIES))} & set(plan.assigned)  # the hobbies stay


def test_topic_vectors_ignore_whom_a_fact_is_about():
    """The same statement about two people has one topic vector; about two things, two."""
    embedder = default_embedder()
    texts = ["Ravi works as a nurse.", "Mirela works as a nurse.", "Ravi plays chess online."]
    a, b, c = topic_vectors(texts, embedder)
    assert float(a @ b) > 0.999
    assert float(a @ c) < 0.9


def test_a_specific_topic_heads_the_fact_and_a_generic_one_does_not():
    """The extractor's topic says what a fact is about: "pets" files an adoption with the pets
    (hobbies and interests); the same fact with the generic "events" is read by its words alone."""
    embedder = default_embedder()
    cfg = FactSettings()
    registry = [(t.name, t.description) for t in cfg.tables]
    text = "Ravi adopted a cat named Pixel."

    def table(topic: str) -> str:
        fact = Survivor("p", text, None, topic)
        return TablePlanner(embedder, OfflineModel(), cfg).plan("s", [fact], registry).assigned["p"]

    assert table("pets") == "hobbies and interests"
    assert table("events") != "hobbies and interests"
    assert table("general") == table("events")
    a, b = topic_vectors([text, text], embedder, topics=["pets", "events"])
    assert float(a @ b) < 0.99


def test_a_topic_is_read_on_one_line_and_without_names():
    """A model's topic is free text: case, spaces and line breaks do not matter, and a name in it
    is left out as in the text."""
    embedder = default_embedder()
    text = "Ravi adopted a cat named Pixel."
    plain, odd, named, work = topic_vectors([text] * 4, embedder, topics=["pets", " Pets\n", "Ravi's pets", "work"])
    assert min(float(plain @ odd), float(plain @ named)) > 0.99 > 0.95 > float(plain @ work)
