"""Reads for reflections (consolidator/facts/reflect.py): which interaction each source message
of a fact landed in, so a reflection is written only over facts from two sessions or more.

Archived messages are not looked up here (a fact whose messages all left the hot log counts by
its own day instead: the caller's fallback)."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session

from stores.schema.log import Message


def interactions_of(session: Session, scope: str, message_ids: set[str], chunk: int = 500) -> dict[str, int]:
    """The interaction number of each of these hot messages of `scope` that has one."""
    ordered = sorted(message_ids)
    out: dict[str, int] = {}
    for start in range(0, len(ordered), chunk):
        part = ordered[start:start + chunk]
        rows = session.execute(select(Message.id, Message.interaction)
                               .where(Message.scope == scope, Message.id.in_(part))).all()
        out.update({mid: n for mid, n in rows if n is not None})
    return out
