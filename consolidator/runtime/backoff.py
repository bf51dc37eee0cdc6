"""Waiting for a database server that does not answer: exponential backoff, said once.

A PostgreSQL server can be down when the daemon starts (boot order, a failover) or go away
while it runs. Neither is a reason to exit (systemd would restart it in a loop and give up)
nor to hammer the server every tick: the daemon tries again after one tick interval, then
two, four... up to BACKOFF_CAP, and the `database` fault is logged once, counted, and
cleared when the server answers again. `status` meanwhile says the server does not answer
(consolidator/runtime/status.py).
"""

from __future__ import annotations

import signal
import threading
from datetime import datetime, timedelta
from typing import Callable

import structlog

from consolidator.core.app import App
from consolidator.core.clock import utcnow
from consolidator.core.faults import FaultBook
from consolidator.runtime.sdnotify import Notifier
from stores.errors import StorageUnavailable

log = structlog.get_logger()

BACKOFF_CAP = timedelta(minutes=1)  # a server back up is noticed within a minute


class Backoff:
    """When to try again: `first` after the first failure, doubling up to `cap`."""

    def __init__(self, first: timedelta, cap: timedelta = BACKOFF_CAP) -> None:
        self.first, self.cap = first, cap
        self.failures = 0
        self.retry_at: datetime | None = None

    def waiting(self, now: datetime) -> bool:
        return self.retry_at is not None and now < self.retry_at

    def failed(self, now: datetime) -> timedelta:
        delay = min(self.first * 2 ** min(self.failures, 20), self.cap)
        self.failures += 1
        self.retry_at = now + delay
        log.debug("database.retry", after_s=delay.total_seconds(), attempts=self.failures)
        return delay

    def succeeded(self) -> bool:
        """Reset; True when there had been failures (a fault to clear)."""
        had = self.failures > 0
        self.failures, self.retry_at = 0, None
        return had


def wait_for_database(app: App, stop: threading.Event | None = None, notifier: Notifier | None = None,
                      clock: Callable[[], datetime] = utcnow, sleep: Callable[[float], object] | None = None) -> bool:
    """Until the server answers (True, schema created) or a stop (SIGTERM/SIGINT; False).

    systemd hears READY at once (the service is up and retrying, not failing to start) and
    watchdog pings while it waits.
    """
    if stop is None:
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    sleep = sleep or stop.wait
    notifier = notifier or Notifier()
    notifier.ready("waiting for the database")
    faults = FaultBook(app.engine)
    backoff = Backoff(app.settings.daemon.tick_interval)
    while not stop.is_set():
        now = clock()
        try:
            app.reach()
        except StorageUnavailable as exc:
            faults.failed("database", "", exc, now)
            backoff.failed(now)
            while not stop.is_set() and backoff.waiting(clock()):
                notifier.watchdog()
                sleep(min(1.0, (backoff.retry_at - clock()).total_seconds()))
            continue
        faults.succeeded("database", "", clock())
        return True
    return False
