"""Contract: the message log's appends, whatever the database."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import update

from stores.engine import reading, transaction
from stores.messages import (
    NewMessage,
    append_messages,
    insert_new,
    lines_before,
    messages_after,
    messages_between,
    scope_heads,
)
from stores.schema.log import Message

RECEIVED = datetime(2025, 1, 2, tzinfo=timezone.utc)


def message(i: int, scope: str = "s") -> NewMessage:
    return NewMessage(id=str(i), scope=scope, at=datetime(2025, 1, 1, 12, i, tzinfo=timezone.utc), role="user",
                      speaker="Maya", text=f"message {i}", session=None)


def test_appends_number_each_scope_densely_and_skip_known_ids(engine) -> None:
    """seq is 1, 2, 3... per scope; an id already logged (or repeated) adds nothing."""
    first = append_messages(engine, [message(1), message(2), message(1, "t")], RECEIVED)
    again = append_messages(engine, [message(2), message(3), message(3)], RECEIVED)
    assert (first.added, again.added) == (3, 1)
    with reading(engine) as session:
        assert [m.seq for m in messages_after(session, "s", 0, 10)] == [1, 2, 3]
        assert [m.id for m in messages_between(session, "s", 2, 3)] == ["s:2", "s:3"]
        assert scope_heads(session) == {"s": 3, "t": 1}


def test_a_failed_transaction_leaves_nothing(engine) -> None:
    """An exception inside `transaction` rolls back every row it wrote."""
    with pytest.raises(RuntimeError):
        with transaction(engine) as session:
            insert_new(session.connection(), [message(1)], RECEIVED)
            raise RuntimeError("boom")
    with reading(engine) as session:
        assert messages_after(session, "s", 0, 10) == []


def test_times_read_back_aware_and_equal(engine) -> None:
    """An aware time goes in and the same instant comes back aware (UTC)."""
    append_messages(engine, [message(5)], RECEIVED)
    with reading(engine) as session:
        (stored,) = messages_after(session, "s", 0, 10)
    assert stored.at == datetime(2025, 1, 1, 12, 5, tzinfo=timezone.utc) and stored.at.tzinfo is not None


def test_lines_before_reads_back_within_one_interaction_and_scope(engine) -> None:
    """A batch's context lines: the last few of its first message's interaction before it, in
    order; none of another interaction or scope; none when asked for none."""
    append_messages(engine, [*(message(i) for i in range(1, 6)), message(6, "t"), message(7, "t")], RECEIVED)
    with transaction(engine) as session:
        for seq, number in ((1, 1), (2, 1), (3, 2), (4, 2), (5, 2)):
            session.execute(update(Message).where(Message.scope == "s", Message.seq == seq).values(interaction=number))
        session.execute(update(Message).where(Message.scope == "t").values(interaction=2))
    with reading(engine) as session:
        assert [m.seq for m in lines_before(session, "s", 2, 5, 2)] == [3, 4]
        assert [m.seq for m in lines_before(session, "s", 2, 5, 9)] == [3, 4]
        assert lines_before(session, "s", 2, 3, 2) == []  # seq 1 and 2 are interaction 1
        assert [m.seq for m in lines_before(session, "s", 1, 3, 5)] == [1, 2]
        assert lines_before(session, "s", 2, 5, 0) == [] and lines_before(session, "s", None, 5, 2) == []
        assert [m.id for m in lines_before(session, "t", 2, 9, 5)] == ["t:6", "t:7"]
