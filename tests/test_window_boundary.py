"""A message at exactly a window's boundary belongs to the window that starts there.

Times are stored in one fixed-width form whatever path wrote them (the bulk import, an
append), so local midnight compares equal to the day's start, on SQLite as on a server.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from consolidator.ladders.stage import LadderStage
from consolidator.messages.ingest import import_stream
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import ScopeSettings, Settings
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary
from tests.support.fakes import CountingModel

PARIS = ZoneInfo("Europe/Paris")
MIDNIGHT = datetime(2025, 3, 4, 0, 0, tzinfo=PARIS)  # 2025-03-03 23:00 UTC
NOON_BEFORE = datetime(2025, 3, 3, 12, 0, tzinfo=PARIS)


def _drain(app) -> dict[str, str]:
    """Tick well after the last day closed; the newest text of every day summary by its label."""
    Consolidator(app, [], [LadderStage(app, CountingModel())]).tick(datetime(2025, 3, 7, 12, 0, tzinfo=timezone.utc))
    with reading(app.engine) as session:
        rows = session.execute(select(Summary).where(Summary.ladder == "time", Summary.rung == "day")).scalars()
        return {row.label.split()[0]: row.text for row in rows}


@pytest.fixture
def app(tmp_path):
    opened = open_app(Settings(state_dir=tmp_path / "state", scopes={"paris": ScopeSettings(timezone="Europe/Paris")}))
    yield opened
    opened.close()


def _day_of(days: dict[str, str], text: str) -> list[str]:
    return sorted(label for label, summary in days.items() if text in summary)


def test_midnight_through_the_import_path_opens_the_new_day(app) -> None:
    """An imported message at local midnight is read by that day's summary, not the day before."""
    lines = [json.dumps({"scope": "paris", "role": "user", "text": text, "at": at.isoformat()})
             for text, at in (("noon before", NOON_BEFORE), ("exactly midnight", MIDNIGHT))]
    import_stream(app.engine, lines, "boundary.jsonl", MIDNIGHT)
    model = _drain(app)
    assert _day_of(model, "exactly midnight") == ["2025-03-04"]
    assert _day_of(model, "noon before") == ["2025-03-03"]


def test_midnight_through_append_opens_the_new_day(app) -> None:
    """An appended message at local midnight is read by that day's summary, not the day before."""
    append_messages(app.engine, [NewMessage("paris", NOON_BEFORE, "user", "noon before"),
                                 NewMessage("paris", MIDNIGHT, "user", "exactly midnight")], MIDNIGHT)
    model = _drain(app)
    assert _day_of(model, "exactly midnight") == ["2025-03-04"]


def test_every_write_path_stores_one_form(app, tmp_path) -> None:
    """Imported and appended times are stored as the same fixed-width text (no mixed forms)."""
    import_stream(app.engine, [json.dumps({"scope": "paris", "role": "user", "text": "a", "at": MIDNIGHT.isoformat()})],
                  "a.jsonl", MIDNIGHT)
    append_messages(app.engine, [NewMessage("paris", NOON_BEFORE, "user", "b")], MIDNIGHT)
    raw = sqlite3.connect(tmp_path / "state" / "consolidator.db").execute("SELECT at, received_at FROM message").fetchall()
    assert {len(value) for row in raw for value in row} == {len("2025-03-03 23:00:00.000000")}


def test_an_old_database_is_upgraded_once(tmp_path) -> None:
    """Times written without microseconds by an older version are rewritten on open."""
    settings = Settings(state_dir=tmp_path / "old", scopes={"paris": ScopeSettings(timezone="Europe/Paris")})
    first = open_app(settings)
    append_messages(first.engine, [NewMessage("paris", MIDNIGHT, "user", "exactly midnight")], MIDNIGHT)
    first.close()
    db = sqlite3.connect(tmp_path / "old" / "consolidator.db")
    db.execute("UPDATE message SET at = substr(at, 1, 19)")
    db.execute("PRAGMA user_version = 0")
    db.commit()
    db.close()
    reopened = open_app(settings)
    try:
        assert _day_of(_drain(reopened), "exactly midnight") == ["2025-03-04"]
    finally:
        reopened.close()
