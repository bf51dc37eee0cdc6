"""The message log as the ladders read it: new arrivals since a cursor, and one base window's messages.

The ladder stage reads the raw log in two places only: to mark the base windows of new
messages dirty, and to summarise one closed base window (a local day, or an interaction).
Every read stops at a `through_seq` the caller has already seen, so a message that arrives
meanwhile is left for the next tick instead of slipping into a window unmarked.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam, select
from sqlmodel import Session

from stores.engine import core

from stores.schema.log import Message

# Windows are read as plain rows (attribute access by column name, as a Message has): a day is
# hundreds of messages, and ORM objects cost more to build than the read itself.
_ROW = select(Message.__table__)
_BEFORE = Message.seq <= bindparam("through")
_WINDOW = (_ROW.where(Message.scope == bindparam("scope"), _BEFORE, Message.at >= bindparam("start"),
                      Message.at < bindparam("end")).order_by(Message.at, Message.seq))
_INTERACTIONS = (_ROW.where(Message.scope == bindparam("scope"), _BEFORE, Message.interaction >= bindparam("first"),
                            Message.interaction <= bindparam("last")).order_by(Message.interaction, Message.at, Message.seq))
_ANY_AFTER = select(Message.seq).where(Message.scope == bindparam("scope"), Message.seq > bindparam("seq")).limit(1)
_ARRIVALS = (select(Message.seq, Message.at, Message.interaction)
             .where(Message.scope == bindparam("scope"), Message.seq > bindparam("seq")).order_by(Message.seq))


class Arrival(NamedTuple):
    """Where one message falls: its arrival number, time and interaction (None until placed)."""

    seq: int
    at: datetime
    interaction: int | None


def has_messages_after(session: Session, scope: str, seq: int) -> bool:
    """Whether the scope logged any message after arrival number `seq` (one index probe)."""
    return core(session, _ANY_AFTER, {"scope": scope, "seq": seq}).first() is not None


def arrivals_after(session: Session, scope: str, seq: int) -> list[Arrival]:
    """Every message of the scope after arrival number `seq`, in arrival order."""
    return [Arrival(*row) for row in core(session, _ARRIVALS, {"scope": scope, "seq": seq}).all()]


def arrivals_through(session: Session, scope: str, through_seq: int, since: datetime | None = None) -> list[Arrival]:
    """Every message up to arrival number `through_seq` (at or after `since` when given), unordered."""
    stmt = select(Message.seq, Message.at, Message.interaction).where(Message.scope == scope, Message.seq <= through_seq)
    if since is not None:
        stmt = stmt.where(Message.at >= since)
    return [Arrival(*row) for row in session.execute(stmt).all()]


def messages_in_time_window(session: Session, scope: str, through_seq: int, start: datetime, end: datetime) -> list[Message]:
    """The messages with `start <= at < end`, up to arrival `through_seq`, in time order (as rows)."""
    return list(core(session, _WINDOW, {"scope": scope, "through": through_seq, "start": start, "end": end}).all())


def messages_of_interaction(session: Session, scope: str, through_seq: int, number: int) -> list[Message]:
    """The messages of interaction `number`, up to arrival `through_seq`, in time order (as rows)."""
    stmt = (
        _ROW
        .where(Message.scope == scope, Message.seq <= through_seq, Message.interaction == number)
        .order_by(Message.at, Message.seq)
    )
    return list(session.execute(stmt).all())


def messages_of_interactions(session: Session, scope: str, through_seq: int, first: int, last: int) -> dict[int, list[Message]]:
    """The messages of interactions `first`..`last`, up to arrival `through_seq`, each in time
    order (as rows): one range read of the (scope, interaction, seq) index instead of one per interaction."""
    out: dict[int, list[Message]] = {}
    parameters = {"scope": scope, "through": through_seq, "first": first, "last": last}
    for message in core(session, _INTERACTIONS, parameters).all():
        out.setdefault(message.interaction, []).append(message)
    return out
