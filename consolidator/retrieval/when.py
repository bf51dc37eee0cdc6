"""What a query says about time: whether it asks for one, and which period it names.

A pure function of the query, `now` and the scope's time zone (the standard library only):

- asks for a time: "when ...", "what date/day/year/month/time ...", "which year ...", "how long
  ago ...", "since when ...";
- names a period, in the scope's zone: "yesterday", "today", "tomorrow", "this/last/next week|month|year",
  "coming up" / "upcoming" / "on my calendar" (from now to a year on),
  "N days|weeks|months|years ago", "last Monday"/"on Monday" (the latest such day before now),
  "May", "in May", "May 2023", "May 7(th)( 2023)", "7 May( 2023)", "2023", "2023-05-07".
  A month without a year is the latest such month that has begun by `now`, a weekday the latest
  such day before today, unless the query speaks of what is to come ("what's due in January?",
  "what am I doing on Friday?", "do I have anything on May 7?": `FUTURE`) and the period is not
  said as past ("last Monday", "since May"): then the next one (this month, or today, included).

The period is a half-open [start, end) in UTC; recall favours items inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo

from consolidator.domain import MONTHS, WEEKDAYS

_MONTH_NAMES = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_MONTH = "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
_DAY = "|".join(WEEKDAYS)
_UNIT = r"(day|week|month|year)s?"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_COUNT = "|".join(sorted((re.escape(k) for k in _NUMBERS), key=len, reverse=True)) + r"|\d{1,3}"
AHEAD_DAYS = 366  # "what's coming up": a year ahead, a plan's usual horizon
FUTURE = re.compile(r"\b(?:will|'ll|gonna|going to|due|planned|plans?|scheduled|coming|upcoming|need to|have to|"
                    r"should I|do I have|(?:am I|are we) \w+ing)\b", re.I)

ASKS = re.compile(r"\b(when|since when|what (?:date|day|year|month|time|week)|which (?:date|day|year|month|week)"
                  r"|how long ago)\b", re.I)
_PATTERNS = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("relday", re.compile(r"\b(yesterday|today|tonight|tomorrow|this morning|this evening)\b", re.I)),
    ("relspan", re.compile(rf"\b(this|last|next|past) {_UNIT}\b", re.I)),
    ("ago", re.compile(rf"\b({_COUNT}) {_UNIT} ago\b", re.I)),
    ("weekday", re.compile(rf"\b(?:last|on|this|past) ({_DAY})\b", re.I)),
    ("daymonth", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH})\.?(?:,? (\d{{4}}))?\b", re.I)),
    ("monthday", re.compile(rf"\b({_MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}}))?", re.I)),
    ("monthyear", re.compile(rf"\b({_MONTH})\.?,? (\d{{4}})\b", re.I)),
    ("month", re.compile(rf"\b(?:in|during|since|early|late|mid|of) ({_MONTH})\b", re.I)),
    ("year", re.compile(r"\b(?:in |during |since |of )?((?:19|20)\d{2})\b", re.I)),
    # what is coming, when no other period is named ("coming up this week" is this week)
    ("ahead", re.compile(r"\b(?:coming up|upcoming|ahead of me|in the (?:coming|next) (?:days|weeks)|"
                         r"on my (?:calendar|schedule|agenda))\b", re.I)),
]


@dataclass(frozen=True)
class QueryTime:
    asks_when: bool = False
    start: datetime | None = None  # UTC, inclusive
    end: datetime | None = None  # UTC, exclusive
    spans: tuple[tuple[int, int], ...] = ()  # where the query names the period (not search words)

    def search_text(self, query: str) -> str:
        """The query without the words that name its period (they select by time, not by words)."""
        if not self.spans or self.start is None:
            return query
        out, last = [], 0
        for start, end in self.spans:
            out.append(query[last:start])
            last = end
        out.append(query[last:])
        return " ".join(" ".join(out).split())

    @property
    def window(self) -> tuple[float, float] | None:
        if self.start is None or self.end is None:
            return None
        return self.start.timestamp(), self.end.timestamp()


def _utc(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(0), zone).astimezone(timezone.utc)


def _month_start(year: int, month: int) -> date:
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _latest_month(month: int, today: date) -> int:
    return today.year if month <= today.month else today.year - 1


def _span(kind: str, m: re.Match, today: date, future: bool = False) -> tuple[date, date] | None:
    """[first day, day after the last) of what the match names, or None when it names nothing real;
    `future`: a month, weekday or day without its year is the next one, not the latest."""
    g = m.groups()
    try:
        if kind == "iso":
            day = date(int(g[0]), int(g[1]), int(g[2]))
            return day, day + timedelta(days=1)
        if kind == "relday":
            day = today + timedelta(days={"yesterday": -1, "tomorrow": 1}.get(g[0].lower(), 0))
            return day, day + timedelta(days=1)
        if kind == "ahead":  # what is coming: today and the year after it (a plan's day is in its fact's text)
            return today, today + timedelta(days=AHEAD_DAYS)
        if kind in ("relspan", "ago"):
            if kind == "relspan":
                step = {"this": 0, "last": -1, "past": -1, "next": 1}[g[0].lower()]
                unit = g[1].lower()
            else:
                step = -(int(g[0]) if g[0].isdigit() else _NUMBERS[g[0].lower()])
                unit = g[1].lower()
            if unit == "day":
                day = today + timedelta(days=step)
                return day, day + timedelta(days=1)
            if unit == "week":
                monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
                return monday, monday + timedelta(weeks=1)
            if unit == "month":
                first = _month_start(today.year, today.month + step)
                return first, _month_start(first.year, first.month + 1)
            return date(today.year + step, 1, 1), date(today.year + step + 1, 1, 1)
        if kind == "weekday":
            back = (today.weekday() - WEEKDAYS.index(g[0].lower())) % 7 or 7
            day = today + timedelta(days=(7 - back) % 7) if future else today - timedelta(days=back)
            return day, day + timedelta(days=1)
        if kind in ("daymonth", "monthday"):
            day_s, month_s = (g[0], g[1]) if kind == "daymonth" else (g[1], g[0])
            month = _MONTH_NAMES[month_s.lower()]
            year = int(g[2]) if g[2] else _latest_month(month, today)
            day = date(year, month, int(day_s))
            if future and not g[2] and day < today:
                day = date(year + 1, month, int(day_s))
            return day, day + timedelta(days=1)
        if kind == "monthyear":
            first = date(int(g[1]), _MONTH_NAMES[g[0].lower()], 1)
            return first, _month_start(first.year, first.month + 1)
        if kind == "month":
            month = _MONTH_NAMES[g[0].lower()]
            first = date(today.year + (month < today.month) if future else _latest_month(month, today), month, 1)
            return first, _month_start(first.year, first.month + 1)
        if kind == "year":
            return date(int(g[0]), 1, 1), date(int(g[0]) + 1, 1, 1)
    except (ValueError, KeyError):
        return None
    return None


def understand(query: str, now: datetime, zone: tzinfo) -> QueryTime:
    """The query's time: whether it asks one, and the first period it names (see the module)."""
    today = now.astimezone(zone).date()
    taken: list[tuple[int, int]] = []
    period: tuple[date, date] | None = None
    ahead = False
    future = bool(FUTURE.search(query))
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(query):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            ahead_asked = future and m.group(0).split()[0].lower() not in ("last", "past", "since")
            found = _span(kind, m, today, ahead_asked)  # "what had I planned last Monday?" asks of the past
            if found is None:
                continue
            taken.append(m.span())
            if period is None:
                period, ahead = found, kind == "ahead"
    start = end = None
    if period is not None:  # what is coming starts now: what was said earlier today is not ahead
        start, end = now.astimezone(timezone.utc) if ahead else _utc(period[0], zone), _utc(period[1], zone)
    return QueryTime(asks_when=bool(ASKS.search(query)), start=start, end=end, spans=tuple(sorted(taken)))
