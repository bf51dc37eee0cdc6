"""Interactions: the conversations a scope's messages fall into, numbered in arrival order.

The daemon assigns each new message to an interaction (see hierarchy.interactions for the
rule); this module only stores the result. `message_count` and `max_seq` change whenever a
message joins, which is how a late message re-opens an interaction's summary.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Iterable

from typing import Callable, Sequence

from sqlalchemy import and_, bindparam, func, insert, or_, select, update
from sqlmodel import Session

from stores.engine import core, transaction
from stores.schema.ledger import ScopeCursor
from stores.schema.log import Message
from stores.schema.log import Interaction


# Placing reads (id, seq, at, session) of the unplaced messages and sets their interaction: plain
# rows, built once (a day's messages as ORM objects cost more than the SQL). Messages arrive in
# runs that join one interaction, so each run of consecutive seqs is set by one UPDATE of its
# seq range (a day of 200 messages in 1 to 4 interactions: a few rows of parameters, not 200).
_UNPLACED = (select(Message.id, Message.seq, Message.at, Message.session)
             .where(Message.scope == bindparam("scope"), Message.seq > bindparam("after"))
             .order_by(Message.seq).limit(bindparam("limit")))
_LOG = Message.__table__
_PLACE = (update(_LOG).where(_LOG.c.scope == bindparam("run_scope"), _LOG.c.seq >= bindparam("lo"),
                             _LOG.c.seq <= bindparam("hi"))
          .values(interaction=bindparam("number")))


_MAX_NUMBER = select(func.coalesce(func.max(Interaction.number), 0)).where(Interaction.scope == bindparam("scope"))
_LAST_TIMES = select(Interaction.number, Interaction.last_at).where(
    Interaction.scope == bindparam("scope"), Interaction.number.in_(bindparam("numbers", expanding=True)))


_TABLE = Interaction.__table__
_RESPAN = (update(_TABLE).where(_TABLE.c.scope == bindparam("s"), _TABLE.c.number == bindparam("n"))
           .values(first_at=bindparam("f"), last_at=bindparam("l"), message_count=bindparam("c"), max_seq=bindparam("m")))


def max_number(session: Session, scope: str) -> int:
    return core(session, _MAX_NUMBER, {"scope": scope}).scalar_one()


def last_times(session: Session, scope: str, numbers: Iterable[int]) -> dict[int, datetime]:
    """number -> time of its newest message, for those of `numbers` that exist."""
    numbers = list(numbers)
    return dict(core(session, _LAST_TIMES, {"scope": scope, "numbers": numbers}).all()) if numbers else {}


def interaction_count(session: Session, scope: str | None = None) -> int:
    """How many interactions there are (of one scope, or of all)."""
    stmt = select(func.count()).select_from(Interaction)
    if scope is not None:
        stmt = stmt.where(Interaction.scope == scope)
    return session.execute(stmt).scalar_one()


def nearby(session: Session, scope: str, sessions: set[str], lo: datetime, hi: datetime, gap: timedelta) -> list[Interaction]:
    """Interactions a batch of new messages could join: same session key, or sessionless and
    within `gap` of the time range [lo, hi]."""
    conditions = [
        and_(Interaction.session.is_(None), Interaction.last_at >= lo - gap, Interaction.first_at <= hi + gap)
    ]
    if sessions:
        conditions.append(Interaction.session.in_(sorted(sessions)))
    stmt = select(Interaction.__table__).where(Interaction.scope == scope, or_(*conditions))
    return list(core(session, stmt).all())  # rows (attribute access by column name), not ORM objects


def assign_next(engine, scope: str, limit: int, gap: timedelta,
                place: Callable[[Sequence[Message], list[Interaction], int], tuple[dict[str, int], dict]]) -> list[int] | None:
    """Place up to `limit` of the scope's unassigned messages in one transaction; returns the
    interaction numbers touched, or None when nothing was left to place.

    `place(new, nearby, max_number)` is the rule (hierarchy.interactions): it returns the
    interaction of each message id and the touched spans by number (each with session,
    first_at, last_at, message_count, max_seq)."""
    with transaction(engine) as session:
        cursor = session.get(ScopeCursor, scope) or ScopeCursor(scope=scope)
        session.add(cursor)
        new = core(session, _UNPLACED, {"scope": scope, "after": cursor.assigned_seq, "limit": limit}).all()
        if not new:
            return None
        sessions = {m.session for m in new if m.session is not None}
        rows = {row.number: row for row in nearby(session, scope, sessions, min(m.at for m in new), max(m.at for m in new), gap)}
        placed, touched = place(new, list(rows.values()), max_number(session, scope))
        runs = [{"run_scope": scope, "lo": lo, "hi": hi, "number": number} for number, lo, hi in _runs(new, placed)]
        if runs:
            core(session, _PLACE, runs)
        spans = [{"scope": scope, "number": number, "session": span.session, "first_at": span.first_at,
                  "last_at": span.last_at, "message_count": span.message_count, "max_seq": span.max_seq}
                 for number, span in touched.items()]
        added = [span for span in spans if span["number"] not in rows]
        if added:
            core(session, insert(Interaction.__table__), added)
        changed = [{"s": scope, "n": span["number"], "f": span["first_at"], "l": span["last_at"],
                    "c": span["message_count"], "m": span["max_seq"]} for span in spans if span["number"] in rows]
        if changed:
            core(session, _RESPAN, changed)
        cursor.assigned_seq = new[-1].seq
        return sorted(touched)


def _runs(new: Sequence, placed: dict[str, int]) -> list[tuple[int, int, int]]:
    """(interaction, first seq, last seq) of each run of consecutive seqs placed in one
    interaction; `new` in seq order. A message `placed` leaves out is left as it is."""
    runs: list[list[int]] = []
    for message in new:
        number = placed.get(message.id)
        if number is None:
            continue
        if runs and runs[-1][0] == number and runs[-1][2] == message.seq - 1:
            runs[-1][2] = message.seq
        else:
            runs.append([number, message.seq, message.seq])
    return [(number, lo, hi) for number, lo, hi in runs]
