"""What one scope still has pending after a daemon worked it: one statement of index probes and the step heads.

The daemon (consolidator/pipeline/scope_due.py) turns this into the scope's next due time in the
work queue; the rules (flush_idle, retries, day close) are the caller's. Every query here is
bounded by the scope: its cost does not grow with the number of scopes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, func, select
from sqlmodel import Session

from stores.schema.memory import FactState, FactUse
from stores.schema.ladders import LadderHold
from stores.schema.ladders import DirtyWindow
from stores.schema.ledger import ScopeCursor
from stores.schema.log import Message
from stores.ledger import step_heads
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


def pending(session: Session, scope: str) -> Pending:
    """Read in two round trips: one SELECT of scalar subqueries (each an index probe bounded by
    the scope) and the step heads. The daemon asks this twice per worked scope, so it was the
    largest single source of statements in a drain when each probe was its own statement."""
    def one(stmt):
        return stmt.scalar_subquery()

    batched = one(select(func.coalesce(func.max(ScopeCursor.batched_seq), 0)).where(ScopeCursor.scope == scope))
    row = session.execute(select(
        one(select(func.coalesce(func.max(ScopeCursor.assigned_seq), 0)).where(ScopeCursor.scope == scope)),
        batched,
        one(select(func.coalesce(func.max(Message.seq), 0)).where(Message.scope == scope)),
        one(select(func.max(Message.at)).where(Message.scope == scope, Message.seq > batched)),
        one(select(func.max(Message.at)).where(Message.scope == scope)),
        one(select(func.min(LadderHold.next_at)).where(LadderHold.scope == scope)),
        one(select(func.count()).select_from(FactState)
            .where(FactState.scope == scope, FactState.revision != FactState.slept_revision)),
        exists().where(FactUse.scope == scope),
        one(select(func.min(DirtyWindow.unit)).where(DirtyWindow.scope == scope, DirtyWindow.ladder == "time")),
        one(select(func.min(DirtyWindow.last_at)).where(DirtyWindow.scope == scope, DirtyWindow.ladder == "count")),
        exists().where(ViewVersion.scope == scope, ViewVersion.version > ViewVersion.published),
    )).one()
    assigned, batched_seq, newest_seq, tail_at, newest_at, hold, unslept, uses, dirty_day, dirty_at, stale_views = row
    heads = tuple((run.step, run.next_at) for run, _ in step_heads(session, [scope]))
    return Pending(int(newest_seq), int(assigned), int(batched_seq), tail_at if newest_seq > batched_seq else None,
                   newest_at, heads, hold, bool(unslept), bool(uses), bool(stale_views), dirty_day, dirty_at)
