"""Each ladder's progress per scope: its cursors and its dirty base windows.

The cursors only say how far the ladder stage has looked (the messages that marked their
windows dirty; the announcements that woke their readers; the closed days whose higher
blocks it woke); the summaries themselves are the truth, so a cursor that lags after a
crash only makes the stage redo work it then finds done.
A dirty window is a base window (a local day unit, or an interaction number) that received
messages since it was last summarised. Every function works in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Mapping

from sqlalchemy import bindparam, case, delete, or_, select, update
from sqlmodel import Session

from stores.engine import core, dialect_insert, insert_or_skip
from stores.schema.ladders import LadderState, DirtyWindow


@dataclass(frozen=True)
class Progress:
    """A read-only copy of one ladder's state (changes go through the functions below)."""

    seen_seq: int = 0
    seen_announcement: int = 0
    first_unit: int | None = None
    through_unit: int | None = None


_STATE = LadderState.__table__
_DIRTY = DirtyWindow.__table__
_READ = select(_STATE.c.seen_seq, _STATE.c.seen_announcement, _STATE.c.first_unit, _STATE.c.through_unit)
# The per-tick reads, built once with their values as parameters (building a statement costs more than running it).
_SCOPE_PROGRESS = _READ.add_columns(_STATE.c.ladder).where(_STATE.c.scope == bindparam("scope"))
_PROGRESS = _READ.where(_STATE.c.scope == bindparam("scope"), _STATE.c.ladder == bindparam("ladder"))
_SCOPE_DIRTY = select(_DIRTY.c.ladder, _DIRTY.c.unit, _DIRTY.c.last_at).where(_DIRTY.c.scope == bindparam("scope"))
_DIRTY_OF = select(_DIRTY.c.unit, _DIRTY.c.last_at).where(_DIRTY.c.scope == bindparam("scope"),
                                                          _DIRTY.c.ladder == bindparam("ladder"))

_CLEAR = delete(_DIRTY).where(_DIRTY.c.scope == bindparam("scope"), _DIRTY.c.ladder == bindparam("ladder"),
                              _DIRTY.c.unit.in_(bindparam("units", expanding=True)))


def progress(session: Session, scope: str, ladder: str) -> Progress | None:
    """The ladder's state, or None when the stage has never looked at this scope's ladder."""
    row = core(session, _PROGRESS, {"scope": scope, "ladder": ladder}).first()
    return Progress(*row) if row is not None else None


def scope_progress(session: Session, scope: str) -> dict[str, Progress]:
    """ladder -> its state, for every ladder of `scope` the stage has looked at (one query)."""
    rows = core(session, _SCOPE_PROGRESS, {"scope": scope}).all()
    return {row[-1]: Progress(*row[:-1]) for row in rows}


def start_progress(session: Session, scope: str, ladder: str) -> Progress:
    """The ladder's state, recorded (all cursors at zero) if it was not yet."""
    state = progress(session, scope, ladder)
    if state is None:
        core(session, insert_or_skip(_STATE, session.get_bind().dialect).values(scope=scope, ladder=ladder))
        state = progress(session, scope, ladder)
    return state


def _set(session: Session, scope: str, ladder: str, stmt, **values) -> None:
    """One UPDATE of the ladder's state row (recorded first if it was not yet), `stmt` one of the
    setters below with its `values`: Core statements, each in the caller's transaction, so a
    cursor moves with the writes it stands for (past the ORM's execution layer: no ORM object of
    these tables is ever pending in a session)."""
    parameters = {"b_scope": scope, "b_ladder": ladder} | {f"v_{name}": value for name, value in values.items()}
    if core(session, stmt, parameters).rowcount == 0:
        start_progress(session, scope, ladder)
        core(session, stmt, parameters)


def _setter(*columns: str, raise_only: bool = False):
    """The UPDATE of `columns` of one ladder's state row, each from the parameter v_<column>,
    built once; `raise_only`: a cursor that never goes back (a NULL one is set)."""
    values = {}
    for name in columns:
        column, value = _STATE.c[name], bindparam(f"v_{name}", type_=_STATE.c[name].type)
        values[name] = case((or_(column.is_(None), column < value), value), else_=column) if raise_only else value
    return update(_STATE).where(_STATE.c.scope == bindparam("b_scope"), _STATE.c.ladder == bindparam("b_ladder")).values(values)


_SET_SEEN_SEQ = _setter("seen_seq")
_SET_ANNOUNCEMENT = _setter("seen_announcement")
_RAISE_ANNOUNCEMENT = _setter("seen_announcement", raise_only=True)
_SET_DAYS = _setter("first_unit", "through_unit")
_RAISE_THROUGH = _setter("through_unit", raise_only=True)


def advance_seen_seq(session: Session, scope: str, ladder: str, seq: int) -> None:
    """Messages up to `seq` have marked their windows dirty."""
    _set(session, scope, ladder, _SET_SEEN_SEQ, seen_seq=seq)


def advance_seen_announcement(session: Session, scope: str, ladder: str, announcement_id: int) -> None:
    """Announcements up to `announcement_id` have woken their readers (the cursor never goes back)."""
    _set(session, scope, ladder, _RAISE_ANNOUNCEMENT, seen_announcement=announcement_id)


def rewind_announcements(session: Session, scope: str, ladder: str) -> None:
    """Every announcement wakes its readers again (a rebuild: up-to-date blocks then skip for free)."""
    _set(session, scope, ladder, _SET_ANNOUNCEMENT, seen_announcement=0)


def set_announced_days(session: Session, scope: str, ladder: str, first: int | None, through: int | None) -> None:
    """Set both day cursors (first_unit, through_unit) as they are."""
    _set(session, scope, ladder, _SET_DAYS, first_unit=first, through_unit=through)


def wake_through(session: Session, scope: str, ladder: str, unit: int) -> None:
    """The blocks that close on days up to `unit` have been woken (the cursor never goes back)."""
    _set(session, scope, ladder, _RAISE_THROUGH, through_unit=unit)


def mark_dirty(session: Session, scope: str, ladder: str, units: Mapping[int, datetime]) -> None:
    """Mark base windows dirty; `units` maps each to its newest message time (kept at the max):
    one upsert for all of them."""
    if not units:
        return
    core(session, _mark_statement(session.get_bind().dialect),
         [{"scope": scope, "ladder": ladder, "unit": unit, "last_at": at} for unit, at in units.items()])


@lru_cache(maxsize=4)
def _mark_statement(dialect):
    """mark_dirty's upsert, built once per dialect."""
    stmt = dialect_insert(_DIRTY, dialect)
    last_at = _DIRTY.c.last_at
    return stmt.on_conflict_do_update(
        index_elements=[_DIRTY.c.scope, _DIRTY.c.ladder, _DIRTY.c.unit],
        set_={"last_at": case((stmt.excluded.last_at > last_at, stmt.excluded.last_at), else_=last_at)},
    )


def dirty_windows(session: Session, scope: str, ladder: str) -> dict[int, datetime]:
    """Every dirty base window of the ladder: unit -> its newest message time."""
    return dict(core(session, _DIRTY_OF, {"scope": scope, "ladder": ladder}).all())


def scope_dirty_windows(session: Session, scope: str) -> dict[str, dict[int, datetime]]:
    """ladder -> its dirty base windows (unit -> newest message time), every ladder of `scope` in one query."""
    out: dict[str, dict[int, datetime]] = {}
    for ladder, unit, last_at in core(session, _SCOPE_DIRTY, {"scope": scope}).all():
        out.setdefault(ladder, {})[unit] = last_at
    return out


def clear_dirty(session: Session, scope: str, ladder: str, unit: int | Iterable[int]) -> None:
    """The base window (or windows: one statement for all) has been summarised from everything it holds."""
    units = [unit] if isinstance(unit, int) else sorted(set(unit))
    if not units:
        return
    core(session, _CLEAR, {"scope": scope, "ladder": ladder, "units": units})  # a table DELETE: no ORM session sync