"""When a scope next has work: the due time a daemon leaves in the work queue after working it.

A scope's row is the only thing that brings a daemon back to it, so every kind of pending
work must show up here, including the time-driven kinds that happen with no new message:
- messages not yet placed or batched: now; a partial batch: its newest message + flush_idle;
- the head run of each step: its next_at (a retry's backoff, a budget deferral), else now;
  a failed head holds its step (nothing due until `retry` re-arms it, which marks the scope);
- the ladders: while the newest message is younger than the longest time rung, every day
  close (local midnight + day_grace in the scope's time zone) may close a window; the
  interaction of the newest message completes interaction_gap after it; a held window
  comes back at its hold's next_at; a base window still dirty (left by a stop or a failed
  write) when it closes;
- the offline facts pass: facts changed since the last pass run once the scope is idle
  (newest message + sleep_idle); fact uses and stale views: now.
None when nothing is pending: the row is removed and the scope costs nothing until its next
append. A time at or before `now` (work left by a stop or a failing publication) means the
next tick: the tick that worked the scope does not claim it again (pipeline/tick.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from consolidator.core.config import Settings
from hierarchy.calendar import day_closes_at
from hierarchy.planning import closed_through
from hierarchy.tiling import time_ladder
from stores.pending import Pending



def ladder_horizon(settings: Settings) -> timedelta:
    """How long after a scope's newest message a time window holding it may still be open:
    the longest time rung (blocks are aligned, so the one holding the message ends within
    that span of it), plus a day for the zone and the grace."""
    return timedelta(days=max(rung.size for rung in time_ladder(tuple(settings.ladders.time)).rungs) + 1)


def next_due(pending: Pending, settings: Settings, tz: ZoneInfo, now: datetime, known_steps: set[str]) -> datetime | None:
    """The earliest time the scope has work again, or None when it has none."""
    times: list[datetime] = []
    if pending.newest_seq > pending.assigned_seq:
        times.append(now)
    if pending.newest_seq > pending.batched_seq:
        if pending.newest_seq - pending.batched_seq >= settings.batch_size or pending.tail_newest_at is None:
            times.append(now)
        else:
            times.append(pending.tail_newest_at + settings.flush_idle)
    for step, next_at in pending.run_heads:
        if step in known_steps:
            times.append(next_at or now)
    if pending.hold_until is not None:
        times.append(pending.hold_until)
    newest = pending.newest_at
    if newest is not None and now - newest < ladder_horizon(settings):
        grace = settings.ladders.day_grace
        times.append(day_closes_at(closed_through(tz, grace, now) + 1, tz, grace))
        if newest + settings.interaction_gap > now:
            times.append(newest + settings.interaction_gap)
    if pending.hold_until is None:  # a window left unwritten (a stop, a failed write): when it closes
        if pending.dirty_day is not None:  # (a held window stays dirty: its hold says when instead)
            times.append(day_closes_at(pending.dirty_day, tz, settings.ladders.day_grace))
        if pending.dirty_interaction_at is not None:
            times.append(pending.dirty_interaction_at + settings.interaction_gap)
    if pending.unslept:
        times.append(max(now, newest + settings.facts.sleep_idle) if newest is not None else now)
    if pending.uses or pending.stale_views:
        times.append(now)
    if not times:
        return None
    return min(times)
