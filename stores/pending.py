"""What one scope still has pending after a daemon worked it: one statement of index probes and the step heads.

The daemon (consolidator/pipeline/scope_due.py) turns this into the scope's next due time in the
work queue; the rules (flush_idle, retries, day close) are the caller's. Every query here is
bounded by the scope: its cost does not grow with the number of scopes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, bindparam, exists, func, select
from sqlmodel import Session

from stores.schema.memory import FactState, FactUse
from stores.schema.ladders import LadderHold
from stores.schema.ladders import DirtyWindow
from stores.schema.ledger import ScopeCursor, StepRun
from stores.schema.log import Message
from stores.engine import core
from stores.ledger import FINISHED, OPEN
from stores.schema.daemon import ViewVersion


@dataclass(frozen=True)
class Pending:
    newest_seq: int  # the scope's newest message (0: none)
    assigned_seq: int  # placed in interactions up to here
    batched_seq: int  # cut into batches up to here
    tail_newest_at: datetime | None  # the newest unbatched message's time
    newest_at: datetime | None  # the scope's newest message time
    run_heads: tuple[tuple[str, datetime | None], ...]  # (step, next_at) of each open head run
    hold_until: datetime | None  # the earliest held ladder window's next try
    unslept: bool  # its facts changed since the last offline pass
    uses: bool  # fact uses wait to be applied
    stale_views: bool  # a snapshot view waits to be published
    dirty_day: int | None  # the oldest day unit of the time ladder waiting to be (re)written
    dirty_interaction_at: datetime | None  # the oldest last-message time of a count-ladder window waiting


def _one(stmt):
    return stmt.scalar_subquery()


_SCOPE = bindparam("scope")
_BATCHED = _one(select(func.coalesce(func.max(ScopeCursor.batched_seq), 0)).where(ScopeCursor.scope == _SCOPE))
# Built once with the scope as a parameter: building and keying a statement of eleven subqueries
# cost more than running it.
_PROBES = select(
    _one(select(func.coalesce(func.max(ScopeCursor.assigned_seq), 0)).where(ScopeCursor.scope == _SCOPE)),
    _BATCHED,
    _one(select(func.coalesce(func.max(Message.seq), 0)).where(Message.scope == _SCOPE)),
    _one(select(func.max(Message.at)).where(Message.scope == _SCOPE, Message.seq > _BATCHED)),
    _one(select(func.max(Message.at)).where(Message.scope == _SCOPE)),
    _one(select(func.min(LadderHold.next_at)).where(LadderHold.scope == _SCOPE)),
    _one(select(func.count()).select_from(FactState)
         .where(FactState.scope == _SCOPE, FactState.revision != FactState.slept_revision)),
    exists().where(FactUse.scope == _SCOPE),
    _one(select(func.min(DirtyWindow.unit)).where(DirtyWindow.scope == _SCOPE, DirtyWindow.ladder == "time")),
    _one(select(func.min(DirtyWindow.last_at)).where(DirtyWindow.scope == _SCOPE, DirtyWindow.ladder == "count")),
    exists().where(ViewVersion.scope == _SCOPE, ViewVersion.version > ViewVersion.published),
)
# The scope's step heads as `stores.ledger.step_heads` picks them (the first unfinished run of each
# step, if open), as (step, next_at) rows in batch order: no ORM objects, which cost milliseconds.
_RUN = StepRun.__table__
_FIRST = (select(_RUN.c.step, func.min(_RUN.c.batch_id).label("head"))
          .where(_RUN.c.scope == _SCOPE, _RUN.c.status.not_in(FINISHED)).group_by(_RUN.c.step).subquery())
_HEADS = (select(_RUN.c.step, _RUN.c.next_at)
          .join(_FIRST, and_(_RUN.c.step == _FIRST.c.step, _RUN.c.batch_id == _FIRST.c.head))
          .where(_RUN.c.scope == _SCOPE, _RUN.c.status.in_(OPEN)).order_by(_RUN.c.batch_id, _RUN.c.step))


def pending(session: Session, scope: str) -> Pending:
    """Read in two round trips: one SELECT of scalar subqueries (each an index probe bounded by
    the scope) and the step heads. The daemon asks this twice per worked scope, so it was the
    largest single source of statements in a drain when each probe was its own statement."""
    row = core(session, _PROBES, {"scope": scope}).one()
    assigned, batched_seq, newest_seq, tail_at, newest_at, hold, unslept, uses, dirty_day, dirty_at, stale_views = row
    heads = tuple((step, next_at) for step, next_at in core(session, _HEADS, {"scope": scope}).all())
    return Pending(int(newest_seq), int(assigned), int(batched_seq), tail_at if newest_seq > batched_seq else None,
                   newest_at, heads, hold, bool(unslept), bool(uses), bool(stale_views), dirty_day, dirty_at)
