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
or a number word up to twelve ("a"/"an" is one; a weekend is its Saturday), "in <n> days|weeks|
months|years" leading a clause or said of what will be ("is due in 3 days"; "finished it in a
month" is a duration), and a bare weekday
by its clause's tense ("I have a dentist appointment on Thursday": the next Thursday; "I went
for a check-up Monday": the last Monday; `_tense`), a day moved or due to ahead whatever the
tense ("moved to Friday", "by Monday"). Everything else is left alone: "today"
(the line's own date is beside it), "the last/next week" (a span of time, not a calendar week),
a weekday whose clause tells no tense ("See you Friday!") or that recurs ("on Mondays"), vague
amounts ("a few days ago", "about five years ago", "recently"), seasons (hemisphere).
An expression already followed by a bracketed date is not resolved twice, so a summary of
summaries keeps one date. Conventions: "last Saturday" is the latest Saturday strictly before
the day, "next Saturday" the first strictly after, "this Saturday" the one in the day's
Monday-to-Sunday week; weeks start on Monday.
"""

from __future__ import annotations

import re
from contextlib import suppress
from functools import lru_cache
from datetime import date, timedelta

from consolidator.model.offline.text import past_form
from consolidator.model.offline.words import MONTHS as LOWER_MONTHS, NUMBER_WORDS, TITLES, WEEKDAYS

MONTHS = tuple(m.capitalize() for m in LOWER_MONTHS)
# Short weekdays, capitalised only: "last Sat" is a day, "the chair I last sat on" is not.
_SHORT_DAYS = {"Mon": 0, "Tue": 1, "Tues": 1, "Wed": 2, "Thu": 3, "Thur": 3, "Thurs": 3, "Fri": 4, "Sat": 5,
               "Sun": 6}
_NUMBER_WORDS = {"a": 1, "an": 1, **NUMBER_WORDS}
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
_PART_OF_DAY = r"(?: (?:morning|afternoon|evening|night))?"  # "yesterday morning": one time, all of it dated
_EXPRESSION = re.compile(
    r"\b(?:"
    r"(?P<before>the day before yesterday)"
    r"|(?P<after>the day after tomorrow)"
    rf"|(?P<yesterday>yesterday{_PART_OF_DAY}|last night)"
    rf"|(?P<tomorrow>tomorrow{_PART_OF_DAY})"
    rf"|(?<!the )(?P<rel>last|next|this past|this coming|this) (?P<unit>weekend|week|month|year|{_DAYS}"
    rf"|(?-i:{_SHORT})){_PART_OF_DAY}"
    rf"|{_NOT_APPROXIMATE}(?P<count>{_COUNT}) (?P<span>day|weekend|week|month|year)s? ago"
    rf"|in (?P<ahead>{_COUNT}) (?P<unit_ahead>day|week|month|year)s?"  # "in two weeks", of what will be
    rf")\b{_NOT_RESOLVED_YET}",
    re.IGNORECASE,
)
# A word every expression holds: a text without one has nothing to resolve (most sentences), and
# this search is a fraction of the expression's.
_CUE = re.compile(rf"yesterday|tomorrow|last|next|this|ago|\bin (?:{_COUNT}) |{_DAYS}", re.IGNORECASE)
# A bare weekday ("on Thursday", "a check-up Monday"; not "Mondays", not after last/next/this):
# the clause's tense says which (`_tense`).
# A date that follows a weekday ("Friday the 4th", "Thursday, December 3", "Friday 4 December"; not "Friday 4pm")
_DATE_AFTER = (rf"(?:(?:the )?\d{{1,2}}(?:st|nd|rd|th)\b|\d{{1,2}} (?:of )?(?:{'|'.join(MONTHS)})\b"
               rf"|(?:{'|'.join(MONTHS)}) \d)")
WEEKDAY_BEFORE = re.compile(rf"(?:\bon )?\b(?:{_DAYS}),? (?:on )?$", re.I)  # the weekday just before a date
_BARE_DAY = re.compile(
    rf"(?<![\w'’-])(?<!last )(?<!next )(?<!this )(?<!past )(?<!this coming )(?<!every )(?:on )?(?P<day>{_DAYS})"
    rf"{_PART_OF_DAY}"  # "on Tuesday morning": one time
    rf"(?![\w'’-])(?!,? {_DATE_AFTER}){_NOT_RESOLVED_YET}",  # "Saturday the 15th", "Friday 4 December",
    re.IGNORECASE)  # "Thursday, December 3": the date's, which the weekday picks the month or year of
_TITLE_DOT = re.compile(rf"\b({TITLES})\.")
_CLAUSE_END = re.compile(r"[.;:!?,]|\s(?:and|but|so|because|when|while|which|who|that)\s", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z]+(?:['’][a-z]+)?")
# What will be, and what one wants, needs or plans now ("Tiago wants a demo on January 15th")
_FUTURE_WORDS = frozenset("will shall gonna wanna want wants need needs plan plans hope hopes expect expects".split())
_BE = frozenset("am is are 'm 're 's".split())
_HAVE = frozenset("have has 've".split())
_DAY_RANGE = re.compile(rf"\s*(?:to|through|thru|till|until|-|\u2013)\s*(?:{_DAYS})\b", re.I)
_DAY_RANGE_END = re.compile(rf"\b(?:{_DAYS})\s*(?:to|through|thru|till|until|-|\u2013)\s*$", re.I)
_HABIT = frozenset("every each monthly weekly daily yearly annually".split())
_PAST_WORDS = frozenset("was were did had".split())  # and every past form (text.past_form)
_TOWARD = frozenset("to until till by before".split())
# A timetable's present speaks of what will be ("my flight leaves on Friday", "school starts on Monday",
# "my passport expires in March").
_SCHEDULED = frozenset("start starts begin begins leave leaves arrive arrives land lands depart departs fly flies "
                       "return returns open opens move moves due expire expires end ends close closes renew renews".split())


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

    def write_day(match: re.Match) -> str:
        resolved = _weekday(match, today)
        return f"{match.group(0)} ({resolved})" if resolved else match.group(0)

    return _BARE_DAY.sub(write_day, _EXPRESSION.sub(write, text))


def relative_dates(text: str, today: date | None) -> list[tuple[re.Match, str]]:
    """Each relative date of `text` that resolves against `today`, with what it resolves to
    (as written beside it: "2023-05-07", "week of 2023-05-01", "June 2023", "2022")."""
    if today is None or not _CUE.search(text):
        return []
    found = [(m, r) for m in _EXPRESSION.finditer(text) if (r := _resolve(m, today))]
    taken = [range(m.start(), m.end()) for m, _ in found]
    found += [(m, r) for m in _BARE_DAY.finditer(text)
              if not any(m.start() in span for span in taken) and (r := _weekday(m, today))]
    return sorted(found, key=lambda pair: pair[0].start())


def day_ahead(text: str, day: str | None) -> bool:
    """Whether `text` names a time after `day` (ISO): a plan's day ("on Friday", "tomorrow", "on
    March 14") or a week or month that starts after it ("next week", "next month")."""
    today = date.fromisoformat(day) if day else None
    return any(start_of(r) > (day or "") for _, r in relative_dates(text, today) + absolute_dates(text, today))


def start_of(resolved: str) -> str:
    """The first day (ISO) of a resolved date: "week of 2026-11-09" its Monday, "December 2026"
    its 1st; a year alone gives "" (never ahead: "in 2015" bounds a span, "next year" is vague)."""
    if resolved.startswith("week of "):
        return resolved[8:]
    month, _, year = resolved.partition(" ")
    if year and month in MONTHS:
        return f"{year}-{MONTHS.index(month) + 1:02d}-01"
    return resolved if len(resolved) == 10 else ""


# A calendar date written out ("on March 14", "March 14, 2026", "on the 3rd of May", "in June 2018",
# "in April", "in 2015"): the clause's tense picks the year a month or day lacks. A month alone
# needs its "in" ("with April" is a name); a year needs it too ("since 2015" bounds a span).
_MONTH = "|".join(MONTHS)
_YEARLY = re.compile(r"\b(?:birthday|bday|b-day|anniversary|name day)\b", re.I)
_BORN = re.compile(r"\bborn\b", re.I)
_ORDINAL = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,? (?P<y>(?:19|20)\d\d))?"
_ABSOLUTE = re.compile(
    rf"\b(?:(?:on |in )?(?:(?P<m>{_MONTH}) {_ORDINAL}\b|(?:the )?{_ORDINAL.replace('<d>', '<d2>')} (?:of )?(?P<m2>{_MONTH})){_YEAR}"
    rf"|in (?P<m3>{_MONTH})(?: (?P<y3>(?:19|20)\d\d))?|in (?P<y4>(?:19|20)\d\d)"
    rf"|(?<=moved to )(?P<m5>{_MONTH})(?! (?:19|20)\d\d)"  # "the move was moved to March": a month ahead
    r"|(?:on )?the (?P<dom>\d{1,2})(?:st|nd|rd|th)(?! (?:of|floor|century|time|grade|place|row|birthday|anniversary)\b))"
    rf"\b(?![\w'-]){_NOT_RESOLVED_YET}")


def absolute_dates(text: str, today: date | None) -> list[tuple[re.Match, str]]:
    """Each calendar date `text` writes out, with the date it is ("2026-03-14", "June 2018", "2015");
    a day or month without its year is the next one after `today` if the clause speaks of what will
    be, the last one if of what was, and left alone if it tells no tense."""
    if today is None:
        return []
    found = []
    for m in _ABSOLUTE.finditer(text):
        if m.group("y4"):
            found.append((m, m.group("y4")))
            continue
        words = _words(text[:m.start()])
        weekday = WEEKDAYS.index(words[-1]) if words and words[-1] in WEEKDAYS and not m.group("m3") else None
        lead = words[-2:-1] if weekday is not None else words[-1:]  # "pushed it to Friday the 11th": "to"
        ahead = lead and lead[0] in (*_TOWARD, "for") and not (lead[0] == "to" and "from" in words)
        told = _tense(text[:m.start()], text[m.end():])
        tense = "future" if ahead else told
        if m.group("dom"):  # "flying to Madeira on the 20th": that day of this month, or of the next or last one;
            month_said = next((r for _, r in reversed(found) if len(r) == 10), None)  # "March 14 ... back on the 18th"
            if month_said:
                with suppress(ValueError):
                    found.append((m, date.fromisoformat(month_said).replace(day=int(m.group("dom"))).isoformat()))
            elif dom := (on_weekday(today, weekday, tense, day=int(m.group("dom"))) if weekday is not None
                         else _day_of_month(int(m.group("dom")), today, told)):
                found.append((m, dom))
            continue
        month = MONTHS.index(m.group("m") or m.group("m2") or m.group("m3") or m.group("m5")) + 1
        tense = "future" if m.group("m5") else tense
        day, year = int(m.group("d") or m.group("d2") or 0), m.group("y") or m.group("y3")
        if weekday is not None and day and not year and (dated := on_weekday(today, weekday, tense, day, month)):
            found.append((m, dated))  # "on Thursday, December 3": the year whose December 3 is a Thursday
            continue
        tense = None if year else tense  # a span's end not
        if not year and (not tense or _BORN.search(text[:m.start()])):  # "born in May": of no year the tense tells
            continue
        if not day:
            y = int(year) if year else today.year + (
                (tense == "future" and month < today.month) - (tense == "past" and month > today.month))
            found.append((m, f"{MONTHS[month - 1]} {y}"))
            continue
        try:
            when = date(int(year) if year else today.year, month, day)
        except ValueError:  # "February 30"
            continue
        if not year and tense == "future" and when < today or tense == "past" and when > today:
            when = when.replace(year=when.year + (1 if tense == "future" else -1))
        found.append((m, when.isoformat()))
    return found


def on_weekday(today: date, weekday: int, tense: str | None, day: int, month: int | None = None) -> str | None:
    """The date a weekday and a day of a month (and the month, if said) name together ("Friday the
    11th", "Thursday, December 3"): of the dates within a year either side of `today` that fall on
    that weekday, the first from today on if `tense` is "future", the last up to today if "past",
    else the nearest; None if no such date is near (the weekday and the day disagree)."""
    near = []
    for k in range(-13, 14):
        y, mo = divmod(today.month - 1 + k, 12)
        if month is not None and mo + 1 != month:
            continue
        with suppress(ValueError):
            if (when := date(today.year + y, mo + 1, day)).weekday() == weekday and abs((when - today).days) <= 366:
                near.append(when)
    if tense == "future":
        near = [d for d in near if d >= today][:1]
    elif tense == "past":
        near = [d for d in near if d <= today][-1:]
    return min(near, key=lambda d: abs((d - today).days)).isoformat() if near else None


def _day_of_month(day: int, today: date, tense: str | None) -> str | None:
    """The next such day of a month (`tense` "future") or the last one ("past"); None without a tense."""
    if tense is None or not 1 <= day <= 31:
        return None
    step = 1 if tense == "future" else -1
    year, month = today.year, today.month
    for _ in range(3):  # a 31st is at most two months away
        try:
            when = date(year, month, day)
        except ValueError:
            when = None
        if when and (when >= today if step > 0 else when <= today):
            return when.isoformat()
        month += step
        year, month = (year + 1, 1) if month > 12 else (year - 1, 12) if month < 1 else (year, month)
    return None


def resolve_absolute_dates(text: str, today: date | None, about: str = "") -> str:
    """`text` with a calendar date that lacks its year followed by the date it is, as a relative one
    is ("Ana's wedding is on June 14 (2026-06-14)"); one with its year, or no tense to place it, as is,
    and a day that comes every year ("Rui's birthday is March 3", `about` naming what the text says it of) too."""
    if _YEARLY.search(f"{about} {text}"):
        return text
    out, end = [], 0
    for m, resolved in absolute_dates(text, today):
        if not (m.group("y") or m.group("y3") or m.group("y4")):
            out += [text[end:m.end()], f" ({resolved})"]
            end = m.end()
    return "".join(out) + text[end:]


def _weekday(m: re.Match, today: date) -> str | None:
    """A bare weekday by its clause's tense: said of what will be ("I have a dentist appointment on
    Thursday", "Ana is visiting on Saturday", "the party is on Friday") the next one after the day;
    of what was ("I went for a check-up Monday") the last one before it; else (no tense it tells,
    "on Mondays" or "every Friday" is habitual) nothing."""
    if _DAY_RANGE.match(m.string, m.end()) or _DAY_RANGE_END.search(m.string[:m.start()]):
        return None  # "Monday to Thursday": days of a week's routine, no one day
    lead = _words(m.string[:m.start()])[-1:]
    # a day something is moved or due to is ahead, whatever the verb's tense ("moved to Friday")
    tense = "future" if lead and lead[0] in _TOWARD else _tense(m.string[:m.start()], m.string[m.end():])
    return _relative("next" if tense == "future" else "last", m.group("day").lower(), today) if tense else None


_COMMITTED = frozenset("promised agreed decided offered arranged vowed swore".split())  # not "planned": it may be past
_NOT_VERB = frozenset("the a an my your his her its our their this that these those it".split())  # "agreed to the terms"


def _tense(before: str, after: str) -> str | None:
    """"future", "past" or None, from the words of the clause a weekday is in (a fronted "On
    Monday, I went ..." from the clause after it). Future: will, gonna, going to; a want, need,
    plan, hope or expectation said in the present ("wants a demo on January 15th"); a form of "be"
    before an -ing word ("is visiting"), right before the weekday ("is on Friday") or before a
    participle right before it ("is closed on Friday"); have/has
    with a thing scheduled ("have a dentist appointment"); a timetable's present ("leaves", "starts").
    Past: was, were, did, had, a past form."""
    before = _TITLE_DOT.sub(r"\1", before)  # "a follow-up with Dr. Reis on the 18th": no clause ends at "Dr."
    marks = _words(_CLAUSE_END.split(before)[-1])
    if _HABIT & {*marks, *_words(_CLAUSE_END.split(after.lstrip(" ,"), maxsplit=1)[0])}:
        return None  # "pay rent by the 5th every month": no one day
    if not [w for w in marks if w != "on"]:
        marks = _words(_CLAUSE_END.split(after.lstrip(" ,"), maxsplit=1)[0])
    if any(w in _FUTURE_WORDS or w == "'ll" or w in _SCHEDULED for w in marks) or "going to" in " ".join(marks):
        return "future"
    if any(w in _COMMITTED and nxt == "to" and then not in _NOT_VERB for w, nxt, then in zip(marks, marks[1:], marks[2:])):
        return "future"  # "I promised to visit him in January": what was promised is ahead
    for k, w in enumerate(marks):
        if w in _BE and (any(v.endswith("ing") and len(v) > 4 for v in marks[k + 1:k + 3]) or k == len(marks) - 1
                         or marks[k + 1:] == ["on"] or marks[k + 2:] in ([], ["on"]) and past_form(marks[k + 1])):
            return "future"  # "is visiting on", "is on Friday", a state the day will be in: "is closed on Friday"
        owned = marks[k + 2:k + 3] if marks[k + 1:k + 2] == ["got"] else marks[k + 1:k + 2]  # "'ve got a ..."
        if w in _HAVE and owned and owned[0] in ("a", "an", "my", "the", "our", "his", "her", "their"):
            return "future"
    if any(w in _PAST_WORDS or past_form(w) for w in marks):
        return "past"
    return None


def _words(text: str) -> list[str]:
    """Lower-case words, a contraction's ending apart ("I'll" -> "i", "'ll")."""
    out: list[str] = []
    for w in _TOKEN.findall(text.lower().replace("’", "'")):
        head, _, tail = w.partition("'")
        out += [head, "'" + tail] if tail in ("ll", "m", "re", "s", "ve") else [w]
    return out


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
    if ahead := m.group("ahead"):  # a lead ("In two weeks, we fly ...") or said of what will be; else a duration
        if m.start() > 0 and _tense(m.string[:m.start()], m.string[m.end():]) != "future":
            return None
        n = int(ahead) if ahead.isdigit() else _NUMBER_WORDS[ahead.lower()]
        return _ago(-n, m.group("unit_ahead").lower(), today)
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
