"""The append's statements on SQLite's own cursor (stores/prepared.py): the same rows as through
SQLAlchemy, the same exceptions (the project's StorageError where the storage is at fault, else
SQLAlchemy's wrapper), and nothing of a failed append kept."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy.exc
from sqlalchemy import event

from stores.engine import make_engine
from stores.errors import StorageFull
from stores.messages import NewMessage, append_messages
from stores.migrations import create_schema
from stores.prepared import send

T0 = datetime(2025, 3, 2, 9, 30, tzinfo=timezone(timedelta(hours=2)))


def said(i: int, scope: str = "s", text: str | None = None, id: str | None = None) -> NewMessage:
    return NewMessage(scope=scope, at=T0 + timedelta(minutes=i), role="user", text=text or f"message {i}",
                      speaker="Iris", session=f"s{i // 3}", id=id)


def fresh(path: Path):
    engine = make_engine(f"sqlite:///{path}")
    create_schema(engine)
    return engine


def dump(engine) -> dict[str, list[tuple]]:
    with engine.connect() as connection:
        return {table: [tuple(row) for row in connection.exec_driver_sql(f"SELECT * FROM {table} ORDER BY 1, 2")]
                for table in ("message", "scope_head", "due_scope")}


def appends(engine) -> None:
    received = datetime(2025, 3, 3, tzinfo=timezone.utc)
    for i in range(6):
        append_messages(engine, [said(i, scope="s" if i % 2 else "t")], received + timedelta(seconds=i))
    append_messages(engine, [said(2, scope="t")], received)  # a duplicate: its seq given back
    append_messages(engine, [said(-30, id="early")], received)  # earlier than the scope is due
    append_messages(engine, [said(9), said(10, scope="u")], received)  # two at once (the import's path)


def test_the_driver_path_leaves_the_same_rows_as_sqlalchemys(tmp_path) -> None:
    direct, watched = fresh(tmp_path / "direct.db"), fresh(tmp_path / "watched.db")
    sent: list[str] = []
    event.listen(watched, "before_cursor_execute", lambda conn, cursor, sql, *_: sent.append(sql))  # SQLAlchemy's path
    appends(direct)
    appends(watched)
    assert dump(direct) == dump(watched)
    assert any(sql.startswith("UPDATE scope_head") for sql in sent)  # the watched one did go through SQLAlchemy
    assert sorted(row[2] for row in dump(direct)["message"] if row[1] == "s") == [1, 2, 3, 4, 5]  # dense seqs


def test_a_driver_error_is_sqlalchemys_and_rolls_the_whole_append_back(tmp_path) -> None:
    engine = fresh(tmp_path / "c.db")
    append_messages(engine, [said(1)], T0)
    before = dump(engine)
    with pytest.raises(sqlalchemy.exc.IntegrityError) as caught:
        with engine.begin() as connection:
            send(connection, "UPDATE scope_head SET last_seq = last_seq + 1 WHERE scope = ?", ("s",))
            send(connection, "INSERT INTO scope_head (scope, last_seq) VALUES (?, ?)", ("s", 7))  # the key again
    assert "scope_head" in str(caught.value) and caught.value.orig is not None
    assert dump(engine) == before


def test_a_full_database_on_the_driver_path_is_storage_full_naming_the_file(tmp_path) -> None:
    path = tmp_path / "full.db"
    engine = fresh(path)
    append_messages(engine, [said(1)], T0)
    before = dump(engine)

    @event.listens_for(engine, "connect")
    def _cap(dbapi_connection, _record) -> None:  # the database may not grow past its current size
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    engine.dispose()  # the next connection is capped
    with pytest.raises(StorageFull) as caught:
        append_messages(engine, [said(2, text="long " * 40_000)], T0)
    assert caught.value.where == str(path.absolute())
    assert dump(engine) == before


def test_outside_a_transaction_the_statement_goes_through_sqlalchemy(tmp_path) -> None:
    engine = fresh(tmp_path / "o.db")
    with engine.connect() as connection:
        rows, _ = send(connection, "SELECT count(*) FROM message", ())
        assert rows == [(0,)] and connection.in_transaction()  # begun by SQLAlchemy, as any statement
