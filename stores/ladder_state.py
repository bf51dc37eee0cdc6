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
from typing import Mapping

from sqlalchemy import delete, select
from sqlmodel import Session

from stores.schema.ladders import LadderState, DirtyWindow

_IN_CHUNK = 5_000  # bound parameters per IN list (SQLite allows 32,766; PostgreSQL 65,535)


@dataclass(frozen=True)
class Progress:
    """A read-only copy of one ladder's state (changes go through the functions below)."""

    seen_seq: int = 0
    seen_announcement: int = 0
    first_unit: int | None = None
    through_unit: int | None = None


def _copy(row: LadderState) -> Progress:
    return Progress(row.seen_seq, row.seen_announcement, row.first_unit, row.through_unit)


def _row(session: Session, scope: str, ladder: str) -> LadderState:
    """The state row, created (all cursors at zero) when the ladder has none yet.

    Kept in `session.info` for the transaction: the session's identity map holds unchanged
    rows only weakly, so a second call would otherwise read the row again.
    """
    rows = session.info.setdefault("ladder_state", {})
    row = rows.get((scope, ladder))
    if row is None:
        row = session.get(LadderState, (scope, ladder))
        if row is None:
            row = LadderState(scope=scope, ladder=ladder)
            session.add(row)
        rows[(scope, ladder)] = row
    return row


def progress(session: Session, scope: str, ladder: str) -> Progress | None:
    """The ladder's state, or None when the stage has never looked at this scope's ladder."""
    row = session.get(LadderState, (scope, ladder))
    return _copy(row) if row is not None else None


def scope_progress(session: Session, scope: str) -> dict[str, Progress]:
    """ladder -> its state, for every ladder of `scope` the stage has looked at (one query)."""
    stmt = select(LadderState).where(LadderState.scope == scope)
    return {row.ladder: _copy(row) for row in session.execute(stmt).scalars()}


def start_progress(session: Session, scope: str, ladder: str) -> Progress:
    """The ladder's state, recorded (all cursors at zero) if it was not yet."""
    return _copy(_row(session, scope, ladder))


def advance_seen_seq(session: Session, scope: str, ladder: str, seq: int) -> None:
    """Messages up to `seq` have marked their windows dirty."""
    _row(session, scope, ladder).seen_seq = seq


def advance_seen_announcement(session: Session, scope: str, ladder: str, announcement_id: int) -> None:
    """Announcements up to `announcement_id` have woken their readers (the cursor never goes back)."""
    row = _row(session, scope, ladder)
    row.seen_announcement = max(row.seen_announcement, announcement_id)


def rewind_announcements(session: Session, scope: str, ladder: str) -> None:
    """Every announcement wakes its readers again (a rebuild: up-to-date blocks then skip for free)."""
    _row(session, scope, ladder).seen_announcement = 0


def set_announced_days(session: Session, scope: str, ladder: str, first: int | None, through: int | None) -> None:
    """Set both day cursors (first_unit, through_unit) as they are."""
    row = _row(session, scope, ladder)
    row.first_unit, row.through_unit = first, through


def wake_through(session: Session, scope: str, ladder: str, unit: int) -> None:
    """The blocks that close on days up to `unit` have been woken (the cursor never goes back)."""
    row = _row(session, scope, ladder)
    row.through_unit = unit if row.through_unit is None else max(row.through_unit, unit)


def mark_dirty(session: Session, scope: str, ladder: str, units: Mapping[int, datetime]) -> None:
    """Mark base windows dirty; `units` maps each to its newest message time (kept at the max)."""
    if not units:
        return
    wanted = list(units)
    existing: dict[int, DirtyWindow] = {}
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        stmt = select(DirtyWindow).where(
            DirtyWindow.scope == scope, DirtyWindow.ladder == ladder, DirtyWindow.unit.in_(chunk)
        )
        existing.update((row.unit, row) for row in session.execute(stmt).scalars())
    for unit, last_at in units.items():
        row = existing.get(unit)
        if row is None:
            session.add(DirtyWindow(scope=scope, ladder=ladder, unit=unit, last_at=last_at))
        else:
            row.last_at = max(row.last_at, last_at)


def dirty_windows(session: Session, scope: str, ladder: str) -> dict[int, datetime]:
    """Every dirty base window of the ladder: unit -> its newest message time."""
    stmt = select(DirtyWindow.unit, DirtyWindow.last_at).where(DirtyWindow.scope == scope, DirtyWindow.ladder == ladder)
    return dict(session.execute(stmt).all())


def scope_dirty_windows(session: Session, scope: str) -> dict[str, dict[int, datetime]]:
    """ladder -> its dirty base windows (unit -> newest message time), every ladder of `scope` in one query."""
    stmt = select(DirtyWindow.ladder, DirtyWindow.unit, DirtyWindow.last_at).where(DirtyWindow.scope == scope)
    out: dict[str, dict[int, datetime]] = {}
    for ladder, unit, last_at in session.execute(stmt).all():
        out.setdefault(ladder, {})[unit] = last_at
    return out


def clear_dirty(session: Session, scope: str, ladder: str, unit: int | Iterable[int]) -> None:
    """The base window (or windows: one statement for all) has been summarised from everything it holds."""
    units = [unit] if isinstance(unit, int) else sorted(set(unit))
    if not units:
        return
    session.execute(
        delete(DirtyWindow).where(DirtyWindow.scope == scope, DirtyWindow.ladder == ladder, DirtyWindow.unit.in_(units))
    )