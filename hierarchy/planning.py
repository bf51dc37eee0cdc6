"""What the ladders should write next: pure functions of recorded state and `now`.

The daemon records, per scope and ladder, which base windows received messages since
they were last summarised ("dirty") and the latest summary of every window that has
something in it. From that alone these functions decide:

- which closed days are dirty and must be written from the raw log;
- which interactions are complete and dirty;
- which higher blocks a day's closing completes (the blocks that hold a day with content);
- which windows without a summary are complete and empty: closed, not dirty, and with no
  day that says something inside (a silent day, week or month writes no row at all);
- for any higher block, whether it must wait for a missing input, is already up to date,
  is empty for free, can pass its inputs through (they fit the budget), or needs a
  summary call.

No database, no clock: tests call these with chosen values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Collection, Iterable, Mapping
from zoneinfo import ZoneInfo

from hierarchy.calendar import local_day
from hierarchy.interactions import interaction_complete
from hierarchy.tiling import Block, LadderSpec, block_of, inputs_of


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


SILENT = Known(summary_id="", version=0, empty=True, tokens=0)  # a complete window with nothing in it, and no row


def decide_block(
    spec: LadderSpec, block: Block, known: Mapping[Block, Known], budget_tokens: int, floor: int | None = None,
    empty: Collection[Block] = (),
) -> Decision:
    """Decide a higher block (rung >= 1) from the latest announcements of its inputs.

    An input without a summary is complete and empty when it is in `empty` (see
    `settled_empty`), or when it lies wholly before `floor`, the scope's first unit (nothing
    was logged then); its source id is "". Any other input without a summary is missing.
    """
    if block.rung == 0:
        raise ValueError("base windows are planned from the raw log, not from announcements")
    inputs = inputs_of(spec, block)
    silent = {b for b in inputs if b in empty or (floor is not None and b.units(spec).stop <= floor)}
    if silent:
        known = {**{b: SILENT for b in silent}, **known}
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


def days_to_write(dirty: Iterable[int], closed: int) -> tuple[int, ...]:
    """The dirty days that are closed at `closed` (= closed_through(now)), oldest first.

    Only a day that received messages is ever written: a silent day has no row, and the
    blocks above learn that it is empty from `settled_empty`, not from an announcement.
    """
    return tuple(sorted(u for u in set(dirty) if u <= closed))


def settled_empty(
    spec: LadderSpec, blocks: Iterable[Block], closed: int, dirty: Collection[int], content: Collection[int]
) -> frozenset[Block]:
    """Of `blocks` (time ladder, any rung), those that are complete and empty.

    A block is complete and empty when every one of its days is closed (<= `closed`), none
    is dirty (no message waits to be summarised there), and none is in `content` (the days
    whose newest summary says something). Such a block writes no row; one that holds a day
    with content is written (passed through, at least), so until then it is missing, not empty.
    """
    if spec.kind != "time":
        raise ValueError("only the time ladder has silent windows: every interaction holds messages")
    out = set()
    for block in blocks:
        units = block.units(spec)
        if units.stop - 1 <= closed and not any(u in dirty or u in content for u in units):
            out.add(block)
    return frozenset(out)


def closing_blocks(spec: LadderSpec, woken_through: int, closed: int, last_content: int | None) -> tuple[Block, ...]:
    """Higher blocks whose last day closed in (`woken_through`, `closed`] and that may hold content.

    A block that waits for its last day to close is not woken by any summary when that day
    is silent, so the stage wakes it when the day closes. Only blocks starting at or before
    `last_content` (the newest day with content) can hold any; the others are silent and
    would write nothing. Lowest rung first.
    """
    if last_content is None or closed <= woken_through:
        return ()
    out = []
    for rung in range(1, len(spec.rungs)):
        size = spec.size_of(rung)
        first = block_of(spec, rung, woken_through + 1).index
        last = min((closed + 1) // size - 1, last_content // size)
        out.extend(Block(rung, k) for k in range(first, last + 1))
    return tuple(out)


def next_closing(spec: LadderSpec, woken_through: int, last_content: int | None) -> int | None:
    """The last day of the first block that `closing_blocks` will return once it closes, or None."""
    if last_content is None:
        return None
    ends = []
    for rung in range(1, len(spec.rungs)):
        block = block_of(spec, rung, woken_through + 1)
        units = block.units(spec)
        if units.start <= last_content:
            ends.append(units.stop - 1)
    return min(ends, default=None)


def complete_interactions(
    dirty: Mapping[int, datetime], newest_number: int, gap: timedelta, now: datetime
) -> tuple[int, ...]:
    """Dirty interactions (number -> last message time) that are complete at `now`."""
    return tuple(
        sorted(n for n, last_at in dirty.items() if interaction_complete(n, last_at, newest_number, gap, now))
    )
