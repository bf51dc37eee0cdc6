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

from stores.engine import Engine
from stores.work_queue import Claim, renew

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

    def beat(self) -> None:
        """Renew the claim if a quarter of its ttl has passed since the last renewal."""
        clock = time.monotonic()
        if self.lost.is_set() or clock - self._last < self._ttl.total_seconds() / 4:
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
