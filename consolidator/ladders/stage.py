"""The ladder stage: writes both summary ladders of every scope, driven by announcements.

Per scope and ladder, each tick:
1. new messages mark their base window dirty (a local day; an interaction) (base.py);
2. dirty base windows that are closed (a day past midnight plus grace; a complete
   interaction) are written from the raw log (only here is the log read); a silent day
   writes nothing at all (base.py);
3. every announcement not yet seen wakes the blocks that read it (hierarchy.tiling.readers_of),
   and the days closed since the last run wake the blocks they complete; each decides from
   the latest summaries of its inputs (hierarchy.planning; an input without one is empty once
   it is closed, not dirty and holds no day with content) to wait, skip, be empty (no row),
   pass its inputs through, or summarise, and announces itself in turn (propagate.py; the
   drafts themselves: drafting.py).
So an idle scope writes no row for its silent days, weeks and months; `next_due` says when
its ladders next have work, for a daemon that runs only the scopes that are due.
A summary and its announcement share a transaction; the cursors only say how far the
stage has looked, and redoing a step finds the work done (SKIP), so a crash anywhere
leaves no duplicate and no gap.

A summary call that cannot be made now holds its window (holds.py) and the stage goes on
with the other windows, within the same tick. The daily budget (`BudgetExceeded`) holds
it until the budget reopens; a failed call (`ModelError`) holds it for the retry backoff,
which doubles with each failed attempt (capped). A held base window stays dirty; a held
higher block does not keep the announcement cursor back: the cursor moves past the
announcements that woke it, and its hold row wakes it again once the wait is over. A held
window is skipped until then; the next try that does not fail again (it writes, finds the
window up to date, or waits for an input) releases the hold.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Sequence
from zoneinfo import ZoneInfo

from consolidator.ladders.base import BaseWindows, Tick
from consolidator.ladders.blocks import Stop, stopped
from consolidator.ladders.drafting import Drafter
from consolidator.ladders.due_facts import scope_reads
from consolidator.ladders.holds import Guard
from consolidator.ladders.propagate import Propagation
from consolidator.ladders.publish import ladder_specs, publish_ladder_views
from consolidator.model.base import Model
from consolidator.core.app import App
from hierarchy.ladder_due import next_due as ladder_due
from stores.engine import reading
from stores.messages import scopes as all_scopes

__all__ = ["LadderStage", "ladder_specs"]

LADDERS = ("time", "count")


class LadderStage:
    """The daemon's ladder stage (and a rebuild's engine): both ladders of every scope, per tick."""

    name = "ladders"

    def __init__(self, app: App, model: Model, publish: bool = True):
        self.app = app
        self.specs = ladder_specs(app)
        self.publish = publish  # publish the rungs' snapshot files after writing (else the snapshot stage does)
        self.on_progress: Callable[[], None] = lambda: None  # set by the Consolidator: the watchdog's beat
        self.drafter = Drafter(app, model, app.settings.ladders.budget_tokens)
        guard = Guard(app, beat=lambda: self.on_progress())
        self.base = BaseWindows(app, self.drafter, guard)
        self.higher = Propagation(app, self.drafter, guard)

    @property
    def reuse(self) -> bool:
        """Whether a model call may be replaced by an earlier summary of identical inputs (off for rebuild)."""
        return self.drafter.reuse

    @reuse.setter
    def reuse(self, value: bool) -> None:
        self.drafter.reuse = value

    def run(self, now: datetime, stop: Stop = None, scopes: Sequence[str] | None = None) -> int:
        """One tick over these scopes (None: every scope); returns summaries written."""
        if scopes is None:
            with reading(self.app.engine) as session:
                scopes = all_scopes(session)
        names = scopes
        total = 0
        for scope in names:
            if stopped(stop):
                break
            total += self.run_scope(scope, now, stop)
        return total

    def run_scope(self, scope: str, now: datetime, stop: Stop = None, progress: Tick = None,
                  ladders: tuple[str, ...] = LADDERS) -> int:
        """One tick over one scope's ladders; returns summaries written (and publishes their rungs).

        A scope with nothing due at `now` (see `next_due`) is left at once: one read, no write.
        """
        due, new_messages = self._due(scope, now, ladders)
        if due is None or due > now:
            return 0
        tz = self.app.settings.timezone_of(scope)
        self.base.lines.clear()  # lines rendered for this scope's run only
        try:
            written = self._run_ladders(scope, tz, now, stop, progress, ladders, new_messages)
        finally:
            self.base.lines.clear()
        if written and self.publish:  # the summaries' transactions bumped their views (ladders.blocks.write_blocks)
            publish_ladder_views(self.app, scope)
        return written

    def _run_ladders(self, scope: str, tz: ZoneInfo, now: datetime, stop: Stop, progress: Tick, ladders: tuple[str, ...],
                     new_messages: bool) -> int:
        written = 0
        if new_messages and ladders:  # read just now, with the rest of what decides the run
            self.base.mark_new(scope, ladders, tz, now)
        for kind in ladders:
            spec = self.specs[kind]
            if kind == "time":
                written += self.base.write_days(scope, spec, tz, now, stop, progress)
            else:
                written += self.base.write_interactions(scope, spec, tz, now, stop, progress)
            written += self.higher.run(scope, spec, tz, now, stop)
        return written

    def next_due(self, scope: str, now: datetime, ladders: tuple[str, ...] = LADDERS) -> datetime | None:
        """When `run_scope` next has work for `scope`: an instant not before `now`, or None until a new message.

        `now` means run it now. One read transaction of about seven indexed queries, so a
        daemon can reschedule the scope after each run instead of visiting it every tick.
        """
        return self._due(scope, now, ladders)[0]

    def _due(self, scope: str, now: datetime, ladders: tuple[str, ...]) -> tuple[datetime | None, bool]:
        """`next_due`, and whether the scope logged messages its ladders have not all seen."""
        tz = self.app.settings.timezone_of(scope)
        settings = self.app.settings
        with reading(self.app.engine) as session:
            facts, new_messages = scope_reads(session, scope, {kind: self.specs[kind] for kind in ladders}, tz)
        times = [ladder_due(f, tz, settings.ladders.day_grace, settings.interaction_gap, now) for f in facts.values()]
        return min((t for t in times if t is not None), default=None), new_messages

    def mark_all_dirty(self, scope: str, kind: str, since: datetime | None) -> int:
        """For rebuild: every base window with messages (from `since`) is dirty again; returns how many."""
        return self.base.mark_all(scope, kind, self.app.settings.timezone_of(scope), since)
