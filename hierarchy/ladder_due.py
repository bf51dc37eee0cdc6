"""When one ladder of a scope next has work: a pure function of what the stage recorded and `now`.

An idle scope costs nothing only if the daemon can leave it alone until something is due.
A ladder's work comes from four places, each with the instant it becomes due:
- messages or announcements the stage has not looked at yet: now;
- a dirty base window: a day once it closes (its local midnight plus grace); an
  interaction once it is complete (a newer one began, or `gap` passed since its last message);
- a held window (a dirty base window included): its hold's `next_at`;
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

from hierarchy.calendar import block_key, day_closes_at
from hierarchy.planning import next_closing
from hierarchy.tiling import Block, LadderSpec


@dataclass(frozen=True)
class LadderFacts:
    """What the ladder stage has recorded for one ladder of one scope."""

    spec: LadderSpec
    unseen: bool = False  # messages or announcements the stage has not looked at yet
    # dirty base windows: day unit -> newest message time; interaction number -> its last message time
    dirty: Mapping[int, datetime] = field(default_factory=dict)
    held: Mapping[tuple[str, str], datetime] = field(default_factory=dict)  # (rung, key) -> next try
    woken_through: int | None = None  # time ladder: the newest closed day whose closing blocks were woken
    last_content: int | None = None  # time ladder: the newest day whose summary says something
    newest_interaction: int = 0  # count ladder: the newest interaction number


def next_due(facts: LadderFacts, tz: ZoneInfo, grace: timedelta, gap: timedelta, now: datetime) -> datetime | None:
    """The first instant (never before `now`) at which the ladder has work; None: none until a new message."""
    if facts.unseen:
        return now
    spec = facts.spec
    base = spec.rungs[0].name
    dirty = {(base, block_key(spec, Block(0, unit if spec.kind == "time" else unit - 1))): unit for unit in facts.dirty}
    # a base window is only ever tried while dirty: a hold left on a clean one (a crash between
    # the write and the release) makes nothing due
    times = [at for window, at in facts.held.items() if window[0] != base or window in dirty]
    for window, unit in dirty.items():
        last_at = facts.dirty[unit]
        if window in facts.held:
            continue  # its hold says when it is tried again
        if spec.kind == "time":
            times.append(day_closes_at(unit, tz, grace))
        else:
            times.append(now if unit < facts.newest_interaction else last_at + gap)
    if spec.kind == "time" and facts.woken_through is not None:  # None: never looked at, nothing written yet
        unit = next_closing(spec, facts.woken_through, facts.last_content)
        if unit is not None:
            times.append(day_closes_at(unit, tz, grace))
    return max(min(times), now) if times else None
