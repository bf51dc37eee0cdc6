"""The due-work queue: which scopes have work due, from when, and which daemon is working them.

One row per scope with something pending. `due_at` is the earliest time the scope has work
(now, for new messages; later, for a partial batch waiting for `flush_idle`, a retry's
backoff, a day that closes at local midnight). A tick reads only the rows due at its `now`
(an index range on due_at), so an idle tick costs the same whatever the number of scopes.

Writers of new work mark the scope due inside their own transaction (`mark_due`: every
append, every fact use, `retry`), so work is never announced before it is committed and
never committed without being announced. `marks` counts those marks: a daemon that worked
a scope settles its row only if no mark came in meanwhile, else it leaves it due.

Claims (several daemons on PostgreSQL): a daemon takes due rows with
SELECT ... FOR UPDATE SKIP LOCKED, writes itself as `holder` with an expiry
(`claimed_until`) and commits at once: the row lock only makes two daemons' claims exclusive
for the instant of claiming; the claim itself is the lease. It renews the expiry while it
works the scope and clears it when it settles. A row whose claim expired (its daemon died)
is claimable again, so a dead daemon's scopes are taken over within one lease period.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Iterable

from sqlalchemy import and_, bindparam, delete, or_, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from stores import prepared
from stores.engine import core, reading, transaction
from stores.types import UTCDateTime, utc
from stores.schema.daemon import DueScope, QueueState


@dataclass(frozen=True)
class Claim:
    """A scope this daemon holds until `until` (renew before then), with the marks it saw."""

    scope: str
    marks: int
    until: datetime


_T = DueScope.__table__
AT_ONCE = datetime(1970, 1, 1, tzinfo=timezone.utc)  # due at any tick's `now` (work found without a clock)


_MARK = (
    # One upsert on both engines (SQLite 3.24+, PostgreSQL): concurrent appends to a new scope
    # update the row the first one inserted instead of failing on its key.
    "INSERT INTO due_scope (scope, due_at, marks) VALUES (:scope, :at, 1)"
    " ON CONFLICT (scope) DO UPDATE SET"
    " due_at = CASE WHEN excluded.due_at < due_scope.due_at THEN excluded.due_at ELSE due_scope.due_at END,"
    " marks = due_scope.marks + 1"
    # An unclaimed row already due at or before this mark stays as it is: the next claim sees the
    # new work anyway (the conflicting row is locked all the same, so no claim slips in before
    # this transaction commits), and the append writes no page of the queue.
    " WHERE due_scope.holder IS NOT NULL OR excluded.due_at < due_scope.due_at"
)
_MARK_STMT = text(_MARK).bindparams(bindparam("at", type_=UTCDateTime()))


def mark_due(session_or_conn: Session | Connection, scope: str | Iterable[str], at: datetime) -> None:
    """Make `scope` (or each of several) due at `at` at the latest, in the caller's transaction."""
    scopes = [scope] if isinstance(scope, str) else sorted(set(scope))  # sorted: rows locked in one order
    if scopes:
        at = utc(at)
        params = [{"scope": name, "at": at} for name in scopes]
        if len(params) == 1 and isinstance(session_or_conn, Connection):  # the append: the driver directly
            prepared.run(session_or_conn, _MARK_STMT, params[0])
        else:
            session_or_conn.execute(_MARK_STMT, params[0] if len(params) == 1 else params)  # one: no executemany


def mark_scopes_due(engine: Engine, scopes: Iterable[str], at: datetime) -> None:
    """mark_due in a transaction of its own (work created outside any append: rebuild's marks)."""
    with transaction(engine) as session:
        mark_due(session, scopes, at)


_SEED = (
    # Every scope with messages and no row yet becomes due once: one statement (a loose index
    # scan over the log's scopes), for databases written before the queue existed.
    "WITH RECURSIVE s(scope) AS ("
    " SELECT min(scope) FROM message"
    " UNION ALL SELECT (SELECT min(m.scope) FROM message m WHERE m.scope > s.scope) FROM s WHERE s.scope IS NOT NULL"
    ") INSERT INTO due_scope (scope, due_at, marks)"
    " SELECT s.scope, :at, 0 FROM s WHERE s.scope IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM due_scope d WHERE d.scope = s.scope)"
    " ON CONFLICT (scope) DO NOTHING"
)


_SEEDED = "INSERT INTO work_queue_state (name, at) SELECT 'seeded', :at WHERE true ON CONFLICT (name) DO NOTHING"


def mark_all_due(engine: Engine, at: datetime) -> int:
    """Once per database (a database written before the queue existed): make every scope with
    messages and no queue row due at `at`. Afterwards one read: every writer of new work marks
    its scope, and a row goes only when its scope has nothing pending, so nothing is unmarked."""
    with reading(engine) as session:
        if session.get(QueueState, "seeded") is not None:
            return 0
    with transaction(engine) as session:
        added = session.execute(text(_SEED).bindparams(bindparam("at", type_=UTCDateTime())), {"at": utc(at)}).rowcount
        session.execute(text(_SEEDED).bindparams(bindparam("at", type_=UTCDateTime())), {"at": utc(at)})
        return added or 0


def _claimable(shared: bool):
    """claim_due's read, built once (`shared=False`: a claim left by another holder is void)."""
    now = bindparam("now", type_=UTCDateTime())
    claimable = DueScope.due_at <= now
    if shared:  # else the caller is the only worker (it holds the SQLite lease): a claim left by
        # another holder is a dead daemon's (SIGKILL), taken at once like its lease
        claimable = and_(claimable, or_(DueScope.holder.is_(None), DueScope.holder == bindparam("holder"),
                                        DueScope.claimed_until <= now))
    return (select(DueScope.scope, DueScope.marks)
            .where(claimable, DueScope.scope.not_in(bindparam("skip", expanding=True)))
            .order_by(DueScope.due_at, DueScope.scope)
            .limit(bindparam("limit"))
            .with_for_update(skip_locked=True))  # PostgreSQL: a row another daemon is claiming is passed over


# The tick's statements, built once (a select built per call costs more than SQLite runs it).
_CLAIMABLE = {shared: _claimable(shared) for shared in (True, False)}
_TAKE = (update(_T).where(_T.c.scope.in_(bindparam("names", expanding=True)))
         .values(holder=bindparam("b_holder"), claimed_until=bindparam("until", type_=UTCDateTime())))
_MINE = and_(_T.c.scope == bindparam("b_scope"), _T.c.holder == bindparam("b_holder"))  # b_: not a column's name
_SETTLE_DONE = delete(_T).where(_MINE, _T.c.marks == bindparam("b_marks"))
_SETTLE_LATER = (update(_T).where(_MINE, _T.c.marks == bindparam("b_marks"))
                 .values(due_at=bindparam("b_due_at", type_=UTCDateTime()), holder=None, claimed_until=None))
_UNCLAIM = update(_T).where(_MINE).values(holder=None, claimed_until=None)


def claim_due(engine: Engine, holder: str, now: datetime, ttl: timedelta, limit: int = 1,
              exclude: Iterable[str] = (), shared: bool = True) -> list[Claim]:
    """Claim up to `limit` scopes due at `now` that nobody else holds (or whose claim expired),
    oldest due first, leaving out `exclude` (the few scopes this tick already worked).
    `shared=False`: the caller is the database's only worker, and other holders' claims are void."""
    until = now + ttl
    with transaction(engine) as session:
        rows = core(session, _CLAIMABLE[shared], {"now": now, "holder": holder, "skip": sorted(exclude),
                                                   "limit": limit}).all()
        if not rows:
            return []
        names = [scope for scope, _ in rows]
        core(session, _TAKE, {"names": names, "b_holder": holder, "until": until})
    return [Claim(scope, marks, until) for scope, marks in rows]


def claim_scope(engine: Engine, scope: str, holder: str, now: datetime, ttl: timedelta) -> bool:
    """Claim one named scope whether or not it is due (rebuild, forget): False while another
    live holder has it. Its row is made due now, so a daemon looks at the scope after release."""
    with transaction(engine) as session:
        mark_due(session, scope, now)
        taken = session.execute(
            update(_T)
            .where(_T.c.scope == scope,
                   or_(_T.c.holder.is_(None), _T.c.holder == holder, _T.c.claimed_until <= now))
            .values(holder=holder, claimed_until=now + ttl)
        )
        return taken.rowcount == 1


def renew(engine: Engine, scope: str, holder: str, now: datetime, ttl: timedelta) -> bool:
    """Push this holder's claim on `scope` to now + ttl; False when it is no longer ours."""
    with transaction(engine) as session:
        done = session.execute(
            update(_T).where(_T.c.scope == scope, _T.c.holder == holder).values(claimed_until=now + ttl)
        )
        return done.rowcount == 1


def settle(engine: Engine, claim: Claim, holder: str, next_due: datetime | None) -> None:
    """Release the claim: the row goes (nothing pending) or waits for `next_due`.

    If a mark came in while we worked (marks changed), the row keeps its earlier due time and
    only the claim is cleared: that new work is looked at by the next claim."""
    mine = {"b_scope": claim.scope, "b_holder": holder, "b_marks": claim.marks}
    with transaction(engine) as session:
        if next_due is None:
            done = core(session, _SETTLE_DONE, mine)
        else:
            done = core(session, _SETTLE_LATER, {**mine, "b_due_at": next_due})
        if done.rowcount == 0:
            core(session, _UNCLAIM, mine)


def release(engine: Engine, scope: str, holder: str) -> None:
    """Clear this holder's claim on `scope`, leaving the row due as it is (rebuild, forget)."""
    with transaction(engine) as session:
        session.execute(update(_T).where(_T.c.scope == scope, _T.c.holder == holder).values(holder=None, claimed_until=None))


def release_all(engine: Engine, holder: str) -> int:
    """Clear every claim of this holder (a clean stop): its scopes are claimable at once."""
    with transaction(engine) as session:
        return session.execute(update(_T).where(_T.c.holder == holder).values(holder=None, claimed_until=None)).rowcount


def rows(engine: Engine) -> dict[str, DueScope]:
    """Every queue row by scope (tests and diagnostics)."""
    with reading(engine) as session:
        return {row.scope: row for row in session.execute(select(DueScope)).scalars()}
