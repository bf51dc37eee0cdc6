"""Which interaction a message belongs to, and when an interaction is complete.

Pure policy, no database: the daemon loads the interactions a batch of new messages could
join, calls `InteractionPlacer.place` for each message in arrival order, and stores the
result. Rules:
- messages with the same `session` form one interaction;
- a message without a session joins the sessionless interaction whose time span, widened
  by `gap` on both sides, contains its time (the nearest, then the newest, if several);
  otherwise it starts a new one;
- new interactions are numbered after the newest, in arrival order, so a late message
  never renumbers older interactions (it joins one, or becomes the newest).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Span:
    number: int
    session: str | None
    first_at: datetime
    last_at: datetime
    message_count: int = 0
    max_seq: int = 0

    def with_message(self, at: datetime, seq: int) -> "Span":
        return replace(
            self,
            first_at=min(self.first_at, at),
            last_at=max(self.last_at, at),
            message_count=self.message_count + 1,
            max_seq=max(self.max_seq, seq),
        )

    def distance(self, at: datetime) -> timedelta:
        if at < self.first_at:
            return self.first_at - at
        if at > self.last_at:
            return at - self.last_at
        return timedelta(0)


class InteractionPlacer:
    """Assigns messages to interactions; `touched` lists the spans that changed."""

    def __init__(self, known: list[Span], newest_number: int, gap: timedelta) -> None:
        self._by_number = {span.number: span for span in known}
        self._newest = max([newest_number, *self._by_number])
        self._gap = gap
        self.touched: dict[int, Span] = {}

    def place(self, at: datetime, session: str | None, seq: int) -> int:
        span = self._find(at, session)
        if span is None:
            self._newest += 1
            span = Span(self._newest, session, at, at)
        span = span.with_message(at, seq)
        self._by_number[span.number] = span
        self.touched[span.number] = span
        return span.number

    def _find(self, at: datetime, session: str | None) -> Span | None:
        if session is not None:
            matches = [s for s in self._by_number.values() if s.session == session]
            return max(matches, key=lambda s: s.number) if matches else None
        near = [s for s in self._by_number.values() if s.session is None and s.distance(at) <= self._gap]
        if not near:
            return None
        return min(near, key=lambda s: (s.distance(at), -s.number))


def interaction_complete(number: int, last_at: datetime, newest_number: int, gap: timedelta, now: datetime) -> bool:
    """Complete once a newer interaction started in the scope, or `gap` passed since its last message."""
    return number < newest_number or now >= last_at + gap
