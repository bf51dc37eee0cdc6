"""A contact's details said in passing, whatever else the sentence says: where someone is from
("a gift from my grandma in my home country, Sweden", "Rui's hometown of Braga") and their
birthday ("my birthday is on March 3rd", "Leo turns 7 on February 2nd", "born on 12 June"). Each
is a claim for the person's card only (kind "detail"): the sentence's own fact keeps the words,
and extraction never writes a second fact of them. "Back home in Brazil" is not read: it is as
often where one lives now ("back home in London after a week in Paris"), and of anyone.
"""

from __future__ import annotations

import re
from datetime import date

from consolidator.model.offline.rules import Claim
from consolidator.model.offline.taskdue import MONTH_SHORT, month_number
from consolidator.model.offline.words import MONTHS, NAME_STOPWORDS, PRONOUN_GENDER, STOPWORDS, WEEKDAYS

_MONTH = "|".join(m.capitalize() for m in MONTHS)
_MONTH_SAID = rf"(?:{_MONTH}|(?:{'|'.join(m.capitalize() for m in MONTH_SHORT)})\.?)"  # "Feb 2" is February 2
_PLACE = rf"(?!(?:{_MONTH}|{'|'.join(d.capitalize() for d in WEEKDAYS)})\b)[A-Z][\w'-]*(?: (?!I\b)[A-Z][\w'-]*)*"
_WHOSE = r"\b(?:(?P<my>[Mm]y)|(?P<own>[A-Z][a-z]+)'s|(?P<pron>[Hh]is|[Hh]er)) "
_HOMELAND = re.compile(rf"{_WHOSE}(?:home ?town|home country|home city|birthplace|native (?:country|land|town|city))"
                       rf"(?:,| of| is| was) (?P<v>{_PLACE})")
_DAY = (rf"(?:(?P<mon>{_MONTH_SAID}) (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b|(?:the )?(?P<day2>\d{{1,2}})(?:st|nd|rd|th)? "
        rf"(?:of )?(?P<mon2>{_MONTH_SAID})(?!\w))")
_BIRTHDAYS = (re.compile(rf"{_WHOSE}birthday(?: is| was| falls)?(?: (?:next|this|coming) (?:week|month|weekend))?"
                         rf"(?:,? on)? {_DAY}"),  # "her birthday is next week, on the 14th of December"
              re.compile(rf"\b(?P<own>[A-Z][a-z]+) (?:turns|turned|will turn) \d+ on {_DAY}"),
              re.compile(rf"\b(?P<own>I|[A-Z][a-z]+) (?:was|were) born on {_DAY}"))


def details_in(sentence: str, me: str, last: str | None = None) -> list[Claim]:
    """The details `sentence` says in passing, of the speaker `me`, of a name, or (his/her,
    she/he) of `last`, the person the line spoke of; none of "It", "Everyone" or a day that is
    none ("February 30")."""
    out = []
    if (m := _HOMELAND.search(sentence)) and (who := _whose(m, me, last)):
        out.append(Claim(who, "origin", m.group("v"), f"{who} is from {m.group('v')}.", kind="detail"))
    for m in (m for pattern in _BIRTHDAYS for m in pattern.finditer(sentence)):
        month = MONTHS[month_number(m.group("mon") or m.group("mon2")) - 1].capitalize()
        day = int(m.group("day") or m.group("day2"))
        if (who := _whose(m, me, last)) and _a_day(month, day) and not any(
                c.attribute == "birthday" and c.subject == who for c in out):
            out.append(Claim(who, "birthday", f"{month} {day}", f"{who}'s birthday is {month} {day}.", kind="detail"))
    return out


def _a_day(month: str, day: int) -> bool:
    """Whether the month has that day in some year (February 29 does)."""
    try:
        return bool(date(2000, month_number(month), day))
    except ValueError:
        return False


def _whose(m: re.Match, me: str, last: str | None) -> str | None:
    """The speaker's ("my", "I"), a name's, or (his/her, she/he) `last`'s; no one's for another
    pronoun or a word no name is ("It", "They", "Everyone")."""
    named = m.groupdict().get("own")
    if named in (None, "I") and not m.groupdict().get("pron"):
        return me
    if m.groupdict().get("pron") or named.lower() in PRONOUN_GENDER:
        return last
    return None if named.lower() in NAME_STOPWORDS or named.lower() in STOPWORDS else named
