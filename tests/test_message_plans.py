"""Query plans of the window reads: the ladders' per-window reads must not scan a scope's history."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from sqlalchemy import event

from consolidator.core.app import open_app
from stores.engine import database_path, reading
from stores.message_windows import messages_in_time_window, messages_of_interaction, messages_of_interactions
from stores.schema.log import Message
from stores.messages import NewMessage, append_messages

START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def seeded(app, interactions: int = 30, per: int = 20) -> None:
    """A scope with `interactions` interactions of `per` messages each (numbers assigned as the daemon does)."""
    rows = [NewMessage("s", START + timedelta(hours=i, minutes=k), "user", f"m {i} {k}", id=f"{i}-{k}")
            for i in range(interactions) for k in range(per)]
    append_messages(app.engine, rows, START)
    with app.engine.begin() as connection:
        connection.execute(Message.__table__.update().values(interaction=(Message.__table__.c.seq - 1) // per + 1))


def plan_of(app, read) -> str:
    """The EXPLAIN QUERY PLAN of the one statement `read(session)` sends, with its own parameters."""
    sent: list[tuple[str, tuple]] = []

    def capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append((statement, parameters))

    event.listen(app.engine, "before_cursor_execute", capture)
    try:
        with reading(app.engine) as session:
            read(session)
    finally:
        event.remove(app.engine, "before_cursor_execute", capture)
    (statement, parameters), = sent
    with app.engine.connect() as connection:
        rows = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters).all()
    return " | ".join(row[-1] for row in rows)


def test_an_interactions_messages_are_read_through_the_interaction_index(app) -> None:
    """The count ladder's base read seeks (scope, interaction, seq), never the (scope, seq) range."""
    seeded(app)
    plan = plan_of(app, lambda session: messages_of_interaction(session, "s", 600, 7))
    assert "ix_message_scope_interaction_seq (scope=? AND interaction=? AND seq<?)" in plan
    assert "ix_message_scope_seq" not in plan


def test_a_run_of_interactions_is_one_range_seek_of_the_interaction_index(app) -> None:
    """The batched count-ladder read seeks (scope, interaction) over the run's range, and groups what it reads."""
    seeded(app)
    plan = plan_of(app, lambda session: messages_of_interactions(session, "s", 600, 7, 9))
    assert "ix_message_scope_interaction_seq (scope=? AND interaction>? AND interaction<?)" in plan
    assert "ix_message_scope_seq" not in plan
    with reading(app.engine) as session:
        got = messages_of_interactions(session, "s", 600, 7, 9)
    assert sorted(got) == [7, 8, 9] and all(len(ms) == 20 and {m.interaction for m in ms} == {n} for n, ms in got.items())


def test_a_days_messages_are_read_through_the_time_index(app) -> None:
    """The time ladder's base read seeks (scope, at) between the window's bounds."""
    seeded(app)
    plan = plan_of(app, lambda session: messages_in_time_window(session, "s", 600, START, START + timedelta(days=1)))
    assert "ix_message_scope_at (scope=? AND at>? AND at<?)" in plan


def test_an_older_database_gets_the_new_index_and_loses_the_retired_one(settings) -> None:
    """Opening a database made with the old (scope, interaction) index replaces it."""
    app = open_app(settings)
    path = database_path(settings.db_url)
    app.close()
    with sqlite3.connect(path) as connection:
        connection.execute("DROP INDEX ix_message_scope_interaction_seq")
        connection.execute("CREATE INDEX ix_message_scope_interaction ON message (scope, interaction)")
    reopened = open_app(settings)
    reopened.close()
    with sqlite3.connect(path) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "ix_message_scope_interaction_seq" in names and "ix_message_scope_interaction" not in names
