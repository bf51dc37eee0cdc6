"""Answers that name a day relative to another ("The Friday before 15 July 2023"), read as the day.

LoCoMo's temporal answers often say when by counting from the day it was said: "The Friday
before 15 July 2023" is 14 July 2023, "The week before 9 June 2023" the week of 29 May 2023.
A memory that resolves "last Friday" to the day it names (what our prompts ask of the model,
and what the offline extractor writes: "Caroline went to a council meeting (2023-07-14).")
holds the answer, yet shares none of those words with it but the year. So the bench also
accepts the answer written as the day it names; a source that keeps the answer's own words
still covers it as before. The same alternatives are tried for every source, the transcript
ceiling included (bench/recall_match.py's rule).

Read: "(the) <weekday> before|after <date>", "(the) weekend before|after <date>" (its
Saturday), "<n> weekends before <date>", "(the) week before|after <date>" and "the week of
<date>" (as "week of <its Monday>", the form reldates.py writes), "<n> days|weeks before|after
<date>", "(the) day before|after <date>"; <date> as "15 July 2023", "15 July, 2023" or "July 15,
2023". Vague amounts ("a few days before ...") and anything else give no alternative.
Written apart from consolidator's own reldates.py (the bench must not share the code it
measures), with its conventions: "the Friday before D" is the latest Friday strictly before D; a
weekend is its Saturday; weeks start on Monday.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from bench.recall_match import MONTH_NAMES as MONTHS

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

_MONTH = "|".join(MONTHS)
_DATE = rf"(?:(?P<d1>\d{{1,2}}) (?P<m1>{_MONTH}),? (?P<y1>\d{{4}})|(?P<m2>{_MONTH}) (?P<d2>\d{{1,2}}),? (?P<y2>\d{{4}}))"
_COUNT = "|".join([r"\d{1,2}", *COUNTS])
_RELATIVE = re.compile(
    rf"^(?:the )?(?:"
    rf"(?P<weekday>{'|'.join(WEEKDAYS)}) (?P<wd_dir>before|after)"
    rf"|(?:(?P<wkn>{_COUNT}) weekends|weekend) (?P<we_dir>before|after)"
    rf"|week (?P<wk_dir>before|after|of)"
    rf"|(?P<n>{_COUNT}) (?P<unit>days?|weeks?) (?P<n_dir>before|after)"
    rf"|day (?P<day_dir>before|after)"
    rf") {_DATE}\.?$"
)


def resolved_answers(answer: str) -> list[str]:
    """The answer written as the day (or week) it names, when it names one relative to a date."""
    m = _RELATIVE.match(" ".join(str(answer).lower().split()))
    if not m:
        return []
    anchor = _anchor(m)
    if anchor is None:
        return []
    day = _resolve(m, anchor)
    if day is None:
        return []
    if isinstance(day, tuple):  # a week: the form "week of <Monday>"
        return [f"week of {_written(day[0])}"]
    return [_written(day)]


def _anchor(m: re.Match[str]) -> date | None:
    d, month, y = (m.group("d1"), m.group("m1"), m.group("y1")) if m.group("d1") else (
        m.group("d2"), m.group("m2"), m.group("y2"))
    try:
        return date(int(y), MONTHS.index(month) + 1, int(d))
    except ValueError:
        return None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else COUNTS[word]


def _resolve(m: re.Match[str], anchor: date) -> date | tuple[date] | None:
    if m.group("weekday"):
        step = -1 if m.group("wd_dir") == "before" else 1
        day = anchor + timedelta(days=step)
        while day.weekday() != WEEKDAYS.index(m.group("weekday")):
            day += timedelta(days=step)
        return day
    if m.group("we_dir"):
        n = _count(m.group("wkn")) if m.group("wkn") else 1
        step = -1 if m.group("we_dir") == "before" else 1
        saturday = anchor - timedelta(days=(anchor.weekday() - 5) % 7)  # this weekend's, or the last one's
        if step < 0:
            return saturday - timedelta(days=7 * (n - (1 if anchor.weekday() < 5 else 0)))
        return saturday + timedelta(days=7 * n)
    if m.group("wk_dir"):
        monday = anchor - timedelta(days=anchor.weekday())
        shift = {"before": -7, "after": 7, "of": 0}[m.group("wk_dir")]
        return (monday + timedelta(days=shift),)
    if m.group("n_dir"):
        days = _count(m.group("n")) * (7 if m.group("unit").startswith("week") else 1)
        return anchor + timedelta(days=-days if m.group("n_dir") == "before" else days)
    if m.group("day_dir"):
        return anchor + timedelta(days=-1 if m.group("day_dir") == "before" else 1)
    return None


def _written(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"
