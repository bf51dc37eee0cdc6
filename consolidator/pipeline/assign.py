"""Assigning new messages to interactions (the rule is hierarchy.interactions; this is the IO)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.engine import Engine

from hierarchy.interactions import InteractionPlacer, Span
from stores import interactions as interaction_store
from stores.engine import transaction
from stores.interactions import Interaction
from stores.ledger import ScopeCursor
from stores.messages import Message, messages_after

CHUNK = 5_000


def assign_interactions(engine: Engine, scope: str, gap: timedelta) -> list[int]:
    """Place the scope's unassigned messages; returns the interaction numbers touched."""
    touched: set[int] = set()
    while True:
        numbers = _assign_chunk(engine, scope, gap)
        if numbers is None:
            return sorted(touched)
        touched.update(numbers)


def _assign_chunk(engine: Engine, scope: str, gap: timedelta) -> list[int] | None:
    with transaction(engine) as session:
        cursor = session.get(ScopeCursor, scope) or ScopeCursor(scope=scope)
        session.add(cursor)
        new = messages_after(session, scope, cursor.assigned_seq, CHUNK)
        if not new:
            return None
        lo = min(m.at for m in new)
        hi = max(m.at for m in new)
        sessions = {m.session for m in new if m.session is not None}
        rows = {row.number: row for row in interaction_store.nearby(session, scope, sessions, lo, hi, gap)}
        placer = InteractionPlacer(
            [Span(r.number, r.session, r.first_at, r.last_at, r.message_count, r.max_seq) for r in rows.values()],
            interaction_store.max_number(session, scope),
            gap,
        )
        assignments = [{"id": m.id, "interaction": placer.place(m.at, m.session, m.seq)} for m in new]
        session.execute(update(Message), assignments)
        for number, span in placer.touched.items():
            row = rows.get(number)
            if row is None:
                row = Interaction(scope=scope, number=number, session=span.session, first_at=span.first_at, last_at=span.last_at)
                session.add(row)
            row.first_at, row.last_at = span.first_at, span.last_at
            row.message_count, row.max_seq = span.message_count, span.max_seq
        cursor.assigned_seq = new[-1].seq
        return sorted(placer.touched)
