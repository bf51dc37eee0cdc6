"""The daemon: a lease, an APScheduler interval job calling the tick, and clean signals.

On SQLite only one daemon works a database at a time (stores.lease); a second one waits as a
standby and takes over when the first one's lease expires or its process is gone. On
PostgreSQL several daemons work at once: each holds a lease of its own (its heartbeat, for
`status`) and they share the scopes through the work queue's claims (stores/work_queue.py).
SIGTERM/SIGINT set a stop flag: the tick in flight finishes the step it is applying (which
commits or rolls back as a whole) and starts nothing new; then the lease is released.
A tick or heartbeat that fails goes to the fault book (consolidator/core/faults.py):
logged once, then counted, shown by `status`, cleared when the work goes through again.
A database server that goes away is a `database` fault retried with exponential backoff
(consolidator/runtime/backoff.py), not every tick.
"""

from __future__ import annotations

import logging
import signal
import threading
from datetime import datetime, timezone
from typing import Callable

import structlog
from apscheduler.schedulers.background import BackgroundScheduler

from consolidator.runtime.backoff import Backoff
from consolidator.core.clock import utcnow
from consolidator.runtime.lease_keeper import AnyEvent, LeaseHeld, LeaseKeeper
from consolidator.runtime.sdnotify import Notifier
from consolidator.runtime.tick import Consolidator
from stores import lease
from stores.engine import printable_url
from stores.errors import StorageUnavailable

log = structlog.get_logger()


class Daemon:
    def __init__(self, consolidator: Consolidator, notifier: Notifier | None = None, clock: Callable[[], datetime] = utcnow):
        self.consolidator = consolidator
        self.app = consolidator.app
        self.notifier = notifier or Notifier()
        self.clock = clock
        self.stop = threading.Event()
        self.me = lease.Holder.this_process()
        self.lease_name = lease.daemon_name(self.app.engine, self.me)
        self._has_lease = False
        self._standby_logged = False
        self.faults = consolidator.faults
        self._lock = threading.Lock()
        self._lease_lost = threading.Event()  # set by the heartbeat: the tick in flight stops
        self._backoff = Backoff(self.app.settings.daemon.tick_interval)  # for a server that does not answer

    # --- one-shot -------------------------------------------------------------------------

    def run_once(self) -> bool:
        """Do all work due now; False when another live daemon holds the lease."""
        now = self.clock()
        try:
            with LeaseKeeper(self.app.engine, self.me, self.app.settings.daemon.lease_ttl, self.clock,
                             self.lease_name) as keeper:
                self.consolidator.drain(now, AnyEvent(self.stop, keeper.lost))
        except LeaseHeld:
            return False
        return True

    # --- foreground service ---------------------------------------------------------------

    def serve(self) -> int:
        settings = self.app.settings.daemon
        self._install_signals()
        # A tick longer than the interval makes APScheduler warn at every skipped run: noise, not a fault.
        logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)
        scheduler = BackgroundScheduler(timezone=timezone.utc)
        scheduler.add_job(self._tick, "interval", seconds=settings.tick_interval.total_seconds(),
                          id="tick", max_instances=1, coalesce=True, next_run_time=self.clock())
        heartbeat = settings.lease_ttl.total_seconds() / 4
        watchdog = self.notifier.watchdog_interval
        if watchdog:
            heartbeat = min(heartbeat, watchdog)
        scheduler.add_job(self._heartbeat, "interval", seconds=max(0.5, heartbeat), id="heartbeat",
                          max_instances=1, coalesce=True)
        scheduler.start()
        log.info("daemon.started", holder=self.me.holder, database=printable_url(self.app.settings.db_url),
                 tick_s=settings.tick_interval.total_seconds())
        self.notifier.ready("serving")
        try:
            self.stop.wait()
        finally:
            self.notifier.stopping()
            scheduler.shutdown(wait=True)
            if self._has_lease:
                lease.release(self.app.engine, self.me, self.lease_name)
            try:
                self.consolidator.release_claims()  # other daemons take this one's scopes at once
            except Exception:
                pass  # they expire by themselves within the lease ttl
            log.info("daemon.stopped", holder=self.me.holder)
        return 0

    def _install_signals(self) -> None:
        def handler(signum, _frame) -> None:
            log.info("daemon.signal", signal=signal.Signals(signum).name)
            self.stop.set()

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    def _tick(self) -> None:
        if self.stop.is_set():
            return
        with self._lock:
            now = self.clock()
            if self._backoff.waiting(now) or not self._take_lease(now):
                return
            self._lease_lost.clear()
            try:
                self.consolidator.tick(now, AnyEvent(self.stop, self._lease_lost))
            except Exception:  # a tick must never kill the scheduler; the next one retries
                pass  # logged once and counted by the tick's fault book

    def _take_lease(self, now: datetime) -> bool:
        """Take or renew the lease; a standby says so once at info level, then quietly waits."""
        try:
            self._has_lease = lease.acquire(self.app.engine, self.me, now, self.app.settings.daemon.lease_ttl,
                                            self.lease_name)
        except StorageUnavailable as exc:  # the server is gone: try again later and later
            self.faults.failed("database", "", exc, now)
            self._backoff.failed(now)
            return False
        except Exception as exc:  # the database itself (full, read-only): retried next tick
            self.faults.failed("lease", "", exc, now)
            return False
        if self._backoff.succeeded():
            self.faults.succeeded("database", "", now)
        self.faults.succeeded("lease", "", now)
        if self._has_lease:
            if self._standby_logged:
                log.info("daemon.active", holder=self.me.holder)
            self._standby_logged = False
            return True
        if not self._standby_logged:
            try:
                other = lease.current(self.app.engine)
            except Exception:  # only for the message
                other = None
            log.info("daemon.standby", holder=self.me.holder, active=other.holder if other else None,
                     detail="another daemon holds the lease; taking over when it stops or its lease expires")
            self._standby_logged = True
        else:
            log.debug("daemon.standby")
        return False

    def _heartbeat(self) -> None:
        """Keep the lease alive during long ticks and tell systemd's watchdog we are alive.

        A tick that stopped making progress gets neither: the lease expires so a standby can
        take over, and the missing pings make systemd restart this process.
        """
        if self.stop.is_set():
            return
        limit = self.app.settings.daemon.stall_after.total_seconds()
        if self.consolidator.progress.stalled(limit):
            log.error("daemon.stalled", seconds_without_progress=limit)
            return
        try:
            self.consolidator.keep_claim()  # the scope in hand stays ours while the work moves
        except Exception:
            pass  # logged by the keeper; the claim lasts until its expiry
        if self._has_lease:
            now = self.clock()
            try:
                self._has_lease = lease.acquire(self.app.engine, self.me, now, self.app.settings.daemon.lease_ttl,
                                            self.lease_name)
            except Exception as exc:  # kept until the lease expires; the fault book logs it once
                self.faults.failed("lease", "", exc, now)
            else:
                self.faults.succeeded("lease", "", now)
            if not self._has_lease:
                log.warning("lease.lost", holder=self.me.holder)
                self._lease_lost.set()
        self.notifier.watchdog()

