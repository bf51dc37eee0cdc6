"""Due dates of the offline task rules (tasks.py): what day a request names.

Relative to the day the message was said on, in the scope's time zone (`at` is
UTC: "tomorrow" said at 00:30 on a Tuesday in Paris is Wednesday): 2025-03-10; March 10 / 10 March (this year,
or next year when already past), with an optional year; today, tonight, tomorrow, the day after
tomorrow; a weekday (the next one strictly after today; "this"/"next"/"coming" Friday all mean
that one), a part of the day after either ("Wednesday evening") belonging to it; a weekday
with its date ("Friday the 14th", "Saturday, March 22") that date, the weekday picking the month; in N
days/weeks; this/next weekend (its Saturday); the end of this or next month, of a named month or of
the year (its last day). Anything else ("end of the week", whose last day is a matter of habit,
"after the holidays") leaves the task undated; how often ("remind me every Monday to ...") stays
in the title. A task moved to another day (`moved_to`) is due on that day.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from consolidator.model.offline.reldates import on_weekday
from consolidator.model.offline.words import MONTHS, WEEKDAYS

MONTH_SHORT = tuple("jan feb mar apr jun jul aug sept sep oct nov dec".split())  # a month as people shorten it
MONTH_NAMES = "|".join([*MONTHS, *MONTH_SHORT])  # a month as a request writes it
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
DUE = re.compile(
    r"\s*\b(?:(?:by|on|before|due|until|for|to|no later than)\s+)?"  # "postpone it to Friday": the "to" too
    rf"(?:(?P<wdp>{'|'.join(WEEKDAYS)}),?\s+)?(?:the\s+)?(?:"  # "on Friday the 4th": the weekday picks the month
    r"(?P<iso>\d{4}-\d{2}-\d{2})"
    rf"|(?P<mon>{MONTH_NAMES})\.? (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (?P<year>\d{{4}}))?"
    rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mon2>{MONTH_NAMES})\b\.?(?:,? (?P<year2>\d{{4}}))?"
    r"|(?P<rel>day after tomorrow|today|tonight|tomorrow)(?: (?:morning|afternoon|evening|night))?"
    rf"|(?<!every )(?<!each )(?:(?:this|next|coming) )?(?P<wd>{'|'.join(WEEKDAYS)})(?: (?:morning|afternoon|evening|night))?"
    rf"(?!,? (?:(?:the )?\d{{1,2}}(?:st|nd|rd|th)\b|\d{{1,2}} (?:of )?(?:{MONTH_NAMES})\b|(?:{MONTH_NAMES})\.? \d))"
    rf"|in (?P<n>\d+|{'|'.join(_NUMBERS)}) (?P<unit>days?|weeks?)|(?P<we>this|next|coming) weekend"
    r"|(?<=the )(?P<dom>\d{1,2})(?:st|nd|rd|th)(?! (?:of|day|time|floor|century|birthday|anniversary)\b)"
    rf"|end of (?:the |this )?(?:(?P<end>month|year)|(?P<next>next month)|(?P<mon3>{MONTH_NAMES}))"
    r")\b(?!['’]s\b)",  # "Friday's meeting" names the meeting, not a due day
    re.I,
)


def due_date(text: str, at: datetime) -> tuple[date | None, re.Match[str] | None]:
    """The first plainly stated due date in `text`, relative to `at`, and where it was."""
    for m in DUE.finditer(text):
        d = _resolve(m, at.date())
        if d is not None:
            return d, m
    return None, None


# A task moved to another day: "Move the plumber call to Wednesday", "the dentist pushed my
# appointment back to Friday", "the call with Ana got moved to Monday".
_MOVE_VERB = r"(?:mov|push|postpon|reschedul|shift|bump)(?:e|es|ed|ing|d|s)?"
_MOVES = (re.compile(rf"^(?P<p>.+?) (?:got|was|were|has been|have been|is being|is|are) {_MOVE_VERB}"
                     r"(?: back| forward| up)? (?:to|until|till) (?P<when>.+)", re.I),
          re.compile(rf"\b{_MOVE_VERB}(?: back| forward)? (?P<p>.+?)(?: back| forward| up)? (?:to|until|till) "
                     r"(?P<when>.+)", re.I))


def moved_to(sentence: str, at: datetime) -> tuple[str, date] | None:
    """What `sentence` moves to another day, and that day (relative to `at`); None if it moves
    nothing, or to a place ("push the car to the garage tomorrow": the day is no "to")."""
    for pattern in _MOVES:
        if (m := pattern.search(sentence)) and (found := due_date(m.group("when"), at))[0] is not None and (
                found[1].start() == 0):
            return m.group("p"), found[0]
    return None


def _resolve(m: re.Match[str], today: date) -> date | None:
    g = m.groupdict()
    try:
        if g["iso"]:
            return date.fromisoformat(g["iso"])
        if g["mon"] or g["mon2"]:
            mon = month_number(g["mon"] or g["mon2"])
            day, year = int(g["day"] or g["day2"]), g["year"] or g["year2"]
            d = date(int(year) if year else today.year, mon, day)
            return d if year or d >= today else date(today.year + 1, mon, day)
    except ValueError:
        return None
    if g["rel"]:
        rel = g["rel"].lower()
        return today + timedelta(days={"today": 0, "tonight": 0, "tomorrow": 1}.get(rel, 2))
    if g["wd"]:
        ahead = (WEEKDAYS.index(g["wd"].lower()) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)
    if g["we"]:  # its Saturday (this weekend's on a Sunday is today), a week on for the next one
        return today + timedelta(days=(0 if today.weekday() == 6 else (5 - today.weekday()) % 7)
                                 + (7 if g["we"].lower() == "next" else 0))
    if g["n"]:
        n = int(g["n"]) if g["n"].isdigit() else _NUMBERS[g["n"].lower()]
        return today + timedelta(days=n * (7 if g["unit"].lower().startswith("week") else 1))
    if g["end"] or g["next"] or g["mon3"]:  # "by the end of February": its last day
        year, mon = today.year, 12 if (g["end"] or "").lower() == "year" else today.month + bool(g["next"])
        if g["mon3"]:
            mon = month_number(g["mon3"])
            year += mon < today.month
        first_after = date(year + mon // 12, mon % 12 + 1, 1)
        return first_after - timedelta(days=1)
    if g["dom"] and g["wdp"]:  # "on Friday the 4th": the next 4th that is a Friday
        dated = on_weekday(today, WEEKDAYS.index(g["wdp"].lower()), "future", int(g["dom"]))
        return date.fromisoformat(dated) if dated else _nth_of(today, int(g["dom"]) < today.day, int(g["dom"]))
    if g["dom"]:  # "on the 27th": that day of this month, or of the next when it is past
        month = today.replace(day=1)
        if int(g["dom"]) < today.day:
            month = (month + timedelta(days=32)).replace(day=1)
        try:
            return month.replace(day=int(g["dom"]))
        except ValueError:
            return None
    return None


def _nth_of(today: date, months_on: int, day: int) -> date | None:
    """That day of the month `months_on` after today's, or None where it has none (a 31st)."""
    year, month = divmod(today.month - 1 + months_on, 12)
    try:
        return date(today.year + year, month + 1, day)
    except ValueError:
        return None


def month_number(name: str) -> int:
    """1 for "January", "jan" or "Jan."; 12 for "December"."""
    low = name.lower()[:3]
    return [m[:3] for m in MONTHS].index(low) + 1
