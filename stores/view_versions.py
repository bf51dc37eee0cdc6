"""Which snapshot views are stale: a version per (scope, view), bumped with the data.

A step bumps the views it changed inside its own transaction; the snapshot stage
publishes every view whose version is newer than the one it last published, and only
then records it. So a crash between a commit and its snapshot only delays the file to
the next tick: a snapshot can lag its data, never miss it.
"""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import bindparam, select, update
from sqlmodel import Session

from stores.engine import core, dialect_insert
from stores.schema.daemon import ViewVersion


def bump(session: Session, scope: str, view: str) -> None:
    """Mark `view` of `scope` as changed, in the caller's transaction: one upsert, no read first."""
    bump_all(session, [(scope, view)])


def bump_all(session: Session, views: list[tuple[str, str]]) -> None:
    """`bump` for several (scope, view) at once: one executemany of the upsert."""
    if not views:
        return
    core(session, _bump_statement(session.get_bind().dialect), [{"scope": scope, "view": view} for scope, view in views])


@lru_cache(maxsize=4)
def _bump_statement(dialect):
    """The upsert that raises a view's version (inserted at 1), built once per dialect."""
    table = ViewVersion.__table__
    return (dialect_insert(table, dialect)
            .values(scope=bindparam("scope"), view=bindparam("view"), version=1)
            .on_conflict_do_update(index_elements=[table.c.scope, table.c.view], set_={"version": table.c.version + 1}))


def bump_once(session: Session, scope: str, view: str) -> None:
    """`bump`, unless this transaction bumped that view already: the ladders store a run of
    windows of one rung in one transaction, and one raise says "changed" as well as thirty."""
    current = session.get_transaction()
    held = session.info.get("bumped")
    if held is None or held[0] is not current:  # the transaction itself is kept, so no id is reused
        held = session.info["bumped"] = (current, set())
    if (scope, view) not in held[1]:
        held[1].add((scope, view))
        bump(session, scope, view)


_STALE = select(ViewVersion.scope, ViewVersion.view, ViewVersion.version).where(ViewVersion.version > ViewVersion.published)
_STALE_OF = _STALE.where(ViewVersion.scope == bindparam("scope"))


def stale(session: Session, scope: str | None = None) -> list[tuple[str, str, int]]:
    """(scope, view, version) of every view changed since it was last published."""
    if scope is not None:
        return [tuple(row) for row in core(session, _STALE_OF, {"scope": scope}).all()]
    return [tuple(row) for row in session.execute(_STALE).all()]


def mark_published(session: Session, scope: str, view: str, version: int) -> None:
    """Record that `version` of the view was published (an older mark never lowers it): one
    UPDATE, no read first; the snapshot stage marks every view of every scope it publishes."""
    session.execute(
        update(ViewVersion)
        .where(ViewVersion.scope == scope, ViewVersion.view == view, ViewVersion.published < version)
        .values(published=version)
    )


def mark_all_published(session: Session, scope: str, versions: list[tuple[str, int]]) -> None:
    """`mark_published` for several (view, version) of one scope as one executemany (one
    statement compiled, one round trip on PostgreSQL's pipeline), as the snapshot stage marks a
    scope's views after writing their files."""
    if not versions:
        return
    core(session, _MARK_PUBLISHED, [{"s": scope, "v": view, "n": version} for view, version in versions])


_T = ViewVersion.__table__
_MARK_PUBLISHED = (update(_T).where(_T.c.scope == bindparam("s"), _T.c.view == bindparam("v"), _T.c.published < bindparam("n"))
                   .values(published=bindparam("n")))


# What the published context.md was composed from. context.md also shows the messages not yet
# consolidated, which change with no view bumped (an append bumps nothing: the append path stays
# as it is), so the snapshot stage recomposes it whenever the scope's newest seq or consolidated
# seq differs from these marks. Each is a row of this table whose version always equals its
# published, so `stale` and the daemon's probe never see it.
CONTEXT_NEWEST = "context:newest"
CONTEXT_CONSOLIDATED = "context:consolidated"


def context_marks(session: Session, scope: str) -> tuple[int, int] | None:
    """(newest seq, consolidated seq) the scope's context.md was last composed with; None if never."""
    rows = dict(session.execute(select(ViewVersion.view, ViewVersion.version).where(
        ViewVersion.scope == scope, ViewVersion.view.in_((CONTEXT_NEWEST, CONTEXT_CONSOLIDATED)))).all())
    if len(rows) < 2:
        return None
    return rows[CONTEXT_NEWEST], rows[CONTEXT_CONSOLIDATED]


def mark_context(session: Session, scope: str, newest: int, consolidated: int) -> None:
    """Record the marks context.md was composed with (one upsert of two rows, version = published)."""
    table = ViewVersion.__table__
    stmt = dialect_insert(table, session.get_bind().dialect)
    stmt = stmt.on_conflict_do_update(index_elements=[table.c.scope, table.c.view],
                                      set_={"version": stmt.excluded.version, "published": stmt.excluded.published})
    session.execute(stmt, [{"scope": scope, "view": view, "version": value, "published": value}
                           for view, value in ((CONTEXT_NEWEST, newest), (CONTEXT_CONSOLIDATED, consolidated))])
