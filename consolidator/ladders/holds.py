"""Held windows: a summary call that cannot be made now waits in a hold row, not in the cursors.

A write that raises `BudgetExceeded` holds its window until the daily budget reopens; one
that raises `ModelError` holds it for the retry backoff (base delay doubling per failed
attempt, capped), so a window whose call keeps failing costs one call per backoff, not one
per tick. Either way the stage goes on with the other windows. A held window is skipped
until its `next_at`, then tried again; a try that does not fail again (it writes, finds the
window up to date, or waits for an input) releases the hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, TypeVar

import structlog

from consolidator.ladders.blocks import Target
from consolidator.model.base import Deferred, ModelError
from consolidator.pipeline.runner import backoff
from consolidator.core.app import App
from stores.engine import Session, reading, transaction
from stores.holds import hold_after_failure, hold_until, next_tries, release

log = structlog.get_logger()

T = TypeVar("T")

DEFERRED = "deferred: daily budget"


@dataclass(frozen=True)
class Held:
    """A ladder's held windows, (rung, key) -> when each may be tried again, seen at `now`."""

    next_at: dict[tuple[str, str], datetime]
    now: datetime

    def __contains__(self, window: tuple[str, str]) -> bool:
        return window in self.next_at

    def waiting(self, window: tuple[str, str]) -> bool:
        """Held, and not to be tried before a later tick."""
        return window in self.next_at and self.next_at[window] > self.now

    def due(self) -> list[tuple[str, str]]:
        """Held windows whose wait is over: to be tried again now."""
        return [w for w, at in self.next_at.items() if at <= self.now]


class Guard:
    """Runs one window's write; a deferred or failed model call holds the window instead of raising."""

    def __init__(self, app: App, beat: Callable[[], None]) -> None:
        self.app = app
        self.beat = beat  # the watchdog's beat: one per window tried

    def held(self, scope: str, ladder: str, now: datetime, session: Session | None = None) -> Held:
        """The ladder's held windows at `now` (read in `session` when given, else in a read of its own)."""
        if session is None:
            with reading(self.app.engine) as own:
                return self.held(scope, ladder, now, own)
        return Held(next_tries(session, scope, ladder), now)

    def run(self, target: Target, now: datetime, held: Held, write: Callable[[], T]) -> T | None:
        """`write()`'s result, or None when its model call was deferred or failed (the window is held)."""
        where = {"scope": target.scope, "ladder": target.ladder, "rung": target.rung, "window": target.key}
        self.beat()
        try:
            result = write()
        except Deferred as exc:  # the daily budget, or a message batch not answered yet
            log.info("ladder.deferred", **where, tier=getattr(exc, "tier", None), reason=exc.reason)
            with transaction(self.app.engine) as session:
                hold_until(session, target.scope, target.ladder, target.rung, target.key, exc.until(now), exc.reason)
            return None
        except ModelError as exc:
            error = f"{type(exc).__name__}: {exc}"[:300]
            retry = self.app.settings.retry
            with transaction(self.app.engine) as session:
                attempts = hold_after_failure(session, target.scope, target.ladder, target.rung, target.key, now, error,
                                              lambda n: backoff(n, retry))
            log.warning("ladder.call_failed", **where, attempts=attempts, error=error)
            return None
        if target.window in held:
            with transaction(self.app.engine) as session:
                release(session, target.scope, target.ladder, target.rung, target.key)
        return result
