"""Which hot messages may move to the archive: the one query, and the cursors it is bounded by.

A message may go once nothing will read it again in the normal course of work: every batch
step applied to it, both ladders saw it and wrote its windows (no dirty window at or before
it), its whole interaction ended before the cutoff, and it is not its scope's newest message
(that one stays hot: the scope's seq counter and its listing in `scopes()` come from it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, select
from sqlmodel import Session

from stores.files.archive_files import COLUMNS
from stores.schema.log import Interaction
from stores.schema.ladders import DirtyWindow, LadderState
from stores.schema.ledger import ScopeCursor
from stores.schema.log import Message
from stores.messages import newest_seq
from stores.ledger import consolidated_seq


def scopes_older_than(session: Session, cutoff: datetime) -> list[str]:
    """The scopes holding a hot message from before `cutoff`: the only ones whose messages may
    go (one grouped statement over the (scope, at) index, whatever the number of scopes)."""
    stmt = select(Message.scope).group_by(Message.scope).having(func.min(Message.at) < cutoff).order_by(Message.scope)
    return list(session.execute(stmt).scalars())


def safe_through(session: Session, scope: str, ladders: tuple[str, ...]) -> int:
    """The highest seq that every consumer has processed (0 when any has not started)."""
    cursor = session.get(ScopeCursor, scope)
    bounds = [consolidated_seq(session, scope), newest_seq(session, scope) - 1, cursor.assigned_seq if cursor else 0]
    for ladder in ladders:
        state = session.get(LadderState, (scope, ladder))
        bounds.append(state.seen_seq if state else 0)
    return max(0, min(bounds))


def first_dirty(session: Session, scope: str, ladder: str) -> int | None:
    """The lowest dirty base unit of a ladder (a day unit, or an interaction number)."""
    return session.execute(
        select(func.min(DirtyWindow.unit)).where(DirtyWindow.scope == scope, DirtyWindow.ladder == ladder)
    ).scalar_one()


def archivable(session: Session, scope: str, through_seq: int, cutoff: datetime, before_interaction: int | None,
               limit: int, after_seq: int = 0) -> list[tuple]:
    """Up to `limit` rows (COLUMNS order, by seq, after `after_seq`) that may move: seq <= through_seq,
    in an interaction that ended before `cutoff` and is numbered below `before_interaction`."""
    columns = [getattr(Message, name) for name in COLUMNS]
    stmt = (
        select(*columns)
        .join(Interaction, and_(Interaction.scope == Message.scope, Interaction.number == Message.interaction))
        .where(Message.scope == scope, Message.seq > after_seq, Message.seq <= through_seq,
               Message.at < cutoff, Interaction.last_at < cutoff)
        .order_by(Message.seq)
        .limit(limit)
    )
    if before_interaction is not None:
        stmt = stmt.where(Message.interaction < before_interaction)
    return [tuple(row) for row in session.execute(stmt).all()]
