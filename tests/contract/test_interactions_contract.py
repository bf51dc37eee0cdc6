"""Contract: the interactions store (placing messages with a caller's rule, nearby lookups), whatever the database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from stores.engine import reading, transaction
from stores.schema.log import Interaction, Message
from stores.interactions import assign_next, interaction_count, last_times, max_number, nearby
from stores.message_windows import arrivals_after
from stores.messages import NewMessage, append_messages
from stores.ledger import scope_cursors

T0 = datetime(2025, 6, 1, 9, 0, tzinfo=timezone.utc)
GAP = timedelta(minutes=30)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


@dataclass
class Span:
    session: str | None
    first_at: datetime
    last_at: datetime
    message_count: int
    max_seq: int


def one_per_call(calls: list):
    """A place rule: the whole call's messages join one new interaction after the newest; records its inputs."""
    def place(new, near, newest):
        calls.append(([m.seq for m in new], sorted(r.number for r in near), newest))
        number = newest + 1
        span = Span(None, min(m.at for m in new), max(m.at for m in new), len(new), max(m.seq for m in new))
        return {m.id: number for m in new}, {number: span}
    return place


def log(engine, *minutes: float, scope: str = "s", session: str | None = None, start: int = 0) -> None:
    messages = [NewMessage(scope, at(m), "user", f"said at {m}", session=session, id=f"{scope}-{start + i}")
                for i, m in enumerate(minutes)]
    append_messages(engine, messages, T0)


def test_assign_next_places_up_to_limit_and_moves_the_cursor(engine) -> None:
    """Each call hands `place` the next `limit` unassigned messages and the newest number; None once nothing is left."""
    log(engine, 0, 1, 2, 3, 4)
    calls: list = []
    place = one_per_call(calls)
    assert assign_next(engine, "s", 2, GAP, place) == [1]
    assert assign_next(engine, "s", 2, GAP, place) == [2]
    assert assign_next(engine, "s", 2, GAP, place) == [3]
    assert assign_next(engine, "s", 2, GAP, place) is None
    assert [(seqs, newest) for seqs, _, newest in calls] == [([1, 2], 0), ([3, 4], 1), ([5], 2)]
    with reading(engine) as session:
        assert [(a.seq, a.interaction) for a in arrivals_after(session, "s", 0)] == [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3)]
        assert scope_cursors(session)["s"].assigned_seq == 5
        assert max_number(session, "s") == 3 and max_number(session, "t") == 0


def test_each_message_gets_the_interaction_its_rule_gave_runs_and_interleavings_alike(engine) -> None:
    """Runs of consecutive messages in one interaction are set together; interleaved ones, a lone
    message and one the rule leaves out (not placed) each keep exactly what the rule said."""
    log(engine, 0, 1, 2, 3, 4, 5, 6, 7, 8)
    log(engine, 0, 1, scope="t")  # another scope's messages, same seqs: untouched
    given = {f"s:s-{i}": n for i, n in ((0, 1), (1, 1), (2, 2), (3, 1), (4, 2), (5, 2), (6, 2), (8, 2))}  # 7 left out

    def rule(new, near, newest):
        spans = {n: Span(None, at(0), at(8), 1, 9) for n in set(given.values())}
        return {m.id: given[m.id] for m in new if m.id in given}, spans

    assign_next(engine, "s", 20, GAP, rule)
    with reading(engine) as session:
        placed = dict(session.execute(select(Message.id, Message.interaction)).all())
    assert placed == {**given, "s:s-7": None, "t:t-0": None, "t:t-1": None}


def test_an_existing_interaction_is_updated_not_duplicated(engine) -> None:
    """A touched number that already exists among the nearby rows has its span replaced, not a second row added."""
    log(engine, 0, 5)

    def into_first(new, near, newest):
        rows = {r.number: r for r in near}
        first = rows.get(1)
        start = first.first_at if first else min(m.at for m in new)
        count = (first.message_count if first else 0) + len(new)
        return {m.id: 1 for m in new}, {1: Span(None, start, max(m.at for m in new), count, max(m.seq for m in new))}

    assign_next(engine, "s", 10, GAP, into_first)
    log(engine, 20, start=2)
    assert assign_next(engine, "s", 10, GAP, into_first) == [1]
    with reading(engine) as session:
        assert interaction_count(session, "s") == 1
        (row,) = nearby(session, "s", set(), at(0), at(20), GAP)
    assert (row.first_at, row.last_at, row.message_count, row.max_seq) == (at(0), at(20), 3, 3)


def test_nearby_finds_same_session_or_sessionless_within_the_gap(engine) -> None:
    """nearby: rows of the scope with one of the session keys, or without a session and within gap of [lo, hi]."""
    with transaction(engine) as session:
        for number, key, first, last, scope in (
            (1, None, 0, 10, "s"),  # ends 50 minutes before lo: too far
            (2, None, 40, 45, "s"),  # ends 15 minutes before lo: near
            (3, None, 100, 130, "s"),  # starts 30 minutes after hi: exactly at the gap, near
            (4, None, 131, 140, "s"),  # starts 31 minutes after hi: too far
            (5, "chat-9", 0, 1, "s"),  # far in time but the same session
            (6, "chat-8", 60, 61, "s"),  # inside the range but another session
            (7, None, 60, 61, "t"),  # another scope
        ):
            session.add(Interaction(scope=scope, number=number, session=key, first_at=at(first), last_at=at(last),
                                    message_count=1, max_seq=number))
    with reading(engine) as session:
        assert sorted(r.number for r in nearby(session, "s", {"chat-9"}, at(60), at(70), GAP)) == [2, 3, 5]
        assert sorted(r.number for r in nearby(session, "s", set(), at(60), at(70), GAP)) == [2, 3]
        assert [r.number for r in nearby(session, "t", {"chat-9"}, at(60), at(70), GAP)] == [7]


def test_place_sees_nearby_rows_of_the_new_messages_sessions(engine) -> None:
    """assign_next passes `place` the nearby interactions computed from the new messages' times and sessions."""
    calls: list = []
    place = one_per_call(calls)
    log(engine, 0)
    assign_next(engine, "s", 10, GAP, place)  # interaction 1, sessionless at minute 0
    log(engine, 20, start=1)
    assign_next(engine, "s", 10, GAP, place)  # sees 1 (within the gap)
    log(engine, 500, start=2)
    assign_next(engine, "s", 10, GAP, place)  # too far from 1 and 2
    assert [near for _, near, _ in calls] == [[], [1], []]


def test_counts_and_last_times_per_scope(engine) -> None:
    """interaction_count counts one scope or all; last_times only lists numbers that exist."""
    log(engine, 0, 1, 2)
    log(engine, 7, scope="t")
    assign_next(engine, "s", 1, GAP, one_per_call([]))
    assign_next(engine, "s", 2, GAP, one_per_call([]))
    assign_next(engine, "t", 5, GAP, one_per_call([]))
    with reading(engine) as session:
        assert (interaction_count(session, "s"), interaction_count(session, "t"), interaction_count(session)) == (2, 1, 3)
        assert last_times(session, "s", [1, 2, 9]) == {1: at(0), 2: at(2)}
        assert last_times(session, "t", [1]) == {1: at(7)}
