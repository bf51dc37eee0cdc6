"""Relative dates written out: "yesterday" said on 2023-05-08 becomes "yesterday (2023-05-07)".

A summary outlives the day it was written on: a week later "yesterday" points at the wrong
day, and a reader of the 12-week summary cannot tell which. So the summariser resolves the
plain relative expressions against the LOCAL date of the line that says them (the date in the
scope's time zone, never the UTC date: 00:30 in Paris on a Tuesday is Monday 22:30 UTC, and its
"yesterday" is Monday) and writes the absolute date beside the words, keeping what was said.

Resolved: yesterday / last night, tomorrow, the day before yesterday / after tomorrow,
last|next|this <weekday> (a weekday may be written short with a capital: "last Fri", "next
Tues"; lower-case "sat" and "sun" are other words), last|next|this weekend (its Saturday),
last|next week (its Monday, "week of ..."), last|next month ("June 2023", the month as a reader
says it), last|next year (YYYY), and "<n> days|weeks|weekends|months|years ago" with n a digit
or a number word up to twelve ("a"/"an" is one; a weekend is its Saturday). Everything else is
left alone: "today" (the line's own date is beside it), "the last/next week" (a span of
time, not a calendar week), bare weekdays ("on Friday": past or
future depends on tense), vague amounts ("a few days ago", "about five years ago", "recently"),
seasons (hemisphere).
An expression already followed by a bracketed date is not resolved twice, so a summary of
summaries keeps one date. Conventions: "last Saturday" is the latest Saturday strictly before
the day, "next Saturday" the first strictly after, "this Saturday" the one in the day's
Monday-to-Sunday week; weeks start on Monday.
"""

from __future__ import annotations

import re
from functools import lru_cache
from datetime import date, timedelta

from consolidator.model.offline.words import MONTHS as LOWER_MONTHS, WEEKDAYS

MONTHS = tuple(m.capitalize() for m in LOWER_MONTHS)
# Short weekdays, capitalised only: "last Sat" is a day, "the chair I last sat on" is not.
_SHORT_DAYS = {"Mon": 0, "Tue": 1, "Tues": 1, "Wed": 2, "Thu": 3, "Thur": 3, "Thurs": 3, "Fri": 4, "Sat": 5,
               "Sun": 6}
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_DAYS = "|".join(WEEKDAYS)
_COUNT = "|".join([r"\d{1,3}", *_NUMBER_WORDS])
_MONTH_YEAR = rf"(?:{'|'.join(MONTHS)}) \d{{4}}"
# A date written beside the words ("(2023-05-07)", "(week of 2023-05-01)", "(June 2023)",
# "(2023-06)", "(2022)"): where it is there already, the words are not resolved again; a fact's
# trailing one is its date, not part of what it says.
DATE_NOTE = re.compile(rf"\s*\((?:\d{{4}}(?:-\d{{2}}){{0,2}}|week of \d{{4}}-\d{{2}}-\d{{2}}|{_MONTH_YEAR})\)")
_NOT_RESOLVED_YET = rf"(?!\s*\((?:\d{{4}}|week of|{_MONTH_YEAR}))"
_SHORT = "|".join(sorted(_SHORT_DAYS, key=len, reverse=True))
_DAY_INDEX = {day: i for i, day in enumerate(WEEKDAYS)} | {short.lower(): i for short, i in _SHORT_DAYS.items()}
# "about five years ago" is no date: an approximate amount stays as said, as "a few days ago" does.
_NOT_APPROXIMATE = "".join(f"(?<!{w} )" for w in ("about", "around", "almost", "nearly", "over", "roughly", "some",
                                                  "like", "than", "maybe", "approximately"))
_EXPRESSION = re.compile(
    r"\b(?:"
    r"(?P<before>the day before yesterday)"
    r"|(?P<after>the day after tomorrow)"
    r"|(?P<yesterday>yesterday|last night)"
    r"|(?P<tomorrow>tomorrow)"
    rf"|(?<!the )(?P<rel>last|next|this past|this coming|this) (?P<unit>weekend|week|month|year|{_DAYS}"
    rf"|(?-i:{_SHORT}))"
    rf"|{_NOT_APPROXIMATE}(?P<count>{_COUNT}) (?P<span>day|weekend|week|month|year)s? ago"
    rf")\b{_NOT_RESOLVED_YET}",
    re.IGNORECASE,
)
# A word every expression holds: a text without one has nothing to resolve (most sentences), and
# this search is a fraction of the expression's.
_CUE = re.compile(r"yesterday|tomorrow|last|next|this|ago", re.IGNORECASE)


@lru_cache(maxsize=1 << 12)
def resolve_relative_dates(text: str, today: date | None, this_too: bool = False) -> str:
    """`text` with each relative date it contains followed by the absolute date in brackets.

    "this week/month/year" is left as it is unless `this_too`: a summary's header dates it, but
    a fact read months later ("Lena lost her job this month") needs it written out. Pure, so
    cached: a day's sentences are read again by its interactions' summaries."""
    if today is None or not _CUE.search(text):
        return text

    def write(match: re.Match) -> str:
        resolved = _resolve(match, today, this_too)
        return f"{match.group(0)} ({resolved})" if resolved else match.group(0)

    return _EXPRESSION.sub(write, text)


def relative_dates(text: str, today: date | None) -> list[tuple[re.Match, str]]:
    """Each relative date of `text` that resolves against `today`, with what it resolves to
    (as written beside it: "2023-05-07", "week of 2023-05-01", "June 2023", "2022")."""
    if today is None or not _CUE.search(text):
        return []
    return [(m, r) for m in _EXPRESSION.finditer(text) if (r := _resolve(m, today))]


def _resolve(m: re.Match, today: date, this_too: bool = False) -> str | None:
    if m.group("before"):
        return (today - timedelta(days=2)).isoformat()
    if m.group("after"):
        return (today + timedelta(days=2)).isoformat()
    if m.group("yesterday"):
        return (today - timedelta(days=1)).isoformat()
    if m.group("tomorrow"):
        return (today + timedelta(days=1)).isoformat()
    if m.group("rel"):
        return _relative(m.group("rel").lower(), m.group("unit").lower(), today, this_too)
    word = m.group("count").lower()
    n = int(word) if word.isdigit() else _NUMBER_WORDS[word]
    return _ago(n, m.group("span").lower(), today) if n else None


def _relative(rel: str, unit: str, today: date, this_too: bool = False) -> str | None:
    step = -1 if rel in ("last", "this past") else 1 if rel in ("next", "this coming") else 0
    monday = today - timedelta(days=today.weekday())
    target = _DAY_INDEX.get(unit)
    if target is not None:
        if step == 0:
            return (monday + timedelta(days=target)).isoformat()
        day = today + timedelta(days=step)
        while day.weekday() != target:
            day += timedelta(days=step)
        return day.isoformat()
    if step == 0 and unit != "weekend" and not this_too:  # "this week/month/year": the line's own date says it
        return None
    if unit == "weekend":
        return (monday + timedelta(days=7 * step + 5)).isoformat()
    if unit == "week":
        return f"week of {(monday + timedelta(days=7 * step)).isoformat()}"
    if unit == "month":
        return _month(today, step)
    return str(today.year + step)


def _ago(n: int, span: str, today: date) -> str:
    if span == "day":
        return (today - timedelta(days=n)).isoformat()
    if span == "week":
        return (today - timedelta(days=7 * n)).isoformat()
    if span == "weekend":  # the Saturday of the weekend n weekends back (this one, if today is in it, is 0)
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        return (saturday - timedelta(days=7 * (n - (1 if today.weekday() < 5 else 0)))).isoformat()
    if span == "month":
        return _month(today, -n)
    return str(today.year - n)


def _month(today: date, step: int) -> str:
    index = today.year * 12 + today.month - 1 + step
    return f"{MONTHS[index % 12]} {index // 12:04d}"
