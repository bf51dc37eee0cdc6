"""Relative dates written out: "yesterday" said on 2023-05-08 becomes "yesterday (2023-05-07)".

A summary outlives the day it was written on: a week later "yesterday" points at the wrong
day, and a reader of the 12-week summary cannot tell which. So the summariser resolves the
plain relative expressions against the LOCAL date of the line that says them (the date in the
scope's time zone, never the UTC date: 00:30 in Paris on a Tuesday is Monday 22:30 UTC, and its
"yesterday" is Monday) and writes the absolute date beside the words, keeping what was said.

Resolved: yesterday / last night, tomorrow, the day before yesterday / after tomorrow,
last|next|this <weekday>, last|next|this weekend (its Saturday), last|next week (its Monday,
"week of ..."), last|next month (YYYY-MM), last|next year (YYYY), and "<n> days|weeks|months|
years ago" with n a digit or a number word up to twelve ("a"/"an" is one). Everything else is
left alone: "today" (the line's own date is beside it), "the last/next week" (a span of
time, not a calendar week), bare weekdays ("on Friday": past or
future depends on tense), vague amounts ("a few days ago", "recently"), seasons (hemisphere).
An expression already followed by a bracketed date is not resolved twice, so a summary of
summaries keeps one date. Conventions: "last Saturday" is the latest Saturday strictly before
the day, "next Saturday" the first strictly after, "this Saturday" the one in the day's
Monday-to-Sunday week; weeks start on Monday.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_DAYS = "|".join(WEEKDAYS)
_COUNT = "|".join([r"\d{1,3}", *_NUMBER_WORDS])
_NOT_RESOLVED_YET = r"(?!\s*\(\d{4}|\s*\(week of)"
_EXPRESSION = re.compile(
    r"\b(?:"
    r"(?P<before>the day before yesterday)"
    r"|(?P<after>the day after tomorrow)"
    r"|(?P<yesterday>yesterday|last night)"
    r"|(?P<tomorrow>tomorrow)"
    rf"|(?<!the )(?P<rel>last|next|this past|this coming|this) (?P<unit>weekend|week|month|year|{_DAYS})"
    rf"|(?P<count>{_COUNT}) (?P<span>day|week|month|year)s? ago"
    rf")\b{_NOT_RESOLVED_YET}",
    re.IGNORECASE,
)


def resolve_relative_dates(text: str, today: date | None) -> str:
    """`text` with each relative date it contains followed by the absolute date in brackets."""
    if today is None:
        return text

    def write(match: re.Match) -> str:
        resolved = _resolve(match, today)
        return f"{match.group(0)} ({resolved})" if resolved else match.group(0)

    return _EXPRESSION.sub(write, text)


def _resolve(m: re.Match, today: date) -> str | None:
    if m.group("before"):
        return (today - timedelta(days=2)).isoformat()
    if m.group("after"):
        return (today + timedelta(days=2)).isoformat()
    if m.group("yesterday"):
        return (today - timedelta(days=1)).isoformat()
    if m.group("tomorrow"):
        return (today + timedelta(days=1)).isoformat()
    if m.group("rel"):
        return _relative(m.group("rel").lower(), m.group("unit").lower(), today)
    word = m.group("count").lower()
    n = int(word) if word.isdigit() else _NUMBER_WORDS[word]
    return _ago(n, m.group("span").lower(), today) if n else None


def _relative(rel: str, unit: str, today: date) -> str | None:
    step = -1 if rel in ("last", "this past") else 1 if rel in ("next", "this coming") else 0
    monday = today - timedelta(days=today.weekday())
    if unit in WEEKDAYS:
        target = WEEKDAYS.index(unit)
        if step == 0:
            return (monday + timedelta(days=target)).isoformat()
        day = today + timedelta(days=step)
        while day.weekday() != target:
            day += timedelta(days=step)
        return day.isoformat()
    if step == 0 and unit != "weekend":  # "this week/month/year": the line's own date says it
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
    if span == "month":
        return _month(today, -n)
    return str(today.year - n)


def _month(today: date, step: int) -> str:
    index = today.year * 12 + today.month - 1 + step
    return f"{index // 12:04d}-{index % 12 + 1:02d}"
