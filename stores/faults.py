"""Active faults: what the daemon cannot do right now, where, and since when.

The daemon writes a row when some work keeps failing (a scope's snapshot directory is
read-only, the disk is full, a stage raises) and deletes it when that work succeeds again,
so `consolidator status`, another process, can show each active fault. One row per
(where, scope); `scope` is "" for a fault that is not about one scope. Rows of a scope go
with `forget` like every table with a scope column.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, inspect, select
from sqlalchemy.exc import OperationalError

from stores.engine import Engine, reading, transaction
from stores.schema.daemon import Fault

CAUSE_CHARS = 500


@dataclass
class ActiveFault:
    where: str
    scope: str
    cause: str
    since: datetime
    last_at: datetime
    count: int


def record(engine: Engine, where: str, scope: str, cause: str, since: datetime, last_at: datetime, count: int) -> None:
    """Write the fault's current state (insert or update)."""
    with transaction(engine) as session:
        row = session.get(Fault, (where, scope))
        if row is None:
            session.add(Fault(where=where, scope=scope, cause=cause[:CAUSE_CHARS], since=since, last_at=last_at,
                              count=count))
        else:
            row.cause, row.since, row.last_at, row.count = cause[:CAUSE_CHARS], since, last_at, count


def clear(engine: Engine, where: str, scope: str) -> None:
    """The work succeeded again: the fault is over."""
    with transaction(engine) as session:
        session.execute(delete(Fault).where(Fault.where == where, Fault.scope == scope))


def active(engine: Engine) -> list[ActiveFault]:
    """Every active fault, oldest first."""
    try:
        with reading(engine) as session:
            rows = session.execute(select(Fault).order_by(Fault.since, Fault.where, Fault.scope)).scalars().all()
            return [ActiveFault(r.where, r.scope, r.cause, r.since, r.last_at, r.count) for r in rows]
    except OperationalError:
        if inspect(engine).has_table(Fault.__tablename__):
            raise
        return []  # a database written before faults were recorded, opened read-only
