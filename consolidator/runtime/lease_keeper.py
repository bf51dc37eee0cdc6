"""Holding the daemon lease for the length of a one-shot command (run --once, rebuild, forget).

The lease expires `lease_ttl` after its last renewal; a drain or a rebuild can take longer,
and a standby daemon would then take over and work the same scopes at the same time. The
keeper renews the lease from a thread every ttl/4 and, if it is ever lost, sets `lost` so
the command stops starting new work.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Callable

import structlog
from stores.engine import Engine

from consolidator.core.faults import describe
from stores import lease

log = structlog.get_logger()


class LeaseHeld(RuntimeError):
    """Another live daemon holds the lease."""


class LeaseKeeper:
    def __init__(self, engine: Engine, me: lease.Holder, ttl: timedelta, clock: Callable[[], datetime],
                 name: str = lease.DAEMON):
        self._name = name  # lease.daemon_name(): several daemons' own leases on a server database
        self._engine = engine
        self._me = me
        self._ttl = ttl
        self._clock = clock
        self.lost = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "LeaseKeeper":
        if not lease.acquire(self._engine, self._me, self._clock(), self._ttl, self._name):
            raise LeaseHeld("another daemon holds the lease on this database")
        self._thread = threading.Thread(target=self._renew, name="lease-keeper", daemon=True)
        self._thread.start()
        return self

    def _renew(self) -> None:
        while not self._done.wait(self._ttl.total_seconds() / 4):
            try:
                if not lease.acquire(self._engine, self._me, self._clock(), self._ttl, self._name):
                    log.warning("lease.lost", holder=self._me.holder)
                    self.lost.set()
                    return
            except Exception as exc:  # a failed renewal is retried on the next beat
                log.warning("lease.renew_failed", cause=describe(exc))

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        if not self.lost.is_set():
            try:
                lease.release(self._engine, self._me, self._name)
            except Exception:
                if exc[0] is None:
                    raise
                # the work's own error says more; the lease expires by itself


class AnyEvent:
    """Stops when any of several events is set (the tick only calls is_set)."""

    def __init__(self, *events: threading.Event):
        self._events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self._events)
