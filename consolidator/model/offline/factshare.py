"""A batch's new facts take at most a fifth of what it read: the store stays small by construction.

The facts a batch of lines yields are chosen one by one (worth.novel: each must add enough to
what is known), but nothing bounded their sum: on the LoCoMo development subset one batch of
50 lines wrote facts 3.5x smaller than its lines, another 14x, and the stores as a whole sat at
5.05x, a hair over the 5x the product promises, with nothing to keep an unseen, denser
conversation above it. So a batch's added and updated facts share a room of fact_share of the
characters it read ("Speaker: text" per line), never less than min_fact_room (tuning.py); when they do not fit,
the ones that say the most per character at their importance (importance x worth / length,
worth.worth with the speakers' names weighing nothing) are kept, in their own order. A critical
fact (an allergy) and an UPDATE (a new job replacing the old: dropped, it would leave the old
one current) are always kept and take their room first; a DELETE or NOOP writes nothing. A
profile fact (profile_importance: a job lost, a home, a partner) comes next, before any fact of
less importance however telling per character (a job lost, "Tomas lost his job as a
carpenter", had given way to a batch's shorter trivia).

The fifth is for people talking with each other, where most words are talk. One person telling
the agent (or writing alone) is dense: a log of "I switched banks", "my boss is Joana", "I'm
allergic to shellfish" is all facts, and a fifth of it kept 11 of 28 on a hand-written 52-line
log. So in a batch whose lines come from one person, their lines count whole with a date note each
(told_share: a fact restates the line it comes from, its "I" a name, and is dated), the agent's at
the fifth.

Measured on the development subset (bench/recall.py): facts 433 -> 398 (37,013 -> 34,068
characters), the stores 5.05x -> 5.4x smaller than the transcript; single-hop answers in the
stores 119 -> 117 of 187. Ranking by worth alone kept 112, by importance then worth 112, by
worth per character 116; a fifth share with looser novelty thresholds (more candidates to
choose from) 114-115: the novelty rule is the better judge of a single fact, the share only
bounds the batch.
"""

from __future__ import annotations

from consolidator.domain import is_person_line
from consolidator.model.attachments import with_attachments
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.offline.worth import worth
from consolidator.model.schemas import FactCandidate, Line

_WRITES = ("ADD", "UPDATE")
_DATE_NOTE = len(" (2025-12-01)")  # what a fact adds to the words it restates: the day it is dated


def fact_room(lines: list[Line], settings: OfflineSettings = DEFAULTS) -> int:
    """Characters the facts of a batch of `lines` may write (module docstring: a fifth of what was
    read; all a person told when they are the batch's one person)."""
    told = len({(line.speaker or "").strip() for line in lines if is_person_line(line)}) == 1
    read = 0.0
    for line in lines:
        size = len(line.speaker or "") + 2 + len(with_attachments(line.text, line.attachments))
        if told and is_person_line(line):  # its fact: the line, its I the speaker's name, and its date note
            read += (size + _DATE_NOTE) * settings.told_share
        else:
            read += size * settings.fact_share
    return max(settings.min_fact_room, int(read))


def within_share(facts: list[FactCandidate], lines: list[Line], settings: OfflineSettings = DEFAULTS) -> list[FactCandidate]:
    """`facts` less the least telling writes that do not fit the batch's room (module docstring)."""
    room = fact_room(lines, settings)
    writes = [i for i, f in enumerate(facts) if f.op in _WRITES]
    if sum(len(facts[i].text) for i in writes) <= room:
        return facts
    speakers = tuple(dict.fromkeys(line.speaker.strip() for line in lines if line.speaker and line.speaker.strip()))

    def telling(i: int) -> tuple[bool, bool, float, int]:
        f = facts[i]
        profile = f.importance >= settings.profile_importance
        return (not _kept_always(f), not profile, -f.importance * worth(f.text, speakers) / max(1, len(f.text)), i)

    kept: set[int] = set()
    used = 0
    for i in sorted(writes, key=telling):
        if _kept_always(facts[i]) or used + len(facts[i].text) <= room:
            kept.add(i)
            used += len(facts[i].text)
    return [f for i, f in enumerate(facts) if f.op not in _WRITES or i in kept]


def _kept_always(fact: FactCandidate) -> bool:
    """A critical fact (an allergy), or an UPDATE: dropping it would leave the old value current
    (the job someone left, the city they moved from)."""
    return fact.critical or fact.op == "UPDATE"
