"""What the recall index reads from the database: what changed since its last update, and nothing more.

Each read is bounded by a watermark the index keeps (a seq, an announcement id, a time), so an
update costs in proportion to what is new. The first update of a scope (no watermark) reads
everything, archived messages and summaries included, through the history reader.
"""

from __future__ import annotations

from datetime import datetime
from sqlalchemy import func, select
from sqlmodel import Session

from stores.schema.memory import Contact
from stores.contacts import current_details
from stores.schema.memory import REFLECTION, Fact
from stores.schema.log import Message
from stores.schema.ladders import Announcement, Summary
from stores.schema.daemon import ViewVersion


def view_versions(session: Session, scope: str) -> dict[str, int]:
    """view -> version for every view of the scope (one indexed read)."""
    stmt = select(ViewVersion.view, ViewVersion.version).where(ViewVersion.scope == scope)
    return {view: int(version) for view, version in session.execute(stmt).all()}


def newest_seq(session: Session, scope: str) -> int:
    return session.execute(select(func.coalesce(func.max(Message.seq), 0)).where(Message.scope == scope)).scalar_one()


def messages_after(session: Session, scope: str, after_seq: int, limit: int) -> list[Message]:
    stmt = select(Message).where(Message.scope == scope, Message.seq > after_seq).order_by(Message.seq).limit(limit)
    return list(session.execute(stmt).scalars())


def facts_changed_since(session: Session, scope: str, since: datetime | None) -> list[Fact]:
    """Every fact of the scope updated at or after `since` (all of them when None)."""
    stmt = select(Fact).where(Fact.scope == scope)
    if since is not None:
        stmt = stmt.where(Fact.updated_at >= since)
    return list(session.execute(stmt.order_by(Fact.updated_at, Fact.id)).scalars())


def current_reflections(session: Session, scope: str) -> list[Fact]:
    """The scope's current reflections (facts/reflect.py): few, read whole when facts change."""
    stmt = select(Fact).where(Fact.scope == scope, Fact.valid_to.is_(None), Fact.kind == REFLECTION)
    return list(session.execute(stmt.order_by(Fact.id)).scalars())


def current_ids(session: Session, scope: str, ids: set[str], chunk: int = 500) -> set[str]:
    """Which of these fact ids of the scope are current."""
    ordered, out = sorted(ids), set()
    for start in range(0, len(ordered), chunk):
        stmt = select(Fact.id).where(Fact.scope == scope, Fact.valid_to.is_(None),
                                     Fact.id.in_(ordered[start:start + chunk]))
        out.update(session.execute(stmt).scalars())
    return out


def contacts_changed_since(session: Session, scope: str, since: datetime | None
                           ) -> tuple[list[Contact], dict[int, dict[str, str]]]:
    """The scope's contacts updated at or after `since` (all when None), with their current details."""
    stmt = select(Contact).where(Contact.scope == scope)
    if since is not None:
        stmt = stmt.where(Contact.updated_at >= since)
    contacts = list(session.execute(stmt.order_by(Contact.updated_at, Contact.id)).scalars())
    details = current_details(session, scope, [c.id for c in contacts]) if contacts else {}
    return contacts, details


def announced_summaries(session: Session, scope: str, ladder: str, after_id: int) -> tuple[list[Summary], int]:
    """The ladder's summaries announced after announcement `after_id`, and the newest id seen
    (one range of the (scope, ladder, id) index, then the rows by id)."""
    stmt = (select(Announcement.id, Announcement.summary_id)
            .where(Announcement.scope == scope, Announcement.ladder == ladder, Announcement.id > after_id)
            .order_by(Announcement.id))
    rows = session.execute(stmt).all()
    if not rows:
        return [], after_id
    ids = list(dict.fromkeys(summary_id for _, summary_id in rows))
    found: dict[str, Summary] = {}
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        found.update({s.id: s for s in session.execute(select(Summary).where(Summary.id.in_(part))).scalars()})
    return [found[i] for i in ids if i in found], int(rows[-1][0])


def newest_announcement(session: Session, scope: str, ladder: str) -> int:
    """The id of the ladder's newest announcement (0: none), one probe of the (scope, ladder, id) index."""
    stmt = select(func.coalesce(func.max(Announcement.id), 0)).where(Announcement.scope == scope,
                                                                    Announcement.ladder == ladder)
    return int(session.execute(stmt).scalar_one())
