"""Held ladder windows: a summary call that could not be made now, and when to try it again.

A hold row names one window (scope, ladder, rung, key). The daily budget holds it until the
budget reopens; a failed model call holds it for a backoff that grows with each failed
attempt, so a window whose call keeps failing costs one call per backoff, not one per tick.
Every function works in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from stores.engine import core

from stores.schema.ladders import LadderHold


def holds(session: Session, scope: str, ladder: str) -> dict[tuple[str, str], LadderHold]:
    """Every held window of one ladder of a scope: (rung, key) -> its hold."""
    stmt = select(LadderHold).where(LadderHold.scope == scope, LadderHold.ladder == ladder)
    return {(h.rung, h.key): h for h in session.execute(stmt).scalars()}


_NEXT_TRIES = select(LadderHold.rung, LadderHold.key, LadderHold.next_at).where(
    LadderHold.scope == bindparam("scope"), LadderHold.ladder == bindparam("ladder"))


def next_tries(session: Session, scope: str, ladder: str) -> dict[tuple[str, str], datetime]:
    """Every held window of one ladder of a scope: (rung, key) -> its next try (rows, no ORM objects)."""
    return {(rung, key): at for rung, key, at in core(session, _NEXT_TRIES, {"scope": scope, "ladder": ladder}).all()}


def scope_holds(session: Session, scope: str) -> dict[str, dict[tuple[str, str], datetime]]:
    """ladder -> (rung, key) -> next try, for every held window of `scope` (one query)."""
    stmt = select(LadderHold.ladder, LadderHold.rung, LadderHold.key, LadderHold.next_at).where(LadderHold.scope == scope)
    out: dict[str, dict[tuple[str, str], datetime]] = {}
    for ladder, rung, key, next_at in session.execute(stmt).all():
        out.setdefault(ladder, {})[(rung, key)] = next_at
    return out


def _hold(session: Session, scope: str, ladder: str, rung: str, key: str, next_at: datetime) -> LadderHold:
    hold = session.get(LadderHold, (scope, ladder, rung, key))
    if hold is None:
        hold = LadderHold(scope=scope, ladder=ladder, rung=rung, key=key, next_at=next_at)
        session.add(hold)
    return hold


def hold_until(session: Session, scope: str, ladder: str, rung: str, key: str, next_at: datetime, reason: str) -> int:
    """Hold a window until `next_at` (a deferral, not a failure: attempts unchanged); returns its attempts."""
    hold = _hold(session, scope, ladder, rung, key, next_at)
    hold.next_at = next_at
    hold.reason = reason
    return hold.attempts


def hold_after_failure(
    session: Session, scope: str, ladder: str, rung: str, key: str, now: datetime, reason: str,
    delay: Callable[[int], timedelta],
) -> int:
    """Count one more failed attempt and hold the window until `now + delay(attempts)`; returns attempts."""
    hold = _hold(session, scope, ladder, rung, key, now)
    hold.attempts += 1
    hold.next_at = now + delay(hold.attempts)
    hold.reason = reason
    return hold.attempts


def release(session: Session, scope: str, ladder: str, rung: str, key: str) -> None:
    """The window was written: forget its hold (nothing happens when it has none)."""
    hold = session.get(LadderHold, (scope, ladder, rung, key))
    if hold is not None:
        session.delete(hold)


def count_holds(session: Session) -> dict[str, int]:
    """scope -> how many windows it has held."""
    stmt = select(LadderHold.scope, func.count()).group_by(LadderHold.scope)
    return dict(session.execute(stmt).all())
