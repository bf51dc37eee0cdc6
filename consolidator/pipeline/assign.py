"""Assigning new messages to interactions (the rule is hierarchy.interactions; the IO is stores.interactions)."""

from __future__ import annotations

from datetime import timedelta

from hierarchy.interactions import InteractionPlacer, Span
from stores.engine import Engine
from stores.interactions import assign_next

CHUNK = 5_000


def assign_interactions(engine: Engine, scope: str, gap: timedelta) -> list[int]:
    """Place the scope's unassigned messages; returns the interaction numbers touched. A chunk
    short of CHUNK was the last: no transaction is opened only to find nothing (a message
    logged meanwhile is the next tick's, as the scope is due again)."""
    touched: set[int] = set()
    chunk = [0]  # how many messages the last call placed

    def place(new, nearby, newest_number):
        chunk[0] = len(new)
        placer = InteractionPlacer(
            [Span(r.number, r.session, r.first_at, r.last_at, r.message_count, r.max_seq) for r in nearby],
            newest_number,
            gap,
        )
        placed = {m.id: placer.place(m.at, m.session, m.seq) for m in new}
        return placed, placer.touched

    while True:
        numbers = assign_next(engine, scope, CHUNK, gap, place)
        if numbers is None:
            return sorted(touched)
        touched.update(numbers)
        if chunk[0] < CHUNK:
            return sorted(touched)
