"""Cutting a scope's new messages into batches: pure policy, then the write.

Each run of `batch_size` consecutive messages (arrival order) is a batch; a shorter tail
becomes a batch once `flush_idle` has passed since its newest message's time, so an
imported history drains completely while a live conversation waits for a full batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Sequence

from stores.engine import Engine
from stores.ledger import ensure_step_runs, record_batches

__all__ = ["Cut", "cut_batches", "ensure_step_runs", "plan_batches"]


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
    return record_batches(engine, scope, step_names, now, lambda pending: plan_batches(pending, batch_size, flush_idle, now))
