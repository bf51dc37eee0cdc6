"""The written form of an offline summary, and how the summariser reads its inputs back.

A summary is read by people and by the rung above, so it says who and when once, not on
every line. Raw input lines repeat "2023-05-08 13:56 Ana: " on every line (about 17
characters of date and time each); a summary writes instead

    2023-05-08 13:56
    Ana: I went to a support group yesterday (2023-05-07). It was powerful.
    Marina: I painted that lake sunrise last year (2022).

- a header line "YYYY-MM-DD HH:MM" where a session starts: a new date, a gap of SESSION_GAP
  or more between consecutive input turns, or a header in the input (a session of a lower
  rung's summary stays one session). HH:MM is the time of the session's first chosen line:
  17 characters a session, not 17 a line;
- one "Speaker: " line per run of chosen sentences of one speaker within a session
  (consecutive turns of one speaker merge);
- undated text without a speaker (plain inputs) is joined with spaces, as it came.

An aside ("[laughs]", an attachment "(photo: a cup with a dog face)") is a sentence of its own
(text_compact.split_asides): it is chosen or left apart from the words around it.

Read back (parse_turns), an input may hold any of: raw lines ("date time who: text", one
message, whose later lines are part of its text), summaries in this form, summaries in the
older one-prefix-per-line form, and passed-through windows ("label: text" joined by newlines,
labels possibly stacked, "2023-W19: 2023-05-08 (Mon): 2023-05-08 13:56"). A "Who: text" line
is read as a speaker's turn only inside a header's block, so a raw message's own line
"Note: buy milk" stays part of its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from consolidator.model.offline.text import sentences
from consolidator.model.offline.text_compact import split_asides

SESSION_GAP = 30  # minutes between turns that start a new session (as the default interaction_gap)

_LABELS = r"(?:[^:\n]{1,40}:[ \t]+)*?"  # "2023-05-09 (Tue): " labels of a passed-through window
_PREFIX_LINE = re.compile(
    rf"^{_LABELS}(?P<date>\d{{4}}-\d{{2}}-\d{{2}}) (?P<time>\d{{2}}:\d{{2}}) (?P<who>[^\s:][^:\n]{{0,39}}?): (?P<body>.*)$"
)
_HEADER_LINE = re.compile(rf"^{_LABELS}(?P<date>\d{{4}}-\d{{2}}-\d{{2}})(?: (?P<time>\d{{2}}:\d{{2}}))?[ \t]*$")
_SPEAKER_LINE = re.compile(r"^(?P<who>[^\s:.!?][^:\n.!?]{0,39}?): (?P<body>.*)$")


@dataclass
class Turn:
    """What one speaker said at one time (or a piece of plain text), split into sentences."""

    speaker: str | None
    day: date | None  # the local date it was said on (its own, else the input's label date)
    time: str | None  # "HH:MM" where the input says it
    dated: bool  # the date comes from the text itself, so the summary writes it in a header
    session: int = 0
    text: str = ""
    sentences: list[str] = field(default_factory=list)


def _date(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _minutes(time: str | None) -> int | None:
    return int(time[:2]) * 60 + int(time[3:]) if time else None


def parse_turns(texts: list[str], days: list[date | None] | None = None) -> list[Turn]:
    """The turns of all inputs in order, each with its speaker, local date, time and session.

    `days[i]` dates the undated text of input i (its label's date); see the module docstring
    for the forms read.
    """
    turns: list[Turn] = []
    breaks: set[int] = set()  # turns that start a session because a header says so
    for i, text in enumerate(texts):
        read, headed = _read_input(text, days[i] if days else None)
        breaks.update(len(turns) + n for n in headed)
        turns.extend(Turn(speaker, day, time, dated, text=body) for speaker, day, time, dated, body in read)
    for t in turns:
        t.sentences = list(sentences_of(t.text))
    _sessions(turns, breaks)
    return [t for t in turns if t.sentences]


@lru_cache(maxsize=1 << 12)
def _read_input(text: str, fallback: date | None) -> tuple[tuple[tuple, ...], tuple[int, ...]]:
    """One input's turns as (speaker, day, time, dated, text), and the turns (counted within the
    input) that a header starts; cached, since the day and its interactions' summaries read the
    same lines."""
    turns: list[Turn] = []
    breaks: list[int] = []
    block: tuple[date | None, str | None] | None = None  # the header whose block we are in
    current: Turn | None = None
    for line in text.split("\n"):
        if m := _PREFIX_LINE.match(line):
            block, day = None, _date(m.group("date"))
            current = Turn(m.group("who"), day or fallback, m.group("time"), day is not None, text=m.group("body"))
            turns.append(current)
        elif m := _HEADER_LINE.match(line):
            block, current = (_date(m.group("date")), m.group("time")), None
            breaks.append(len(turns))
        elif block is not None and (m := _SPEAKER_LINE.match(line)):
            day, time = block
            current = Turn(m.group("who"), day or fallback, time, day is not None, text=m.group("body"))
            turns.append(current)
        elif current is not None:
            current.text += "\n" + line
        elif line.strip():
            current = Turn(None, block[0] if block and block[0] else fallback, block[1] if block else None,
                           bool(block and block[0]), text=line)
            turns.append(current)
    return tuple((t.speaker, t.day, t.time, t.dated, t.text) for t in turns), tuple(breaks)


@lru_cache(maxsize=1 << 12)
def sentences_of(text: str) -> tuple[str, ...]:
    """A turn's sentences, each aside apart; cached, since the day and its interactions' summaries
    read the same lines."""
    return tuple(part for s in sentences(text) for part in split_asides(s))


def _sessions(turns: list[Turn], breaks: set[int]) -> None:
    """Session numbers: a new one at a header, a new date, a change between dated and undated
    text, or a gap of SESSION_GAP minutes or more."""
    session = 0
    for n, turn in enumerate(turns):
        if n:
            prev = turns[n - 1]
            a, b = _minutes(prev.time), _minutes(turn.time)
            gap = a is not None and b is not None and b - a >= SESSION_GAP
            if n in breaks or turn.day != prev.day or turn.dated != prev.dated or gap:
                session += 1
        turn.session = session


def render(pieces: list[tuple[Turn, str]]) -> str:
    """`pieces` (a turn and one of its sentences, in input order) written in the summary form."""
    out, prev = [], None
    for turn, text in pieces:
        out += [separator(prev, turn), text]
        prev = turn
    return "".join(out)


def separator(prev: Turn | None, turn: Turn) -> str:
    """What is written before a sentence of `turn` that follows one of `prev` (None: the first):
    a session's header, a speaker's label, or a space within a speaker's run. A summary's
    length is the sum of its sentences and their separators, so the cost of adding a sentence
    depends on its neighbours only."""
    label = f"{turn.speaker}: " if turn.speaker else ""
    if prev is None or prev.session != turn.session:
        header = ""
        if turn.dated and turn.day:
            header = (f"{turn.day.isoformat()} {turn.time}" if turn.time else turn.day.isoformat()) + "\n"
        return ("" if prev is None else "\n") + header + label
    return " " if prev.speaker == turn.speaker else "\n" + label
