"""What one scope still has pending, read in a few index probes after a daemon worked it.

The daemon (consolidator/pipeline/due.py) turns this into the scope's next due time in the
work queue; the rules (flush_idle, retries, day close) are the caller's. Every query here is
bounded by the scope: its cost does not grow with the number of scopes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from stores.facts import FactState, FactUse
from stores.holds import LadderHold
from stores.ladder_state import DirtyWindow
from stores.ledger import ScopeCursor
from stores.messages import Message
from stores.runs import step_heads
from stores.views import stale


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
    cursor = session.get(ScopeCursor, scope)
    assigned = cursor.assigned_seq if cursor else 0
    batched = cursor.batched_seq if cursor else 0
    newest_seq = session.execute(
        select(func.coalesce(func.max(Message.seq), 0)).where(Message.scope == scope)
    ).scalar_one()
    tail_at = None
    if newest_seq > batched:
        tail_at = session.execute(
            select(func.max(Message.at)).where(Message.scope == scope, Message.seq > batched)
        ).scalar_one()
    newest_at = session.execute(select(func.max(Message.at)).where(Message.scope == scope)).scalar_one()
    heads = tuple((run.step, run.next_at) for run, _ in step_heads(session, [scope]))
    hold = session.execute(select(func.min(LadderHold.next_at)).where(LadderHold.scope == scope)).scalar_one()
    state = session.get(FactState, scope)
    unslept = state is not None and state.revision != state.slept_revision
    uses = session.execute(select(FactUse.id).where(FactUse.scope == scope).limit(1)).first() is not None
    dirty_day = session.execute(
        select(func.min(DirtyWindow.unit)).where(DirtyWindow.scope == scope, DirtyWindow.ladder == "time")
    ).scalar_one()
    dirty_at = session.execute(
        select(func.min(DirtyWindow.last_at)).where(DirtyWindow.scope == scope, DirtyWindow.ladder == "count")
    ).scalar_one()
    return Pending(newest_seq, assigned, batched, tail_at, newest_at, heads, hold, unslept, uses,
                   bool(stale(session, scope)), dirty_day, dirty_at)
