"""Which snapshot views are stale: a version per (scope, view), bumped with the data.

A step bumps the views it changed inside its own transaction; the snapshot stage
publishes every view whose version is newer than the one it last published, and only
then records it. So a crash between a commit and its snapshot only delays the file to
the next tick: a snapshot can lag its data, never miss it.
"""

from __future__ import annotations

from sqlalchemy import Column, String, select, update
from sqlmodel import Field, Session, SQLModel


class ViewVersion(SQLModel, table=True):
    __tablename__ = "view_version"

    scope: str = Field(sa_column=Column(String(128), primary_key=True))
    view: str = Field(sa_column=Column(String(32), primary_key=True))
    version: int = 0
    published: int = 0


def bump(session: Session, scope: str, view: str) -> None:
    """Mark `view` of `scope` as changed, in the caller's transaction."""
    row = session.get(ViewVersion, (scope, view))
    if row is None:
        session.add(ViewVersion(scope=scope, view=view, version=1))
    else:
        row.version += 1


def stale(session: Session, scope: str | None = None) -> list[tuple[str, str, int]]:
    """(scope, view, version) of every view changed since it was last published."""
    stmt = select(ViewVersion.scope, ViewVersion.view, ViewVersion.version).where(
        ViewVersion.version > ViewVersion.published
    )
    if scope is not None:
        stmt = stmt.where(ViewVersion.scope == scope)
    return [tuple(row) for row in session.execute(stmt).all()]


def mark_published(session: Session, scope: str, view: str, version: int) -> None:
    """Record that `version` of the view was published (an older mark never lowers it): one
    UPDATE, no read first; the snapshot stage marks every view of every scope it publishes."""
    session.execute(
        update(ViewVersion)
        .where(ViewVersion.scope == scope, ViewVersion.view == view, ViewVersion.published < version)
        .values(published=version)
    )
