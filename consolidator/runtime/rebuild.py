"""Rebuilding the ladders from the message log, while holding the daemon lease.

Base windows are written again from the raw log without reusing earlier results; a window
whose new summary equals the current one keeps it, any change gets a new version and its
ancestors are recomputed (every block above re-decides; up-to-date ones skip for free).
The lease keeps a daemon from writing the same ladders meanwhile: a rebuild refuses to
start while one holds it (`LeaseHeld`), and stops between scopes if it loses it (`LeaseLost`).
`stop` (set on SIGTERM or SIGINT by the CLI) ends it after the window in flight; the lease is
released on the way out, and the windows it marked but did not write stay dirty, so the
daemon (or a second rebuild) writes them.
"""

from __future__ import annotations

import threading
from datetime import date, datetime, time
from typing import Callable

from consolidator.ladders.base import Tick
from consolidator.ladders.stage import LADDERS, LadderStage
from consolidator.model.base import Model
from consolidator.pipeline.assign import assign_interactions
from consolidator.core.app import App
from consolidator.core.clock import utcnow
from consolidator.runtime.lease_keeper import AnyEvent, LeaseHeld, LeaseKeeper
from stores import lease
from stores.work_queue import AT_ONCE, mark_scopes_due
from consolidator.pipeline.claims import scope_claimed
from stores.engine import reading
from stores.messages import scopes as all_scopes

__all__ = ["LeaseHeld", "LeaseLost", "Rebuild"]


class LeaseLost(RuntimeError):
    """Another process took the daemon lease during the rebuild: run it again."""


class Rebuild:
    """One rebuild: `with Rebuild(app) as rebuild:` takes the lease (LeaseHeld if a daemon has it)."""

    def __init__(self, app: App, clock: Callable[[], datetime] = utcnow) -> None:
        self.app = app
        me = lease.Holder.this_process("rebuild")
        self._keeper = LeaseKeeper(app.engine, me, app.settings.daemon.lease_ttl, clock)
        self._holder, self._clock = me.holder, clock  # each scope's claim, where daemons share the work
        self.scopes: list[str] = []
        self.ladders: tuple[str, ...] = LADDERS
        self._stage: LadderStage | None = None
        self.stop = threading.Event()  # set by a signal handler: finish the window in flight, then stop
        self.stopped = False  # the run ended early on `stop`; what it marked is left for the daemon

    @property
    def lost(self) -> threading.Event:
        """Set once another process has taken the lease: the rebuild stops before the next scope."""
        return self._keeper.lost

    def __enter__(self) -> Rebuild:
        self._keeper.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._keeper.__exit__(*exc)

    def mark(self, model: Model, scope: str | None = None, ladder: str | None = None, since: date | None = None) -> int:
        """Choose what to rebuild and mark its base windows dirty again; returns how many.

        Every scope (or `scope`), both ladders (or `ladder`), windows from the local date
        `since` on (each scope's own midnight). Messages not yet placed in an interaction
        are placed first, so that every message is in a window.
        """
        self._stage = LadderStage(self.app, model)
        self._stage.reuse = False
        self.ladders = (ladder,) if ladder else LADDERS
        with reading(self.app.engine) as session:
            self.scopes = [scope] if scope else all_scopes(session)
        total = 0
        for name in self.scopes:
            assign_interactions(self.app.engine, name, self.app.settings.interaction_gap)
            start = None
            if since is not None:
                start = datetime.combine(since, time(0), self.app.settings.timezone_of(name))
            for kind in self.ladders:
                total += self._stage.mark_all_dirty(name, kind, start)
        mark_scopes_due(self.app.engine, self.scopes, AT_ONCE)  # what a stopped rebuild leaves, the daemon writes
        return total

    def run(self, now: datetime, progress: Tick = None) -> int:
        """Write what `mark` made dirty, scope by scope; returns summaries written."""
        if self._stage is None:
            raise RuntimeError("Rebuild.run before Rebuild.mark")
        written = 0
        halt = AnyEvent(self.stop, self.lost)
        for name in self.scopes:
            if self.lost.is_set():
                raise LeaseLost("lost the daemon lease during the rebuild; run it again")
            if self.stop.is_set():
                break
            with scope_claimed(self.app.engine, name, self._holder, self.app.settings.daemon.lease_ttl, self._clock,
                               wait_s=self.app.settings.daemon.lease_ttl.total_seconds()):  # several daemons (PostgreSQL)
                written += self._stage.run_scope(name, now, halt, progress=progress, ladders=self.ladders)
        self.stopped = self.stop.is_set()
        return written
