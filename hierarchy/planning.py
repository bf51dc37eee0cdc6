"""What the ladders should write next: pure functions of recorded state and `now`.

The daemon records, per scope and ladder, which base windows received messages since
they were last summarised ("dirty") and the latest summary of every window it has
announced. From that alone these functions decide:

- which days are closed and must be announced (summarised when dirty, empty otherwise);
- which interactions are complete and dirty;
- for any higher block, whether it must wait for a missing input, is already up to date,
  is empty for free, can pass its inputs through (they fit the budget), or needs a
  summary call.

No database, no clock: tests call these with chosen values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Iterable, Mapping
from zoneinfo import ZoneInfo

from hierarchy.calendar import local_day
from hierarchy.interactions import interaction_complete
from hierarchy.tiling import Block, LadderSpec, inputs_of


@dataclass(frozen=True)
class Known:
    """The latest summary announced for one window."""

    summary_id: str
    version: int
    empty: bool
    tokens: int
    sources: tuple[str, ...] = ()


class Action(str, Enum):
    WAIT = "wait"  # an input has not been announced yet
    SKIP = "skip"  # already written from exactly these input versions
    EMPTY = "empty"  # every input is empty: announce empty, no call
    PASS = "passed"  # one input, or inputs that fit the budget together: they are the summary
    SUMMARIZE = "summarized"  # one model call (or a reuse of an identical earlier one)


@dataclass(frozen=True)
class Decision:
    action: Action
    block: Block
    inputs: tuple[Block, ...]
    input_ids: tuple[str, ...] = ()
    missing: tuple[Block, ...] = ()


BEFORE_HISTORY = Known(summary_id="", version=0, empty=True, tokens=0)


def decide_block(
    spec: LadderSpec, block: Block, known: Mapping[Block, Known], budget_tokens: int, floor: int | None = None
) -> Decision:
    """Decide a higher block (rung >= 1) from the latest announcements of its inputs.

    `floor` is the scope's first unit: an input lying wholly before it is empty by
    definition (nothing was logged then), so a block straddling the start of a scope's
    history does not wait for windows that will never be announced.
    """
    if block.rung == 0:
        raise ValueError("base windows are planned from the raw log, not from announcements")
    inputs = inputs_of(spec, block)
    if floor is not None:
        known = {**{b: BEFORE_HISTORY for b in inputs if b.units(spec).stop <= floor}, **known}
    missing = tuple(b for b in inputs if b not in known)
    if missing:
        return Decision(Action.WAIT, block, inputs, missing=missing)
    ids = tuple(known[b].summary_id for b in inputs)
    current = known.get(block)
    if current is not None and current.sources == ids:
        return Decision(Action.SKIP, block, inputs, ids)
    if all(known[b].empty for b in inputs):
        return Decision(Action.EMPTY, block, inputs, ids)
    present = [known[b] for b in inputs if not known[b].empty]
    if len(present) == 1 or sum(k.tokens for k in present) <= budget_tokens:
        return Decision(Action.PASS, block, inputs, ids)
    return Decision(Action.SUMMARIZE, block, inputs, ids)


def closed_through(tz: ZoneInfo, grace: timedelta, now: datetime) -> int:
    """The newest day unit that is closed at `now` (its local midnight plus grace has passed)."""
    return local_day(now - grace, tz) - 1


@dataclass(frozen=True)
class DayPlan:
    summarize: tuple[int, ...]  # dirty, closed days: (re)write from the raw log
    empty: tuple[int, ...]  # closed days with no messages, announced for the first time
    first: int | None  # the scope's first day unit after this plan
    through: int | None  # newest day announced after this plan


def plan_days(first: int | None, through: int | None, dirty: Iterable[int], closed: int) -> DayPlan:
    """Days to write at `closed` (= closed_through(now)).

    `first..through` is the range already announced. New closed days after `through` are
    announced (summarised when dirty, else empty); a dirty day inside the range is late data
    and is rewritten; a dirty day before `first` extends the range backwards, announcing the
    silent days in between as empty so the blocks above never wait for them.
    """
    dirty_closed = sorted(u for u in set(dirty) if u <= closed)
    dirty_set = set(dirty_closed)
    if first is None or through is None:
        if not dirty_closed:
            return DayPlan((), (), None, None)
        lo, hi = dirty_closed[0], closed
        return DayPlan(tuple(dirty_closed), tuple(u for u in range(lo, hi + 1) if u not in dirty_set), lo, hi)
    lo = min(first, dirty_closed[0]) if dirty_closed else first
    hi = max(through, closed)
    empty = tuple(u for u in range(lo, hi + 1) if not first <= u <= through and u not in dirty_set)
    return DayPlan(tuple(dirty_closed), empty, lo, hi)


def complete_interactions(
    dirty: Mapping[int, datetime], newest_number: int, gap: timedelta, now: datetime
) -> tuple[int, ...]:
    """Dirty interactions (number -> last message time) that are complete at `now`."""
    return tuple(
        sorted(n for n, last_at in dirty.items() if interaction_complete(n, last_at, newest_number, gap, now))
    )
