"""Read-only overviews of a scope's ladders, for the `report` and `timeline` commands.

Kept apart from stores/summaries.py (which the ladder stage owns): these queries only
count and list what the stage wrote; they never decide anything.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlmodel import Session

from stores.ladder_state import DirtyWindow
from stores.summaries import Summary


def written_windows(session: Session, scope: str) -> dict[tuple[str, str], int]:
    """(ladder, rung) -> how many windows have a summary with something in it (any version;
    a silent window announced empty is not counted)."""
    stmt = (
        select(Summary.ladder, Summary.rung, func.count(func.distinct(Summary.key)))
        .where(Summary.scope == scope, Summary.kind != "empty")
        .group_by(Summary.ladder, Summary.rung)
    )
    return {(ladder, rung): count for ladder, rung, count in session.execute(stmt).all()}


def dirty_units(session: Session, scope: str, ladder: str) -> list[int]:
    """The base units (day units or interaction units) that received messages since their
    summary was written: their base window is waiting to be written again."""
    stmt = select(DirtyWindow.unit).where(DirtyWindow.scope == scope, DirtyWindow.ladder == ladder).order_by(DirtyWindow.unit)
    return list(session.execute(stmt).scalars())
