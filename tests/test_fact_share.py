"""A batch's facts take at most a fifth of what it read (factshare.py): the most telling are kept;
one person telling the agent may keep all they told."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from consolidator.model.offline import OfflineModel
from consolidator.model.offline.factshare import fact_room, within_share
from consolidator.model.offline.tuning import DEFAULTS
from consolidator.model.schemas import FactCandidate, FactExtractionRequest, Line
from tests.support.offline_kit import AT, chat

MODEL = OfflineModel()

# Sixty-four lines of two people, each a fact about as long as itself: far more than a fifth of what they are.
_DID = ["went to a pottery workshop in", "ran a marathon in", "bought a kayak in", "visited a museum in",
        "recorded a song in", "cooked paella in",
        "painted a mural in", "rented a bike in"]
_WHERE = ["Lisbon", "Porto", "Boston", "Oslo", "Kyoto", "Lima", "Quito", "Cairo"]
SAID = [f"I {did} {where} with {friend}." for did in _DID for where, friend in
        zip(_WHERE, ["Ana", "Leo", "Ravi", "Ines", "Tomas", "Yuki", "Omar", "Zoe"])]
DENSE = [("Maya" if n % 2 else "Bruno", text) for n, text in enumerate(SAID)]


def _facts(lines):
    return MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts


def test_a_dense_batch_writes_at_most_its_share():
    """Lines that each make a fact: what is written fits a fifth of the characters read."""
    lines = chat(*DENSE)
    read = sum(len(f"{line.speaker}: {line.text}") for line in lines)
    assert fact_room(lines) == int(read * DEFAULTS.fact_share) > DEFAULTS.min_fact_room
    written = sum(len(f.text) for f in _facts(lines) if f.op in ("ADD", "UPDATE"))
    assert 0.8 * fact_room(lines) < written <= fact_room(lines)


def test_the_most_telling_facts_per_character_are_the_ones_kept():
    """Under the share, a fact naming rare things in few words beats a long vague one."""
    lines = chat(("Maya", "x" * 450), ("Bruno", "x" * 450))  # room: a fifth of ~912 characters, the floor of 400
    vague = FactCandidate(text="Maya has been thinking about a lot of things that matter to her lately " * 3)
    sharp = [FactCandidate(text=f"Maya adopted a beagle named Rufus {n}.") for n in range(8)]
    kept = within_share([vague, *sharp], lines)
    assert vague not in kept and kept == sharp  # and in their own order


def test_critical_facts_updates_and_deletes_are_never_dropped():
    """An allergy and an UPDATE (a new job: dropped, the old one would stay current) are kept
    whatever the room; a DELETE writes nothing and always passes."""
    lines = chat(("Maya", "short"))
    allergy = FactCandidate(text="Maya is allergic to peanuts; " * 40, critical=True)
    moved = FactCandidate(text="Maya works at Globex as a nurse on the night shift. " * 5, op="UPDATE", target_id="f2")
    delete = FactCandidate(text="", op="DELETE", target_id="f1")
    filler = FactCandidate(text="Maya likes the colour of the sky in the morning. " * 10)
    assert within_share([filler, allergy, moved, delete], lines) == [allergy, moved, delete]


def test_a_short_batch_keeps_its_facts():
    """The floor: one line's one fact is never lost to the share."""
    lines = chat(("Maya", "I adopted a beagle named Rufus."))
    assert fact_room(lines) == DEFAULTS.min_fact_room
    assert [f.text for f in _facts(lines)] == ["Maya adopted a beagle named Rufus (2023-05-07)."]


def test_a_batch_within_its_share_is_untouched():
    """Facts that fit are returned as they came, the same list."""
    lines = chat(("Maya", "y" * 5000))
    facts = [FactCandidate(text="Maya moved to Porto."), FactCandidate(text="Maya bought a kayak.")]
    assert within_share(facts, lines) is facts


def test_a_profile_fact_takes_the_room_before_more_telling_trivia():
    """A job lost (importance 7) is kept before shorter facts of less importance that say more
    per character; with profile_importance past it, it is the one that gives way."""
    lines = chat(("Maya", "x" * 450), ("Bruno", "x" * 450))  # room: the floor of 400 characters
    job = FactCandidate(text="Maya lost her job as a nurse at the hospital on the night shift yesterday (2024-05-06).",
                        importance=7)
    trivia = [FactCandidate(text=f"Maya saw a kingfisher at Ribeira {n}.") for n in range(12)]
    kept = within_share([*trivia, job], lines)
    assert job in kept and sum(len(f.text) for f in kept) <= 400
    assert job not in within_share([*trivia, job], lines, replace(DEFAULTS, profile_importance=8))


# What a person tells an agent: every line a fact of its own.
TOLD = ["I sold my old car last weekend.", "My brother Rui is a mechanic.", "I switched banks, I'm with Nordbank now.",
        "I'm allergic to shellfish.", "My boss Joana wants the quarterly report by Friday.", "I'm vegetarian.",
        "I started seeing a therapist every other Thursday.", "I have to submit my tax return by April 30.",
        "I prefer morning meetings.", "I hate cilantro.", "My favourite restaurant is Tasca do Lago.",
        "I've been running 5k three times a week since October.", "My knee has been hurting after runs.",
        "My daughter Lia starts swimming lessons on Wednesday.", "I moved to Porto last month.",
        "My sister Ines had a baby girl."]


def _told(settings=DEFAULTS) -> list:
    lines = []
    for n, text in enumerate(TOLD):
        at = AT + timedelta(minutes=2 * n)
        lines += [Line(id=f"u{n}", at=at, role="user", speaker="Maya", text=text),
                  Line(id=f"a{n}", at=at + timedelta(minutes=1), role="assistant", speaker=None, text="Noted!")]
    facts = OfflineModel(settings).extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    return lines, [f.text for f in facts]


def test_one_person_telling_the_agent_keeps_what_they_told():
    """A log of one person and the agent is all facts: the person's lines count whole (and a date
    note each, as their facts carry one), the agent's at the fifth, and no fact is lost to the
    share, where a fifth of the log (its floor here) loses some."""
    lines, kept = _told()
    told = sum(len(f"Maya: {text} (2023-05-07)") for text in TOLD)  # each line with its fact's date note
    assert fact_room(lines) == int(told + len(TOLD) * len(": Noted!") * DEFAULTS.fact_share)
    _, unbounded = _told(replace(DEFAULTS, told_share=100.0, fact_share=100.0))
    _, a_fifth = _told(replace(DEFAULTS, told_share=DEFAULTS.fact_share))
    assert kept == unbounded and len(kept) >= len(TOLD) - 2
    assert len(a_fifth) < len(kept)
