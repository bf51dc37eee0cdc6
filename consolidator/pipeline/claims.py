"""Keeping a scope's claim alive while a daemon works it.

A claim expires `ttl` after it was taken or last renewed (stores/work_queue.py); the work
renews it on its progress beats (at most every ttl/4), and if the claim is found taken by
another daemon (ours expired: this process stalled longer than the ttl) `lost` is set and
the work stops before its next unit. Nothing is applied twice even then: each step's apply
re-reads its ledger row under a row lock.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta

import structlog

from contextlib import contextmanager
from typing import Callable, Iterator

from stores.engine import Engine, shares_work
from stores.work_queue import Claim, claim_scope, release, renew

log = structlog.get_logger()


class ClaimKeeper:
    def __init__(self, engine: Engine, holder: str, claim: Claim, now: datetime, ttl: timedelta):
        self._engine = engine
        self._holder = holder
        self._claim = claim
        self._now = now  # the tick's time; renewals add the real time elapsed since
        self._ttl = ttl
        self._started = self._last = time.monotonic()
        self.lost = threading.Event()

    def beat(self, force: bool = False) -> None:
        """Renew the claim if a quarter of its ttl has passed since the last renewal (or now: `force`)."""
        clock = time.monotonic()
        if self.lost.is_set() or (not force and clock - self._last < self._ttl.total_seconds() / 4):
            return
        self._last = clock
        at = self._now + timedelta(seconds=clock - self._started)
        try:
            mine = renew(self._engine, self._claim.scope, self._holder, at, self._ttl)
        except Exception as exc:  # the database is away for a moment: the claim lasts until its expiry
            log.warning("claim.renew_failed", scope=self._claim.scope, error=f"{type(exc).__name__}: {exc}"[:300])
            return
        if not mine:
            log.warning("claim.lost", scope=self._claim.scope, holder=self._holder)
            self.lost.set()


class ScopeBusy(RuntimeError):
    """A daemon is working the scope and did not let go of it in time."""


@contextmanager
def scope_claimed(engine: Engine, scope: str, holder: str, ttl: timedelta, clock: Callable[[], datetime],
                  wait_s: float = 0.0) -> Iterator[None]:
    """Single-writer work on one scope outside the tick (rebuild, forget).

    On a server database, where several daemons share the scopes, it takes the scope's claim
    (waiting up to `wait_s` for the daemon working it to finish; ScopeBusy after that) and
    releases it afterwards, leaving the scope due so a daemon looks at it again. On SQLite the
    daemon lease the command already holds excludes every daemon: nothing to do."""
    if not shares_work(engine):
        yield
        return
    deadline = time.monotonic() + wait_s
    while not claim_scope(engine, scope, holder, clock(), ttl):
        if time.monotonic() >= deadline:
            raise ScopeBusy(f"a daemon is working scope {scope!r}; try again")
        time.sleep(0.2)
    try:
        yield
    finally:
        release(engine, scope, holder)
