"""Contract: the message log's appends, whatever the database."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from stores.engine import reading, transaction
from stores.messages import NewMessage, append_messages, insert_new, messages_after, messages_between, scope_heads

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
