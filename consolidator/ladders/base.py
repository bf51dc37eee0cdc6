"""Base windows: new messages mark their window dirty; closed dirty windows are written from the raw log.

A base window is a local day (time ladder) or an interaction (count ladder). Only here is
the raw log read. A day is closed once its local midnight plus grace has passed; an
interaction once it is complete (hierarchy.planning). Only a window that received messages
is ever written: a silent day writes no row at all (the blocks above know it is empty from
hierarchy.planning.settled_empty), and rewriting a window whose new summary equals its
current one (same sources, same text), or that has nothing to say and no summary to take
back, writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable
from zoneinfo import ZoneInfo

from consolidator.ladders.blocks import BlockWrite, Draft, Stop, Target, Watermark, stopped, write_blocks
from consolidator.ladders.drafting import Drafter, RungWriter, message_inputs
from consolidator.ladders.holds import Guard, Held
from consolidator.model.schemas import SummaryInput
from consolidator.core.app import App
from hierarchy.calendar import local_day, time_window
from hierarchy.planning import closed_through, complete_interactions, days_to_write
from hierarchy.tiling import Block, LadderSpec
from stores.engine import Session, reading, transaction
from stores.interactions import last_times
from stores.interactions import max_number as newest_interaction
from stores.ladder_state import (
    advance_seen_seq,
    clear_dirty,
    dirty_windows,
    mark_dirty,
    progress,
    rewind_announcements,
    start_progress,
    wake_through,
)
from stores.message_windows import Arrival, arrivals_after
from stores.schema.log import Message

Tick = Callable[[int], None] | None  # a progress bar's advance: one per base window tried


def _units(arrivals: list[Arrival], ladder: str, tz: ZoneInfo) -> dict[int, datetime]:
    """The base window of each arrival (a day unit, or its interaction), with its newest message time."""
    units: dict[int, datetime] = {}
    for seq, at, interaction in arrivals:
        unit = local_day(at, tz) if ladder == "time" else interaction
        units[unit] = max(units.get(unit, at), at)
    return units


class BaseWindows(RungWriter):
    """The base rung of both ladders of every scope."""

    def __init__(self, app: App, drafter: Drafter, guard: Guard) -> None:
        super().__init__(app, drafter, guard)
        self.lines: dict[str, SummaryInput] = {}  # one scope's run: message id -> its rendered line (both ladders)

    # --- dirty windows ---------------------------------------------------------------------

    def mark_new(self, scope: str, ladders: tuple[str, ...], tz: ZoneInfo, now: datetime) -> None:
        """Mark the windows of the messages logged since each ladder's cursor dirty, and move it on:
        one transaction and one read of the new arrivals for all the ladders.

        A cursor stops before the first message not yet placed in an interaction: it is
        picked up next tick. The stage calls this only when its run's first read found messages
        its ladders have not all seen, so an idle scope takes no write lock. The first time the
        time ladder is looked at, every block closed by `now` counts as woken: none holds a
        summary yet, and the days written from now on wake their blocks themselves.
        """
        with transaction(self.app.engine) as session:
            states = {ladder: start_progress(session, scope, ladder) for ladder in ladders}
            if "time" in states and states["time"].through_unit is None:
                wake_through(session, scope, "time", closed_through(tz, self.app.settings.ladders.day_grace, now))
            arrivals = arrivals_after(session, scope, min(state.seen_seq for state in states.values()))
            for ladder, state in states.items():
                placed: list[Arrival] = []
                for arrival in arrivals:
                    if arrival.seq <= state.seen_seq:
                        continue
                    if arrival.interaction is None:
                        break  # not placed yet: pick it up next tick
                    placed.append(arrival)
                if placed:
                    mark_dirty(session, scope, ladder, _units(placed, ladder, tz))
                    advance_seen_seq(session, scope, ladder, placed[-1].seq)

    def mark_all(self, scope: str, ladder: str, tz: ZoneInfo, since: datetime | None) -> int:
        """For rebuild: every base window with messages (from `since`) is dirty again; returns how many.

        Windows already waiting (not closed yet, held, deferred) stay dirty, and every block
        above re-decides (cheap: up-to-date ones skip).
        """
        with transaction(self.app.engine) as session:
            state = start_progress(session, scope, ladder)
            units = _units(self.history.arrivals_through(session, scope, state.seen_seq, since), ladder, tz)
            mark_dirty(session, scope, ladder, units)
            rewind_announcements(session, scope, ladder)
        return len(units)

    # --- writing closed windows ------------------------------------------------------------

    def write_days(self, scope: str, spec: LadderSpec, tz: ZoneInfo, now: datetime, stop: Stop, tick: Tick) -> int:
        """The time ladder: write the closed dirty days; returns summaries written (silent days write nothing).

        The dirty days, the cursor, the holds and the first run's messages are read in one
        read transaction (a tick's usual work is one run)."""
        closed = closed_through(tz, self.app.settings.ladders.day_grace, now)
        with reading(self.app.engine) as session:
            due = days_to_write(dirty_windows(session, scope, "time"), closed)
            if not due:
                return 0
            state = progress(session, scope, "time")
            seen_seq = state.seen_seq if state else 0
            held = self.guard.held(scope, "time", now, session)
            runs = _runs(due)
            first = self._days(session, scope, spec, tz, seen_seq, runs[0])
        pending = _Pending(self)
        for n, run in enumerate(runs):
            if n:
                with reading(self.app.engine) as session:
                    by_day = self._days(session, scope, spec, tz, seen_seq, run)
            else:
                by_day = first
            for unit in run:
                if stopped(stop):
                    return pending.flush(now)
                target = Target(scope, spec, Block(0, unit), tz)
                if not held.waiting(target.window):
                    pending.draft(target, by_day.get(unit, []), now, held)
                if tick:
                    tick(1)
        return pending.flush(now)

    def write_interactions(self, scope: str, spec: LadderSpec, tz: ZoneInfo, now: datetime, stop: Stop, tick: Tick) -> int:
        """The count ladder: write every complete dirty interaction; returns summaries written."""
        with reading(self.app.engine) as session:  # one read transaction, the first run's messages included
            dirty = dirty_windows(session, scope, "count")
            if not dirty:
                return 0
            state = progress(session, scope, "count")
            seen_seq = state.seen_seq if state else 0
            last_at = last_times(session, scope, dirty)
            runs = _runs(complete_interactions(last_at, newest_interaction(session, scope),
                                               self.app.settings.interaction_gap, now))
            if not runs:
                return 0
            held = self.guard.held(scope, "count", now, session)
            first = self.history.interactions(session, scope, seen_seq, runs[0][0], runs[0][-1])
        pending = _Pending(self)
        for n, run in enumerate(runs):
            if n:
                with reading(self.app.engine) as session:
                    by_number = self.history.interactions(session, scope, seen_seq, run[0], run[-1])
            else:
                by_number = first
            for number in run:
                if stopped(stop):
                    return pending.flush(now)
                target = Target(scope, spec, Block(0, number - 1), tz)
                if not held.waiting(target.window):
                    pending.draft(target, by_number.get(number, []), now, held)
                if tick:
                    tick(1)
        return pending.flush(now)

    def _days(self, session: Session, scope: str, spec: LadderSpec, tz: ZoneInfo, seen_seq: int,
              run: list[int]) -> dict[int, list[Message]]:
        """The messages of a run of days (one range read), by local day."""
        start, end = time_window(spec, Block(0, run[0]), tz)[0], time_window(spec, Block(0, run[-1]), tz)[1]
        by_day: dict[int, list[Message]] = {}
        for m in self.history.window(session, scope, seen_seq, start, end):
            by_day.setdefault(local_day(m.at, tz), []).append(m)
        return by_day

    def store(self, drafted: list[Drafted], now: datetime) -> int:
        """Store drafted windows of one scope and ladder in one transaction and clear them; returns
        how many new versions were stored.

        A window with no messages writes nothing unless a summary with something in it must be
        taken back (an empty version supersedes it); one whose summary is unchanged (same
        sources, same text) writes nothing either.
        """
        if not drafted:
            return 0
        scope, ladder = drafted[0].target.scope, drafted[0].target.ladder
        with transaction(self.app.engine) as session:
            current = self.history.latest_summaries(session, scope, ladder, [d.target.window for d in drafted])
            writes = []
            for d in drafted:
                now_there = current.get(d.target.window)
                if not d.sources:
                    same = now_there is None or now_there.kind == "empty"
                else:
                    same = (now_there is not None and tuple(now_there.sources) == d.sources
                            and now_there.text == d.draft.text)
                if not same:
                    version = now_there.version + 1 if now_there is not None else 1
                    writes.append(BlockWrite(d.target, d.draft, d.sources, d.watermark, version))
            write_blocks(session, writes, now)
            clear_dirty(session, scope, ladder, [d.target.unit for d in drafted])
        return len(writes)


RUN_SPAN = 32  # base windows read (one query) and stored (one transaction) together, at most


def _runs(units: list[int]) -> list[list[int]]:
    """Units in runs spanning fewer than RUN_SPAN units: each run is one range read of the log."""
    runs: list[list[int]] = []
    for unit in sorted(set(units)):
        if runs and unit - runs[-1][0] < RUN_SPAN:
            runs[-1].append(unit)
        else:
            runs.append([unit])
    return runs


@dataclass(frozen=True)
class Drafted:
    """A base window's draft, waiting to be stored with its neighbours."""

    target: Target
    draft: Draft
    watermark: Watermark
    sources: tuple[str, ...]


class _Pending:
    """Drafts of one ladder stored together, a run at a time.

    Why: most base windows cost no call (passed through, reused, empty), and writing each in a
    transaction of its own was most of the ladders' statements (on PostgreSQL, a round trip
    each). A draft that paid for a model call is stored at once with those before it, so a
    crash loses at most one call's answer, as before.
    """

    def __init__(self, windows: BaseWindows) -> None:
        self.windows = windows
        self.drafted: list[Drafted] = []
        self.written = 0

    def draft(self, target: Target, messages: list[Message], now: datetime, held: Held) -> None:
        drafter = self.windows.drafter

        def make() -> Drafted:
            draft = drafter.base(target, message_inputs(messages, target.tz, self.windows.lines))
            watermark = Watermark(max((m.seq for m in messages), default=0), max((m.at for m in messages), default=None))
            return Drafted(target, draft, watermark, tuple(m.id for m in messages))

        drafted = self.windows.guard.run(target, now, held, make)
        if drafted is None:
            return  # held: its model call was deferred or failed
        self.drafted.append(drafted)
        if drafted.draft.calls or len(self.drafted) >= RUN_SPAN:
            self.flush(now)

    def flush(self, now: datetime) -> int:
        self.written += self.windows.store(self.drafted, now)
        self.drafted = []
        return self.written
