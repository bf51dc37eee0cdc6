"""Model requests sent through the Message Batches API: one row per request, one per batch.

Why durable: a batch is paid for and answered hours later, possibly after a restart, so
what was submitted, under which batch id, and every answer must survive a crash.

A request row (`model_batch_request`) is keyed by its `custom_id` (a hash of the request and
the work unit that asked for it), so the same work prepared again finds its own row:

    queued --(open_batch)--> submitting --(batch_submitted)--> submitted --(store_results)--> answered
      ^                          |                                  |
      +---- (submit failed) -----+      errored / expired / canceled: queued again, alone
    direct: given up on the batch (older than batch_max_wait), answered by a direct call

A batch row (`model_batch`) is written, with its requests' custom_ids pointing at it, BEFORE
the API is asked to create the batch, and gets the API's batch id right after. A crash in
between leaves a "submitting" batch without an id: the courier then looks for it among the
API's batches before submitting anything again (consolidator.batches.courier), so the
work is never submitted twice. Results and their ledger rows (the spend) are written in one
transaction, so a result is never lost nor billed twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable

from sqlalchemy import func, select, update
from sqlmodel import Session

from stores.engine import Engine, reading, transaction
from stores.model_calls import call_row
from stores.schema.model import BatchRequest, MessageBatch

QUEUED, SUBMITTING, SUBMITTED, ANSWERED, DIRECT = "queued", "submitting", "submitted", "answered", "direct"
OPEN_STATES = (QUEUED, SUBMITTING, SUBMITTED)


@dataclass(frozen=True)
class Seen:
    """What the table knows of one request: its state, when it was first asked, its answer."""

    state: str
    created_at: datetime
    result: str | None


def ask(engine: Engine, custom_id: str, *, scope: str, operation: str, ref: str, model: str, params: str,
        now: datetime) -> Seen:
    """The request's row, queued now if it is new."""
    with transaction(engine) as session:
        row = session.get(BatchRequest, custom_id)
        if row is None:
            row = BatchRequest(custom_id=custom_id, scope=scope[:128], operation=operation, ref=ref[:256],
                               model=model[:128], params=params, state=QUEUED, created_at=now)
            session.add(row)
        return Seen(row.state, row.created_at, row.result)


def go_direct(engine: Engine, custom_id: str) -> None:
    """Give up on the batch for this request (a direct call answers it); a late answer is still billed."""
    with transaction(engine) as session:
        session.execute(update(BatchRequest).where(BatchRequest.custom_id == custom_id, BatchRequest.state != ANSWERED)
                        .values(state=DIRECT))


def queued(session: Session, created_after: datetime) -> list[BatchRequest]:
    """Requests waiting to be submitted, oldest first (those asked before `created_after` go direct)."""
    stmt = select(BatchRequest).where(BatchRequest.state == QUEUED, BatchRequest.created_at >= created_after)
    return list(session.execute(stmt.order_by(BatchRequest.created_at, BatchRequest.custom_id)).scalars())


def open_batch(engine: Engine, custom_ids: list[str], now: datetime) -> int:
    """Record a batch about to be submitted and point its requests at it; returns its key."""
    with transaction(engine) as session:
        batch = MessageBatch(state=SUBMITTING, requests=len(custom_ids), created_at=now)
        session.add(batch)
        session.flush()
        session.execute(update(BatchRequest).where(BatchRequest.custom_id.in_(custom_ids))
                        .values(state=SUBMITTING, batch_key=batch.key, tries=BatchRequest.tries + 1))
        assert batch.key is not None
        return batch.key


def batch_submitted(engine: Engine, key: int, batch_id: str) -> None:
    """The API accepted the batch: its id, and its requests submitted."""
    with transaction(engine) as session:
        session.execute(update(MessageBatch).where(MessageBatch.key == key).values(batch_id=batch_id, state="in_progress"))
        session.execute(update(BatchRequest).where(BatchRequest.batch_key == key, BatchRequest.state == SUBMITTING)
                        .values(state=SUBMITTED))


def batch_never_made(engine: Engine, key: int, *, refused: bool = False) -> None:
    """The API did not create the batch: its requests are queued again (or, when the API
    `refused` them, go to direct calls, which report why), the batch row goes."""
    with transaction(engine) as session:
        session.execute(update(BatchRequest).where(BatchRequest.batch_key == key, BatchRequest.state == SUBMITTING)
                        .values(state=DIRECT if refused else QUEUED, batch_key=None, tries=BatchRequest.tries - 1))
        batch = session.get(MessageBatch, key)
        if batch is not None:
            session.delete(batch)


def batches(session: Session, *states: str) -> list[MessageBatch]:
    stmt = select(MessageBatch).where(MessageBatch.state.in_(states)).order_by(MessageBatch.key)
    return list(session.execute(stmt).scalars())


def known_batch_ids(session: Session) -> set[str]:
    return set(session.execute(select(MessageBatch.batch_id).where(MessageBatch.batch_id.is_not(None))).scalars())


def store_results(engine: Engine, key: int, answers: dict[str, str | None], calls: Iterable[Any],
                  now: datetime) -> None:
    """An ended batch's results in one transaction: answers (custom_id -> Message JSON, or None for a
    request that got none: queued again, alone), the ledger rows of what was billed, the batch ended."""
    with transaction(engine) as session:
        rows = {r.custom_id: r for r in session.execute(
            select(BatchRequest).where(BatchRequest.custom_id.in_(list(answers)))).scalars()}
        for custom_id, answer in answers.items():
            row = rows.get(custom_id)
            if row is None or row.state == ANSWERED:
                continue  # forgotten since, or answered by an earlier batch
            if answer is not None:
                row.state, row.result, row.answered_at = ANSWERED, answer, now
            elif row.state != DIRECT:
                row.state, row.alone, row.batch_key = QUEUED, True, None
        for rec in calls:
            session.add(call_row(rec))
        session.execute(update(MessageBatch).where(MessageBatch.key == key).values(state="ended", ended_at=now))


def requests_of(session: Session, custom_ids: list[str]) -> dict[str, BatchRequest]:
    """These requests' rows (those not forgotten since), by custom_id."""
    stmt = select(BatchRequest).where(BatchRequest.custom_id.in_(custom_ids))
    return {r.custom_id: r for r in session.execute(stmt).scalars()}


@dataclass(frozen=True)
class PendingBatch:
    batch_id: str | None
    state: str
    requests: int
    created_at: datetime


def pending(engine: Engine) -> tuple[list[PendingBatch], int]:
    """Batches not ended yet (oldest first), and how many requests wait to be submitted."""
    with reading(engine) as session:
        open_batches = [PendingBatch(b.batch_id, b.state, b.requests, b.created_at)
                        for b in batches(session, SUBMITTING, "in_progress")]
        waiting = session.execute(select(func.count()).select_from(BatchRequest)
                                  .where(BatchRequest.state == QUEUED)).scalar_one()
    return open_batches, int(waiting)
