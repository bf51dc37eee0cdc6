"""The fault book: work that keeps failing, logged once, then counted, shown by `status`.

A daemon ticks every few seconds; a full disk or a read-only snapshot directory would make
every tick fail the same way. So a fault is logged once when it starts (one line, no
traceback for faults of the environment: storage, files, permissions), then only a reminder
with its count every `remind_every`, and once more when the work succeeds again. Each active
fault is also written to the `fault` table (stores/faults.py) so `status`, another process,
shows where and since when; writing it is best effort, since the fault may be the database
itself (a full disk): then the log still says it.

Keys are (where, scope): `where` names the work ("tick", "lease", "snapshots",
"stage:ladders", ...) and `scope` is "" unless the fault is about one scope.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

import structlog

from stores import faults as fault_rows
from stores.faults import ActiveFault
from stores.engine import Engine
from stores.errors import StorageError

log = structlog.get_logger()

REMIND_EVERY = timedelta(minutes=10)


def describe(exc: BaseException) -> str:
    """One line naming the cause and the file or path it is about."""
    if isinstance(exc, StorageError):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def environmental(exc: BaseException) -> bool:
    """A fault of the surroundings (disk, database, permissions), not a bug: no traceback."""
    return isinstance(exc, (StorageError, OSError))


@dataclass
class OpenFault(ActiveFault):
    """A fault as this process knows it: the stored record, and whether it was logged or met here."""

    logged_at: datetime | None = None  # None: not logged by this process yet
    met_here: bool = False  # failed in this process (not only loaded from the table)


class FaultBook:
    """Thread-safe: the tick and the heartbeat report into one book."""

    def __init__(self, engine: Engine, remind_every: timedelta = REMIND_EVERY) -> None:
        self._engine = engine
        self._remind_every = remind_every
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], OpenFault] = {}
        try:
            for row in fault_rows.active(engine):
                self._open[(row.where, row.scope)] = OpenFault(row.where, row.scope, row.cause, row.since,
                                                               row.last_at, row.count)
        except StorageError:
            pass  # an unreadable database is itself the first fault the daemon will meet

    def failed(self, where: str, scope: str, exc: BaseException, now: datetime) -> None:
        """Some work failed: log it the first time, count it after, record it for `status`."""
        cause = describe(exc)
        with self._lock:
            fault = self._open.get((where, scope))
            if fault is None:
                fault = self._open[(where, scope)] = OpenFault(where, scope, cause, now, now, 0)
            fault.cause, fault.last_at, fault.count, fault.met_here = cause, now, fault.count + 1, True
            first, remind = fault.logged_at is None, fault.logged_at is not None and now - fault.logged_at >= self._remind_every
            if first or remind:
                fault.logged_at = now
            state = (fault.since, fault.count)
        fields = {"where": where, "scope": scope or None, "cause": cause, "since": state[0].isoformat(), "count": state[1]}
        if first:
            log.error("fault", **fields, exc_info=None if environmental(exc) else exc)
        elif remind:
            log.warning("fault.continues", **fields)
        try:
            fault_rows.record(self._engine, where, scope, cause, state[0], now, state[1])
        except StorageError:
            pass  # the log has it; `status` will once the database can be written again

    def succeeded(self, where: str, scope: str, now: datetime) -> None:
        """The work went through: the fault (if any) is over."""
        with self._lock:
            fault = self._open.pop((where, scope), None)
        if fault is None:
            return
        try:
            fault_rows.clear(self._engine, where, scope)
        except StorageError:
            with self._lock:  # try again after the next success
                self._open.setdefault((where, scope), fault)
            return
        log.info("fault.cleared", where=where, scope=scope or None, count=fault.count, since=fault.since.isoformat(),
                 lasted_s=round((now - fault.since).total_seconds(), 3))

    def is_open(self, where: str, scope: str) -> bool:
        """Whether this process met a fault there that has not cleared yet."""
        with self._lock:
            fault = self._open.get((where, scope))
            return fault is not None and fault.met_here

    def met(self) -> list[OpenFault]:
        """Faults this process ran into that are still open (what `run --once` reports)."""
        with self._lock:
            return sorted((f for f in self._open.values() if f.met_here), key=lambda f: (f.since, f.where, f.scope))
