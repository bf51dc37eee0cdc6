"""A connection opened while another process writes a new SQLite file still gets WAL mode.

SQLite answers "database is locked" to `PRAGMA journal_mode=WAL` at once, without calling
its busy handler, when another connection holds the write lock of a file still in rollback
mode (waiting could deadlock). That is what processes opening a new file together meet (the
first-import race in tests/test_first_import_race.py lost a process that way on CI).
stores.engine retries the switch until the writer is done.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

import stores.engine as engine_module
from stores.engine import make_engine


def test_opening_a_file_another_connection_is_writing_in_rollback_mode_waits_and_switches_to_wal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "new.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE first (x INTEGER)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO first VALUES (1)")
    waits = []

    def wait(seconds: float) -> None:  # the writer finishes while the opener backs off
        waits.append(seconds)
        if writer.in_transaction:
            writer.execute("COMMIT")

    monkeypatch.setattr(engine_module.time, "sleep", wait)
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert connection.execute(text("SELECT count(*) FROM first")).scalar() == 1
    finally:
        engine.dispose()
        writer.close()
    assert len(waits) >= 1


def test_a_lock_that_never_clears_still_fails_after_the_busy_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "held.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("CREATE TABLE first (x INTEGER)")
    writer.execute("BEGIN IMMEDIATE")
    clock = [0.0]
    monkeypatch.setattr(engine_module.time, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    monkeypatch.setattr(engine_module.time, "monotonic", lambda: clock[0])
    engine = make_engine(f"sqlite:///{path}")
    try:
        with pytest.raises(Exception, match="locked"):
            with engine.connect():
                pass
    finally:
        engine.dispose()
        writer.close()
    assert clock[0] >= engine_module.BUSY_TIMEOUT_MS / 1000
