"""Cutting a scope's new messages into batches: pure policy, then the write.

Each run of `batch_size` consecutive messages (arrival order) is a batch; a shorter tail
becomes a batch once `flush_idle` has passed since its newest message's time, so an
imported history drains completely while a live conversation waits for a full batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.engine import Engine

from stores.engine import transaction
from stores.ledger import Batch, ScopeCursor, StepRun
from stores.messages import Message


@dataclass(frozen=True)
class Cut:
    first_seq: int
    last_seq: int
    size: int
    reason: str  # "full" | "idle"


def plan_batches(pending: Sequence[tuple[int, datetime]], batch_size: int, flush_idle: timedelta, now: datetime) -> list[Cut]:
    """Batches due now from pending (seq, at) pairs in arrival order."""
    cuts: list[Cut] = []
    full = len(pending) // batch_size
    for k in range(full):
        chunk = pending[k * batch_size : (k + 1) * batch_size]
        cuts.append(Cut(chunk[0][0], chunk[-1][0], len(chunk), "full"))
    tail = pending[full * batch_size :]
    if tail and now >= max(at for _, at in tail) + flush_idle:
        cuts.append(Cut(tail[0][0], tail[-1][0], len(tail), "idle"))
    return cuts


def cut_batches(engine: Engine, scope: str, step_names: Sequence[str], batch_size: int, flush_idle: timedelta, now: datetime) -> list[int]:
    """Record the batches due now for `scope`, with a pending run per step; returns batch ids."""
    with transaction(engine) as session:
        cursor = session.get(ScopeCursor, scope) or ScopeCursor(scope=scope)
        session.add(cursor)
        stmt = select(Message.seq, Message.at).where(Message.scope == scope, Message.seq > cursor.batched_seq).order_by(Message.seq)
        pending = [(seq, at) for seq, at in session.execute(stmt)]
        ids: list[int] = []
        for cut in plan_batches(pending, batch_size, flush_idle, now):
            cursor.batches += 1
            batch = Batch(scope=scope, number=cursor.batches, first_seq=cut.first_seq, last_seq=cut.last_seq,
                          size=cut.size, reason=cut.reason, created_at=now)
            session.add(batch)
            session.flush()
            for name in step_names:
                session.add(StepRun(batch_id=batch.id, scope=scope, step=name))
            cursor.batched_seq = cut.last_seq
            ids.append(batch.id)
    return ids


def ensure_step_runs(engine: Engine, step_names: Sequence[str]) -> int:
    """Give every existing batch a pending run for steps registered after it was cut."""
    added = 0
    with transaction(engine) as session:
        have = {(b, s) for b, s in session.execute(select(StepRun.batch_id, StepRun.step))}
        for batch_id, scope in session.execute(select(Batch.id, Batch.scope)).all():
            for name in step_names:
                if (batch_id, name) not in have:
                    session.add(StepRun(batch_id=batch_id, scope=scope, step=name))
                    added += 1
    return added
