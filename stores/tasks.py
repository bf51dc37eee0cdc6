"""Tasks: what someone asked for or committed to, open until reported done or cancelled.

A task keeps the ids of the messages that opened and closed it. `norm_title` (lower case,
words only, articles dropped) is how "never two open copies" is enforced: a scope has at most
one open task per normalised title.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from sqlalchemy import JSON, Column, Date, Index, String, Text, case, select
from sqlmodel import Field, Session, SQLModel

from stores.bounds import Bounded, cut
from stores.types import UTCDateTime

OPEN, DONE, CANCELLED = "open", "done", "cancelled"
_ARTICLES = frozenset({"a", "an", "the"})


class Task(SQLModel, table=True):
    __tablename__ = "task"
    __table_args__ = (Index("ix_task_scope_status", "scope", "status", "norm_title"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(128), nullable=False))
    title: str = Field(sa_column=Column(Text, nullable=False))
    norm_title: str = Field(sa_column=Column(Bounded(512), nullable=False))
    status: str = Field(default=OPEN, sa_column=Column(String(16), nullable=False))
    due: date | None = Field(default=None, sa_column=Column(Date))
    opened_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    closed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    opened_by: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    closed_by: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


def normalise_title(title: str) -> str:
    """'Book  the table at Luigi's!' -> 'book table at luigi s'."""
    words = re.findall(r"[0-9a-z]+", title.lower())
    return cut(" ".join(w for w in words if w not in _ARTICLES), Task.__table__.c.norm_title.type.length)


def open_tasks(session: Session, scope: str) -> list[Task]:
    stmt = select(Task).where(Task.scope == scope, Task.status == OPEN).order_by(Task.opened_at, Task.id)
    return list(session.execute(stmt).scalars())


def listed_tasks(session: Session, scope: str, closed_limit: int | None = 50) -> list[Task]:
    """Open tasks (oldest first), then closed ones, most recently closed first (capped)."""
    tasks = open_tasks(session, scope)
    stmt = (
        select(Task)
        .where(Task.scope == scope, Task.status != OPEN)
        .order_by(case((Task.closed_at.is_(None), 1), else_=0), Task.closed_at.desc(), Task.id.desc())
    )
    if closed_limit is not None:
        stmt = stmt.limit(closed_limit)
    return tasks + list(session.execute(stmt).scalars())


def task_payload(task: Task) -> dict:
    return {
        "id": task.id,
        "title": task.title,
        "status": task.status,
        "due": task.due.isoformat() if task.due else None,
        "opened_at": task.opened_at.isoformat(),
        "closed_at": task.closed_at.isoformat() if task.closed_at else None,
    }
