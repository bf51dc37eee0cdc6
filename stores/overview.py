"""Read-only overviews: a scope's dirty windows (`timeline`) and every scope at a glance (`status`).

Kept apart from stores/summaries.py (which the ladder stage owns): these queries only
count and list what the stage wrote; they never decide anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import column, select, text
from sqlmodel import Session

from stores.schema.ledger import RunStatus, StepRun
from stores.types import UTCDateTime

from stores.schema.ladders import DirtyWindow


def dirty_units(session: Session, scope: str, ladder: str) -> list[int]:
    """The base units (day units or interaction units) that received messages since their
    summary was written: their base window is waiting to be written again."""
    stmt = select(DirtyWindow.unit).where(DirtyWindow.scope == scope, DirtyWindow.ladder == ladder).order_by(DirtyWindow.unit)
    return list(session.execute(stmt).scalars())


_SCOPES_AT_A_GLANCE = (
    # One statement for every scope: a loose index scan lists the scopes (one probe each), and
    # each row's figures are index probes too (seq and interaction numbers are dense): the cost
    # grows with the number of scopes, never with the length of their logs.
    "WITH RECURSIVE s(scope) AS ("
    " SELECT min(scope) FROM message"
    " UNION ALL SELECT (SELECT min(m.scope) FROM message m WHERE m.scope > s.scope) FROM s WHERE s.scope IS NOT NULL"
    ") SELECT s.scope,"
    " (SELECT max(m.seq) FROM message m WHERE m.scope = s.scope),"
    " (SELECT max(m.at) FROM message m WHERE m.scope = s.scope),"
    " (SELECT coalesce(max(i.number), 0) FROM interaction i WHERE i.scope = s.scope),"
    " (SELECT coalesce(max(c.batched_seq), 0) FROM scope_cursor c WHERE c.scope = s.scope),"
    " (SELECT coalesce(max(c.batches), 0) FROM scope_cursor c WHERE c.scope = s.scope)"
    " FROM s WHERE s.scope IS NOT NULL"
)


@dataclass(frozen=True)
class ScopeGlance:
    scope: str
    messages: int  # also the newest seq: seq is dense per scope
    last_at: datetime | None
    interactions: int
    batched_seq: int
    batches: int  # cut so far (batch numbers are dense per scope)
    unfinished: dict[str, int]  # batches pending, retrying, failed (each by its worst step)


def scopes_at_a_glance(session: Session) -> list[ScopeGlance]:
    """Every scope's counts for `status`: two statements whatever the number of scopes."""
    stmt = text(_SCOPES_AT_A_GLANCE).columns(
        column("scope"), column("messages"), column("last_at", UTCDateTime()), column("interactions"),
        column("batched_seq"), column("batches"),
    )
    rows = session.execute(stmt).all()
    rank = {RunStatus.PENDING.value: 1, RunStatus.RETRYING.value: 2, RunStatus.FAILED.value: 3}
    worst: dict[tuple[str, int], int] = {}
    open_runs = select(StepRun.scope, StepRun.batch_id, StepRun.status).where(StepRun.status.in_(list(rank)))
    for scope, batch_id, status in session.execute(open_runs):  # only unfinished runs: small
        worst[(scope, batch_id)] = max(worst.get((scope, batch_id), 0), rank[status])
    names = {1: "pending", 2: "retrying", 3: "failed"}
    unfinished: dict[str, dict[str, int]] = {}
    for (scope, _), level in worst.items():
        counts = unfinished.setdefault(scope, {"pending": 0, "retrying": 0, "failed": 0})
        counts[names[level]] += 1
    return [
        ScopeGlance(scope, int(messages or 0), last_at, int(interactions), int(batched), int(batches),
                    unfinished.get(scope, {"pending": 0, "retrying": 0, "failed": 0}))
        for scope, messages, last_at, interactions, batched, batches in rows
    ]
