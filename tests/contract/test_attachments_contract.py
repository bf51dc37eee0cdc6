"""Contract: a message's attachments are stored and read back on every database, and a database
made before the column existed gains it on open, its messages and their ids unchanged."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from stores.engine import reading
from stores.migrations import create_schema
from stores.messages import NewMessage, append_messages, messages_after

RECEIVED = datetime(2025, 1, 2, tzinfo=timezone.utc)
PHOTO = json.dumps([{"kind": "image", "caption": "a kayak on a lake — früh"}], ensure_ascii=False, separators=(",", ":"))


def message(i: int, attachments: str | None = None, id: str | None = None) -> NewMessage:
    return NewMessage(scope="s", at=datetime(2025, 1, 1, 12, tzinfo=timezone.utc) + timedelta(minutes=i), role="user", speaker="Maya",
                      text="look", id=id, attachments=attachments)


def test_attachments_are_stored_on_the_bulk_path_and_read_back(engine) -> None:
    many = [message(i, PHOTO if i % 2 else None, id=str(i)) for i in range(1, 1_201)]  # two bulk chunks
    assert append_messages(engine, many, RECEIVED).added == 1_200
    with reading(engine) as session:
        got = [m.attachments for m in messages_after(session, "s", 0, 2_000)]
    assert got == [PHOTO if i % 2 else None for i in range(1, 1_201)]


def test_a_content_hash_tells_two_messages_apart_by_their_photo_alone(engine) -> None:
    result = append_messages(engine, [message(1), message(1, PHOTO), message(1, PHOTO)], RECEIVED)
    assert (result.added, result.duplicates) == (2, 1)


def test_a_database_without_the_column_gains_it_on_open(engine) -> None:
    append_messages(engine, [message(1), message(2, id="two")], RECEIVED)
    with reading(engine) as session:
        ids = [m.id for m in messages_after(session, "s", 0, 10)]
    with engine.begin() as connection:  # as an older version made it
        connection.exec_driver_sql("ALTER TABLE message DROP COLUMN attachments")
    create_schema(engine)
    create_schema(engine)  # a second open finds nothing to do
    append_messages(engine, [message(3, PHOTO), message(1)], RECEIVED)  # message 1 again: still a duplicate
    with reading(engine) as session:
        rows = messages_after(session, "s", 0, 10)
    assert [m.id for m in rows][:2] == ids and [m.attachments for m in rows] == [None, None, PHOTO]
