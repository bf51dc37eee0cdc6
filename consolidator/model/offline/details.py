"""A contact's details said in passing, whatever else the sentence says: where someone is from
("a gift from my grandma in my home country, Sweden", "back home in Brazil", "Rui's hometown of
Braga") and their birthday ("my birthday is on March 3rd", "Leo turns 7 on February 2nd", "born
on 12 June"). Each is a claim for the person's card only (kind "detail"): the sentence's own fact
keeps the words, and extraction never writes a second fact of them.
"""

from __future__ import annotations

import re

from consolidator.model.offline.rules import Claim
from consolidator.model.offline.words import MONTHS, WEEKDAYS

_MONTH = "|".join(m.capitalize() for m in MONTHS)
_PLACE = rf"(?!(?:{_MONTH}|{'|'.join(d.capitalize() for d in WEEKDAYS)})\b)[A-Z][\w'-]*(?: [A-Z][\w'-]*)*"
_WHOSE = r"\b(?:(?P<my>[Mm]y)|(?P<pron>[Hh]is|[Hh]er)|(?P<own>[A-Z][a-z]+)'s) "
_HOMELAND = re.compile(rf"{_WHOSE}(?:home ?town|home country|home city|birthplace|native (?:country|land|town|city))"
                       rf"(?:,| of| is| was) (?P<v>{_PLACE})|\b[Bb]ack home in (?P<b>{_PLACE})")
_DAY = (rf"(?:(?P<mon>{_MONTH}) (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b|(?:the )?(?P<day2>\d{{1,2}})(?:st|nd|rd|th)? "
        rf"(?:of )?(?P<mon2>{_MONTH})\b)")
_BIRTHDAYS = (re.compile(rf"{_WHOSE}birthday(?: is| was| falls)?(?: (?:next|this|coming) (?:week|month|weekend))?"
                         rf"(?:,? on)? {_DAY}"),  # "her birthday is next week, on the 14th of December"
              re.compile(rf"\b(?P<own>[A-Z][a-z]+) (?:turns|turned|will turn) \d+ on {_DAY}"),
              re.compile(rf"\b(?P<own>I|[A-Z][a-z]+) (?:was|were) born on {_DAY}"))


def details_in(sentence: str, me: str, last: str | None = None) -> list[Claim]:
    """The details `sentence` says in passing, of the speaker `me`, of a name, or (his/her) of
    `last`, the person the line spoke of."""
    out = []
    if (m := _HOMELAND.search(sentence)) and (who := _whose(m, me, last)):
        place = m.group("v") or m.group("b")
        out.append(Claim(who, "origin", place, f"{who} is from {place}.", kind="detail"))
    if (m := next(filter(None, (b.search(sentence) for b in _BIRTHDAYS)), None)) and (who := _whose(m, me, last)):
        day = f"{m.group('mon') or m.group('mon2')} {int(m.group('day') or m.group('day2'))}"
        out.append(Claim(who, "birthday", day, f"{who}'s birthday is {day}.", kind="detail"))
    return out


def _whose(m: re.Match, me: str, last: str | None) -> str | None:
    """The speaker's ("my", "I"), a name's, or (his/her) `last`'s."""
    named = m.groupdict().get("own")
    return last if m.groupdict().get("pron") else me if named in (None, "I") else named
