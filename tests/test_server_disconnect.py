"""A PostgreSQL server that drops the daemon's connections (restart, failover, an administrator).

Pooled connections are not pinged before each use (that was a round trip per transaction), so
the drop shows on the next statement: it must reach the daemon as the database being away
(one `database` fault, no traceback), the pool must reconnect, and work must resume on the
next tick with nothing lost or applied twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import structlog
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from structlog.testing import capture_logs

from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.daemon import Daemon
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.errors import StorageUnavailable
from stores.schema.log import Message
from stores.messages import NewMessage, append_messages
from stores.ledger import StepRun
from tests.support.postgres_kit import pg_url  # noqa: F401  (a fixture)

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def drop_connections(url: str) -> int:
    """Terminate every server backend connected to the database of `url`; how many there were."""
    name = make_url(url).database
    admin = create_engine(make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            return conn.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                     "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name}).scalar_one()
    finally:
        admin.dispose()


@pytest.mark.slow
def test_a_dropped_connection_is_the_database_away_then_the_daemon_resumes(pg_url, tmp_path: Path) -> None:  # noqa: F811
    """Connections dropped under a running daemon: the next tick is one `database` fault, the
    tick after it reconnects, clears the fault and consolidates every message once."""
    app = open_app(Settings(state_dir=tmp_path / "state", database_url=pg_url, batch_size=5))
    try:
        clock = [T0]
        daemon = Daemon(build_consolidator(app), clock=lambda: clock[0])
        append_messages(app.engine, [NewMessage("s", T0 + timedelta(minutes=i), "user", f"note {i} about the garden")
                                     for i in range(5)], T0)
        clock[0] = T0 + timedelta(hours=1)
        daemon._tick()
        with reading(app.engine) as session:
            first = session.execute(select(func.count()).select_from(StepRun).where(StepRun.status == "done")).scalar_one()
        assert first > 0
        append_messages(app.engine, [NewMessage("s", T0 + timedelta(hours=2, minutes=i), "user", f"more {i} on roses")
                                     for i in range(5)], T0 + timedelta(hours=2))
        assert drop_connections(pg_url) >= 1
        structlog.reset_defaults()
        with capture_logs() as logs:
            clock[0] = T0 + timedelta(hours=3)
            daemon._tick()  # the pooled connection is gone: the database is away
            with pytest.raises(StorageUnavailable):
                with reading(app.engine) as session:  # a fresh connection works again...
                    drop_connections(pg_url)  # ...unless the server drops it too
                    session.execute(select(1)).scalar_one()
            clock[0] += timedelta(minutes=10)
            daemon._tick()
            daemon._tick()
        faults = [(e["event"], e.get("where")) for e in logs if e["event"].startswith("fault")]
        assert faults[0] == ("fault", "database") and ("fault.cleared", "database") in faults, faults
        assert not any(e.get("exc_info") for e in logs if e["event"] == "fault")
        assert daemon.faults.met() == []
        with reading(app.engine) as session:
            runs = session.execute(select(StepRun.status, func.count()).group_by(StepRun.status)).all()
            messages = session.execute(select(func.count()).select_from(Message)).scalar_one()
        assert dict(runs) == {"done": 2 * first} and messages == 10
    finally:
        app.close()
