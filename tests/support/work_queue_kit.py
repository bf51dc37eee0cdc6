"""The work-queue tests' app on every database under test (`any_app`), messages logged a minute
apart, and a count of the SQL statements a piece of work sends."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import event, text

from consolidator.core.app import open_app
from consolidator.core.config import RetrySettings, Settings
from stores.migrations import drop_schema
from stores.messages import NewMessage, append_messages

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
MIN = timedelta(minutes=1)


def _urls() -> list[str]:
    return ["sqlite"] + os.environ.get("CONSOLIDATOR_TEST_DATABASE_URLS", "").split()


@pytest.fixture(params=_urls(), ids=lambda url: url.split(":", 1)[0].split("+", 1)[0])
def any_app(request, tmp_path):
    """An app on SQLite, and on each server database named in CONSOLIDATOR_TEST_DATABASE_URLS."""
    url = "" if request.param == "sqlite" else request.param
    made = open_app(Settings(state_dir=tmp_path / "state", database_url=url, retry=RetrySettings(max_attempts=2)))
    try:
        yield made
    finally:
        if url:
            drop_schema(made.engine)
            with made.engine.begin() as conn:
                conn.execute(text("DROP TABLE IF EXISTS test_effect"))
        made.close()


def log(app, scope: str, count: int, start: datetime = T0, received: datetime | None = None) -> datetime:
    messages = [NewMessage(scope=scope, at=start + i * MIN, role="user", text=f"{scope} {i}") for i in range(count)]
    append_messages(app.engine, messages, received or start)
    return start + (count - 1) * MIN


def count_statements(engine, work) -> int:
    """How many SQL statements `work()` sends (BEGIN/COMMIT emitted by the driver not included)."""
    seen = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith(("BEGIN", "PRAGMA")):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    try:
        work()
    finally:
        event.remove(engine, "before_cursor_execute", before)
    return len(seen)
