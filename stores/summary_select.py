"""Which hot summaries may move to the archive: old windows that every normal-course reader is done with.

A window's rows (all its versions at once, so a window is either wholly cold or has its newest
version hot) may go when, in its scope and ladder:
- its rung is not the top one (the top rung holds a handful of rows a year);
- its window ended before the cutoff (time: the message archive's cutoff, itself before the
  first dirty day; count: all its interactions ended before it and none is dirty);
- a window of the rung above with content starts after it ends (the rung above has moved past
  it), and a window of its own rung with content starts after it ends (so the newest window with content
  of every rung, which snapshots and context.md show, and the interactions no block above
  holds yet, which context.md lists, stay hot whatever their age: a scope that fell silent
  keeps them).
The ladders read old windows only when late data or a closing block above needs them, through
the one history reader (stores/history.py), which adds the archived rows.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, exists, func, select
from sqlalchemy.orm import aliased
from sqlmodel import Session

from stores.schema.log import Interaction
from stores.schema.ladders import Summary


def count_bound(session: Session, scope: str, cutoff: datetime, first_dirty: int | None) -> int | None:
    """The lowest interaction number that may still change or is recent: count windows that end
    below it may go (None: no bound, every interaction ended before the cutoff and none is dirty)."""
    recent = session.execute(select(func.min(Interaction.number)).where(
        Interaction.scope == scope, Interaction.last_at >= cutoff)).scalar_one()
    bounds = [b for b in (recent, first_dirty) if b is not None]
    return min(bounds) if bounds else None


def archivable_summaries(session: Session, scope: str, ladder: str, rung: str, above: str, *,
                         cutoff: datetime | None = None, below_number: int | None = None,
                         limit: int = 20_000) -> list[Summary]:
    """Up to `limit` rows (every version of each window) of `rung` that may move (module docstring)."""
    later = aliased(Summary)
    parent = aliased(Summary)
    stmt = select(Summary).where(Summary.scope == scope, Summary.ladder == ladder, Summary.rung == rung)
    if ladder == "time":
        stmt = stmt.where(Summary.window_end <= cutoff)
        after_it = lambda alias: alias.window_start >= Summary.window_end  # noqa: E731
    else:
        if below_number is not None:
            stmt = stmt.where(Summary.last_number < below_number)
        after_it = lambda alias: alias.first_number > Summary.last_number  # noqa: E731
    same = and_(Summary.scope == scope, Summary.ladder == ladder)
    stmt = stmt.where(
        exists().where(same, parent.scope == scope, parent.ladder == ladder, parent.rung == above, parent.kind != "empty",
                       after_it(parent)),
        exists().where(same, later.scope == scope, later.ladder == ladder, later.rung == rung, later.kind != "empty",
                       after_it(later)),
    )
    rows = list(session.execute(stmt.order_by(Summary.key, Summary.version).limit(limit)).scalars())
    if len(rows) == limit:  # the last window may be cut: it goes whole in the next pass
        rows = [r for r in rows if r.key != rows[-1].key] or rows
    return rows


def scopes_with_old_summaries(session: Session, cutoff: datetime) -> list[str]:
    """The scopes holding a hot time-ladder summary of a window that started before `cutoff`
    (one grouped statement over the (scope, ladder, rung, window_start) index); their count
    ladders age alongside."""
    stmt = (select(Summary.scope).where(Summary.ladder == "time").group_by(Summary.scope)
            .having(func.min(Summary.window_start) < cutoff).order_by(Summary.scope))
    return list(session.execute(stmt).scalars())
