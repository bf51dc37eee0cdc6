"""The batch ledger's queries (its tables: stores/schema/ledger.py): cutting batches, picking due
step runs, marking them, counting them.

Every function takes an engine (it opens its own transaction) or a session (it runs inside
the caller's), as its signature says. The rules (how to cut, how long to back off) are the
caller's and come in as values or a pure function.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterator, Sequence, TypeVar

from contextlib import contextmanager
from sqlalchemy import Select, bindparam, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from stores.engine import core, reading, transaction
from stores.schema.ledger import Batch, RunStatus, ScopeCursor, StepRun
from stores.schema.log import Message
from stores.work_queue import AT_ONCE, mark_due

OPEN = (RunStatus.PENDING.value, RunStatus.RETRYING.value)
RECONCILE_TRIES = 3  # ensure_step_runs: reads of the ledger before a lost race is an error
FINISHED = (RunStatus.DONE.value, RunStatus.RETIRED.value)  # nothing left to do for the batch
Cut = TypeVar("Cut")


def scope_cursors(session: Session) -> dict[str, ScopeCursor]:
    """Every scope's cursor (how far it was placed and batched)."""
    return {c.scope: c for c in session.execute(select(ScopeCursor)).scalars()}


def cursor_for_update(session: Session, scope: str) -> ScopeCursor:
    """The scope's cursor inside the caller's write transaction (created when missing)."""
    cursor = session.get(ScopeCursor, scope) or ScopeCursor(scope=scope)
    session.add(cursor)
    return cursor


_UNBATCHED = (select(Message.seq, Message.at).where(Message.scope == bindparam("scope"), Message.seq > bindparam("after"))
              .order_by(Message.seq))
_INSERT_BATCH = insert(Batch.__table__)


def record_batches(engine: Engine, scope: str, step_names: Sequence[str], now: datetime,
                   plan: Callable[[list[tuple[int, datetime]]], list]) -> list[int]:
    """Cut the batches `plan` picks from the scope's unbatched (seq, at) pairs, each with a
    pending run per step, in one transaction; returns the new batch ids.

    `plan` returns cuts with first_seq, last_seq, size and reason (pipeline.batching)."""
    with transaction(engine) as session:
        cursor = cursor_for_update(session, scope)
        pending = [(seq, at) for seq, at in core(session, _UNBATCHED, {"scope": scope, "after": cursor.batched_seq})]
        ids: list[int] = []
        runs: list[dict] = []
        for cut in plan(pending):  # Core inserts: a batch's id, then its runs in one executemany
            cursor.batches += 1
            batch = {"scope": scope, "number": cursor.batches, "first_seq": cut.first_seq, "last_seq": cut.last_seq,
                     "size": cut.size, "reason": cut.reason, "created_at": now}
            batch_id = core(session, _INSERT_BATCH, batch).inserted_primary_key[0]  # no autoflush
            runs += [{"batch_id": batch_id, "scope": scope, "step": name, "status": RunStatus.PENDING.value}
                     for name in step_names]
            cursor.batched_seq = cut.last_seq
            ids.append(batch_id)
        if runs:
            core(session, insert(StepRun.__table__), runs)
    return ids


def ensure_step_runs(engine: Engine, step_names: Sequence[str]) -> int:
    """Reconcile the ledger with the configured steps; returns the runs added.

    Every existing batch gets a pending run for a step registered after it was cut. The
    open and failed runs of a step that is no longer configured (a plugin removed from the
    config) are retired: they are no longer open work, so they count nowhere as pending and
    hold back nothing (`consolidated_seq`). A retired run whose step comes back is pending
    again, with fresh attempts.

    Safe beside other daemons (PostgreSQL, READ COMMITTED: each statement sees the newest
    commits): the batches are read before their runs, so a batch another daemon cuts meanwhile
    (with its runs, in one transaction) is either unseen or seen with its runs; and when two
    daemons starting together add the same missing run, the one that loses the race reads the
    ledger again instead of failing on the unique (batch, step)."""
    for _ in range(RECONCILE_TRIES - 1):
        try:
            return _reconcile(engine, step_names)
        except IntegrityError:
            continue  # another daemon added a run we were adding: read the ledger again
    return _reconcile(engine, step_names)


def _reconcile(engine: Engine, step_names: Sequence[str]) -> int:
    added = 0
    names = set(step_names)
    with transaction(engine) as session:
        batches = session.execute(select(Batch.id, Batch.scope)).all()  # before the runs: see the docstring
        have = {(b, s) for b, s in session.execute(select(StepRun.batch_id, StepRun.step))}
        woken: set[str] = set()  # scopes with work again: the daemon's queue must say so
        for batch_id, scope in batches:
            for name in step_names:
                if (batch_id, name) not in have:
                    session.add(StepRun(batch_id=batch_id, scope=scope, step=name))
                    woken.add(scope)
                    added += 1
        woken.update(session.execute(
            select(StepRun.scope).distinct().where(StepRun.status == RunStatus.RETIRED.value, StepRun.step.in_(names))
        ).scalars())
        mark_due(session, woken, AT_ONCE)
        unfinished = (*OPEN, RunStatus.FAILED.value)
        session.execute(
            update(StepRun)
            .where(StepRun.status.in_(unfinished), StepRun.step.not_in(names))
            .values(status=RunStatus.RETIRED.value, next_at=None)
        )
        session.execute(
            update(StepRun)
            .where(StepRun.status == RunStatus.RETIRED.value, StepRun.step.in_(names))
            .values(status=RunStatus.PENDING.value, attempts=0, next_at=None)
        )
    return added


def _heads(candidates, open_only: bool) -> Select:
    """Per (scope, step), the run of the first batch among `candidates`, with its batch, in batch
    order; `open_only`: only those heads that are open (pending or retrying)."""
    heads = (
        select(StepRun.scope, StepRun.step, func.min(StepRun.batch_id).label("head"))
        .where(candidates)
        .group_by(StepRun.scope, StepRun.step)
        .subquery()
    )
    stmt = (
        select(StepRun, Batch)
        .join(heads, (StepRun.scope == heads.c.scope) & (StepRun.step == heads.c.step) & (StepRun.batch_id == heads.c.head))
        .join(Batch, Batch.id == StepRun.batch_id)
    )
    return (stmt.where(StepRun.status.in_(OPEN)) if open_only else stmt).order_by(Batch.id, StepRun.step)


def head_runs(engine: Engine) -> list[tuple[StepRun, Batch]]:
    """The first open run of each (scope, step) with its batch, in batch order.

    The heads are picked in SQL (one grouped scan of the open runs), so a long backlog costs
    one small query per round, not a load of every open run.
    """
    with reading(engine) as session:
        return [(run, batch) for run, batch in session.execute(_heads(StepRun.status.in_(OPEN), False)).all()]


def step_heads(session: Session, scopes: Sequence[str] | None = None) -> list[tuple[StepRun, Batch]]:
    """Per (scope, step) of these scopes, the run of its first unfinished batch, if it is open.

    Unfinished is anything but done or retired: a failed run stays the head of its step, so
    it holds back that step's later batches (a step applies a scope's batches in order) until
    `retry` re-arms it; other steps and other scopes are not held. In batch order; None: every scope."""
    unfinished = StepRun.status.not_in(FINISHED)
    where = unfinished if scopes is None else unfinished & StepRun.scope.in_(list(scopes))
    return [(run, batch) for run, batch in session.execute(_heads(where, True)).all()]


@contextmanager
def open_run(engine: Engine, run_id: int) -> Iterator[tuple[Session, StepRun | None]]:
    """A write transaction holding the run, or None when it is gone, already done (another
    worker finished it) or retired (its step left the config meanwhile): the caller's changes
    to the run commit with whatever else it writes."""
    with transaction(engine) as session:
        # Re-read under a row lock (PostgreSQL): a second daemon applying the same run waits
        # here, then sees it done and applies nothing. SQLite's BEGIN IMMEDIATE already serialises.
        run = session.get(StepRun, run_id, with_for_update=True)
        closed = (RunStatus.DONE.value, RunStatus.RETIRED.value)
        yield session, (None if run is None or run.status in closed else run)


def rearm_failed(engine: Engine, scope: str | None, now: datetime) -> int:
    """Give failed runs a fresh set of attempts (the `retry` command)."""
    with transaction(engine) as session:
        stmt = select(StepRun).where(StepRun.status == RunStatus.FAILED.value)
        if scope is not None:
            stmt = stmt.where(StepRun.scope == scope)
        runs = list(session.execute(stmt).scalars())
        for run in runs:
            run.status = RunStatus.PENDING.value
            run.attempts = 0
            run.next_at = now
        mark_due(session, {run.scope for run in runs}, now)  # the daemon picks the scopes up again
    return len(runs)


def consolidated_seq(session: Session, scope: str) -> int:
    """The last message of the longest run of batches, from the first, whose steps are all done
    (or retired: a step no longer configured holds nothing back)."""
    first_unfinished = session.execute(
        select(func.min(Batch.number))
        .join(StepRun, StepRun.batch_id == Batch.id)
        .where(StepRun.scope == scope, StepRun.status.not_in(FINISHED))
    ).scalar_one()
    through = select(func.coalesce(func.max(Batch.last_seq), 0)).where(Batch.scope == scope)
    if first_unfinished is not None:
        through = through.where(Batch.number < first_unfinished)
    return session.execute(through).scalar_one()


def batch_counts(session: Session) -> dict[str, dict[str, int]]:
    """Per scope: batches done, pending, retrying, failed (a batch counts once, by its worst step;
    a retired run, of a step no longer configured, counts as done)."""
    rank = {RunStatus.DONE.value: 0, RunStatus.RETIRED.value: 0, RunStatus.PENDING.value: 1,
            RunStatus.RETRYING.value: 2, RunStatus.FAILED.value: 3}
    worst: dict[int, int] = {}
    for batch_id, status in session.execute(select(StepRun.batch_id, StepRun.status).where(StepRun.status != RunStatus.DONE.value)):
        worst[batch_id] = max(worst.get(batch_id, 0), rank[status])
    names = {0: "done", 1: "pending", 2: "retrying", 3: "failed"}
    out: dict[str, dict[str, int]] = {}
    for batch_id, scope in session.execute(select(Batch.id, Batch.scope)):
        counts = out.setdefault(scope, {"done": 0, "pending": 0, "retrying": 0, "failed": 0})
        counts[names[worst.get(batch_id, 0)]] += 1
    return out
