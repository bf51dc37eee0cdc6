"""Contract: the agent's append is three statements on every database (the counter, the row, the
due mark), and what it no longer looks up is still found where it matters: an id already hot,
an archived id sent again with its time, a scope's archive reach kept by the archiver and
filled in for a database made before the column existed."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import event, select

from stores.engine import reading, transaction
from stores.messages import NewMessage, append_messages, messages_after
from stores.migrations import create_schema
from stores.schema.daemon import DueScope
from stores.schema.log import ScopeHead
from tests.support.archive_kit import archive_by_hand

T0 = datetime(2025, 1, 6, 9, tzinfo=timezone.utc)


def said(i: int, id: str | None = None, scope: str = "s") -> NewMessage:
    return NewMessage(scope=scope, at=T0 + timedelta(minutes=i), role="user", text=f"message {i}", speaker="Maya", id=id)


def statements(engine, work) -> list[str]:
    seen: list[str] = []

    def note(conn, cursor, statement, *_):
        seen.append(statement.split()[0].upper())

    event.listen(engine, "before_cursor_execute", note)
    try:
        work()
    finally:
        event.remove(engine, "before_cursor_execute", note)
    return [s for s in seen if s != "BEGIN"]


def test_an_append_to_a_known_scope_is_three_statements(engine) -> None:
    append_messages(engine, [said(1)], T0)  # the scope's counter row is made on its first append
    sent = statements(engine, lambda: append_messages(engine, [said(2)], T0))
    assert sent == ["UPDATE", "INSERT", "INSERT"]  # counter (+ archive reach), the row, the due mark
    with reading(engine) as session:
        assert [m.seq for m in messages_after(session, "s", 0, 10)] == [1, 2]


def test_an_id_already_logged_adds_nothing_leaves_no_gap_and_marks_nothing(engine) -> None:
    append_messages(engine, [said(1, id="a")], T0)
    with reading(engine) as session:
        marks = session.get(DueScope, "s").marks
    result = append_messages(engine, [said(1, id="a")], T0)
    assert (result.added, result.duplicates) == (0, 1)
    with reading(engine) as session:
        assert session.get(DueScope, "s").marks == marks  # the duplicate marked nothing
    append_messages(engine, [said(-5, id="b")], T0)  # earlier than the scope is due: a mark
    with reading(engine) as session:
        assert [m.seq for m in messages_after(session, "s", 0, 10)] == [1, 2]
        assert session.get(DueScope, "s").marks == marks + 1


def test_an_archived_id_sent_again_with_its_time_is_a_duplicate(engine) -> None:
    append_messages(engine, [said(i, id=f"m{i}") for i in range(1, 6)], T0)
    archive_by_hand(engine, "s", [f"s:m{i}" for i in (1, 2, 3)], last_at=T0 + timedelta(minutes=3))
    again = append_messages(engine, [said(2, id="m2")], T0)  # no newer than the archive's reach: looked up
    assert (again.added, again.duplicates) == (0, 1)
    fresh = append_messages(engine, [said(9, id="m9")], T0)  # newer than anything archived: no lookup
    assert fresh.added == 1
    with reading(engine) as session:
        assert [m.seq for m in messages_after(session, "s", 0, 10)] == [4, 5, 6]


def test_finishing_a_file_raises_the_scope_reach_and_never_lowers_it(engine) -> None:
    append_messages(engine, [said(i, id=f"m{i}") for i in range(1, 6)], T0)
    archive_by_hand(engine, "s", ["s:m3"], last_at=T0 + timedelta(minutes=3))
    archive_by_hand(engine, "s", ["s:m1"], last_at=T0 + timedelta(minutes=1))
    with reading(engine) as session:
        assert session.get(ScopeHead, "s").archived_through == T0 + timedelta(minutes=3)


def test_a_database_without_the_reach_column_gains_it_filled_on_open(engine) -> None:
    append_messages(engine, [said(i, id=f"m{i}") for i in range(1, 4)], T0)
    append_messages(engine, [said(1, id="x", scope="quiet")], T0)
    archive_by_hand(engine, "s", ["s:m1", "s:m2"], last_at=T0 + timedelta(minutes=2))
    with engine.begin() as connection:  # as an older version made it
        connection.exec_driver_sql("ALTER TABLE scope_head DROP COLUMN archived_through")
    create_schema(engine)
    with reading(engine) as session:
        reach = dict(session.execute(select(ScopeHead.scope, ScopeHead.archived_through)).all())
    assert reach == {"s": T0 + timedelta(minutes=2), "quiet": None}
    assert append_messages(engine, [said(1, id="m1")], T0).duplicates == 1


def test_a_counter_made_after_archiving_knows_the_reach(engine) -> None:
    """A database whose counter rows predate the column and were lost (or never made) rebuilds them
    from the log and the archive manifest."""
    append_messages(engine, [said(i, id=f"m{i}") for i in range(1, 4)], T0)
    archive_by_hand(engine, "s", ["s:m1"], last_at=T0 + timedelta(minutes=1))
    with transaction(engine) as session:
        session.execute(ScopeHead.__table__.delete())
    assert append_messages(engine, [said(1, id="m1")], T0).duplicates == 1
    assert append_messages(engine, [said(7, id="m7")], T0).added == 1
    with reading(engine) as session:
        assert session.get(ScopeHead, "s").archived_through == T0 + timedelta(minutes=1)
        assert [m.seq for m in messages_after(session, "s", 0, 10)] == [2, 3, 4]
