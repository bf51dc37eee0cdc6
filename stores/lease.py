"""The daemon lease: at most one daemon works an embedded (SQLite) database at a time.

On a server database (PostgreSQL) several daemons work at once, sharing the scopes through the
work queue's claims (stores/work_queue.py); each daemon then holds a lease row of its own
(`daemon:<holder>`), which only tells `status` it is alive.

A row per lease name holds the holder, its heartbeat and an expiry. A daemon takes the lease
when it is free, expired, or held by a dead process on the same host (so a restart after
SIGKILL does not wait for the expiry); it renews the lease on every heartbeat and releases
it on a clean stop. Acquisition runs in one write transaction, so two daemons racing for
it cannot both win. `status` reads the row to say whether a daemon is running.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine

from sqlalchemy import or_, select

from stores.engine import reading, shares_work, transaction
from stores.schema.daemon import Lease

DAEMON = "daemon"


@dataclass(frozen=True)
class Holder:
    holder: str
    host: str
    pid: int

    @classmethod
    def this_process(cls, tag: str = "") -> "Holder":
        host = socket.gethostname()
        pid = os.getpid()
        return cls(holder=f"{host}:{pid}{':' + tag if tag else ''}", host=host, pid=pid)


@dataclass(frozen=True)
class LeaseInfo:
    holder: str
    heartbeat_at: datetime
    expires_at: datetime

    def alive(self, now: datetime) -> bool:
        return self.expires_at > now


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def acquire(engine: Engine, me: Holder, now: datetime, ttl: timedelta, name: str = DAEMON) -> bool:
    """Take or renew the lease; False when another live holder has it."""
    with transaction(engine) as session:
        lease = session.get(Lease, name)
        if lease is not None and lease.holder != me.holder:
            expired = lease.expires_at <= now
            dead_here = lease.host == me.host and not _pid_alive(lease.pid)
            if not (expired or dead_here):
                return False
        if lease is None or lease.holder != me.holder:
            if lease is not None:
                session.delete(lease)
                session.flush()
            lease = Lease(name=name, holder=me.holder, host=me.host, pid=me.pid, acquired_at=now,
                          heartbeat_at=now, expires_at=now + ttl)
            session.add(lease)
        else:
            lease.heartbeat_at = now
            lease.expires_at = now + ttl
    return True


def release(engine: Engine, me: Holder, name: str = DAEMON) -> None:
    with transaction(engine) as session:
        lease = session.get(Lease, name)
        if lease is not None and lease.holder == me.holder:
            session.delete(lease)


def current(engine: Engine, name: str = DAEMON) -> LeaseInfo | None:
    with reading(engine) as session:
        lease = session.get(Lease, name)
        if lease is None:
            return None
        return LeaseInfo(holder=lease.holder, heartbeat_at=lease.heartbeat_at, expires_at=lease.expires_at)


def daemon_name(engine: Engine, me: Holder) -> str:
    """The lease a daemon (or run --once) takes: the one shared lease, or its own on a server."""
    return f"{DAEMON}:{me.holder}"[:64] if shares_work(engine) else DAEMON


def live_daemons(engine: Engine, now: datetime) -> list[LeaseInfo]:
    """Every daemon lease alive at `now` (one at most on SQLite), newest heartbeat first."""
    with reading(engine) as session:
        stmt = (
            select(Lease)
            .where(or_(Lease.name == DAEMON, Lease.name.like(f"{DAEMON}:%")), Lease.expires_at > now)
            .order_by(Lease.heartbeat_at.desc())
        )
        return [LeaseInfo(holder=r.holder, heartbeat_at=r.heartbeat_at, expires_at=r.expires_at)
                for r in session.execute(stmt).scalars()]
