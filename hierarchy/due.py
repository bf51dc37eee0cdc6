"""When one ladder of a scope next has work: a pure function of what the stage recorded and `now`.

An idle scope costs nothing only if the daemon can leave it alone until something is due.
A ladder's work comes from four places, each with the instant it becomes due:
- messages or announcements the stage has not looked at yet: now;
- a dirty base window: a day once it closes (its local midnight plus grace); an
  interaction once it is complete (a newer one began, or `gap` passed since its last message);
- a held window: its hold's `next_at`;
- a higher time block that holds a day with content and waits for its last day to close:
  that close (hierarchy.planning.next_closing, from the day the stage has woken through).
A window with nothing in it is never due: it writes nothing. So a scope that said something
once is due a handful of times afterwards (its week, 4 weeks, 12 weeks and 52 weeks
closing), then never again until it speaks.

No database, no clock: the caller gathers `LadderFacts` and passes `now`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Mapping
from zoneinfo import ZoneInfo

from hierarchy.calendar import day_closes_at
from hierarchy.planning import next_closing
from hierarchy.tiling import LadderSpec


@dataclass(frozen=True)
class LadderFacts:
    """What the ladder stage has recorded for one ladder of one scope."""

    spec: LadderSpec
    unseen: bool = False  # messages or announcements the stage has not looked at yet
    dirty: Mapping[int, datetime] = field(default_factory=dict)  # base unit -> newest message time
    held_until: tuple[datetime, ...] = ()  # each held window's next try
    woken_through: int | None = None  # time ladder: the newest closed day whose closing blocks were woken
    last_content: int | None = None  # time ladder: the newest day whose summary says something
    newest_interaction: int = 0  # count ladder: the newest interaction number


def next_due(facts: LadderFacts, tz: ZoneInfo, grace: timedelta, gap: timedelta, now: datetime) -> datetime | None:
    """The first instant (never before `now`) at which the ladder has work; None: none until a new message."""
    if facts.unseen:
        return now
    times = list(facts.held_until)
    if facts.spec.kind == "time":
        times.extend(day_closes_at(unit, tz, grace) for unit in facts.dirty)
        if facts.woken_through is not None:  # None: the stage never looked, so nothing was written yet
            unit = next_closing(facts.spec, facts.woken_through, facts.last_content)
            if unit is not None:
                times.append(day_closes_at(unit, tz, grace))
    else:
        times.extend(now if number < facts.newest_interaction else last_at + gap
                     for number, last_at in facts.dirty.items())
    return max(min(times), now) if times else None
