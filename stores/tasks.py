"""Tasks: what someone asked for or committed to, open until reported done or cancelled.

A task keeps the ids of the messages that opened and closed it. `norm_title` (lower case,
words only, articles dropped) is how "never two open copies" is enforced: a scope has at most
one open task per normalised title.
"""

from __future__ import annotations

import re

from sqlalchemy import case, select
from sqlmodel import Session

from stores.bounds import cut
from stores.schema.memory import OPEN, Task

_ARTICLES = frozenset({"a", "an", "the"})


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
