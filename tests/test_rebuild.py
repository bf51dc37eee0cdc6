"""Rebuilding the ladders: what it marks, and the daemon lease it holds while it works."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from consolidator.runtime.rebuild import LeaseHeld, LeaseLost, Rebuild
from consolidator.ladders.stage import LadderStage
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import DaemonSettings, ScopeSettings, Settings
from stores import lease
from stores.engine import reading
from stores.ladder_state import dirty_windows
from stores.messages import NewMessage, append_messages
from stores.summaries import tally
from tests.support.fakes import CountingModel

MONDAY = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
DRAINED = MONDAY + timedelta(days=4)  # when the daemon last ran: a rebuild at that time finds no new day
ELSEWHERE = lease.Holder(holder="elsewhere:1:daemon", host="elsewhere", pid=1)


@pytest.fixture
def app(tmp_path):
    settings = Settings(state_dir=tmp_path / "state", daemon=DaemonSettings(lease_ttl=timedelta(seconds=2)),
                        scopes={"tokyo": ScopeSettings(timezone="Asia/Tokyo")})
    opened = open_app(settings)
    yield opened
    opened.close()


def three_days(app, scope: str) -> None:
    """One short conversation on each of three days (three interactions), summarised up to date."""
    messages = [NewMessage(scope, MONDAY + timedelta(days=d, minutes=m), "user", f"day {d} note {m}")
                for d in range(3) for m in range(3)]
    append_messages(app.engine, messages, MONDAY)
    Consolidator(app, [], [LadderStage(app, CountingModel())]).drain(DRAINED)


def rows(app) -> int:
    with reading(app.engine) as session:
        return sum(t.rows for t in tally(session).values())


@pytest.mark.slow
def test_mark_counts_the_base_windows_chosen(app) -> None:
    """Every scope and both ladders by default; one ladder, one scope, or windows from a date on when asked."""
    three_days(app, "maya")
    three_days(app, "tokyo")
    with Rebuild(app) as rebuild:
        assert rebuild.mark(CountingModel()) == 12  # 2 scopes x (3 days + 3 interactions)
        assert rebuild.scopes == ["maya", "tokyo"] and rebuild.ladders == ("time", "count")
        assert rebuild.mark(CountingModel(), scope="maya", ladder="time", since=date(2025, 3, 4)) == 2
        assert rebuild.scopes == ["maya"] and rebuild.ladders == ("time",)


def test_since_is_a_date_in_the_scope_s_own_time_zone(app) -> None:
    """--since 2025-03-04 in Tokyo starts at 15:00 UTC the day before, so a conversation at 16:00 UTC is rebuilt."""
    append_messages(app.engine, [NewMessage("tokyo", datetime(2025, 3, 3, 16, 0, tzinfo=timezone.utc), "user", "late")],
                    MONDAY)
    three_days(app, "tokyo")  # and three conversations at 09:00 UTC, from 2025-03-03
    with Rebuild(app) as rebuild:
        assert rebuild.mark(CountingModel(), scope="tokyo", ladder="count", since=date(2025, 3, 4)) == 3


def test_an_up_to_date_rebuild_writes_nothing_and_releases_the_lease(app) -> None:
    """Rebuilding what the daemon already wrote, with the same model, keeps every summary; the lease is free after."""
    three_days(app, "maya")
    before = rows(app)
    with Rebuild(app) as rebuild:
        rebuild.mark(CountingModel())
        assert rebuild.run(DRAINED) == 0
    assert rows(app) == before and lease.current(app.engine) is None


def test_a_rebuild_does_not_start_while_another_process_holds_the_lease(app, run_cli) -> None:
    """Rebuild raises LeaseHeld (the CLI: exit 3 and its message) and writes nothing."""
    three_days(app, "maya")
    before = rows(app)
    assert lease.acquire(app.engine, ELSEWHERE, datetime.now(timezone.utc), timedelta(minutes=5))
    with pytest.raises(LeaseHeld):
        with Rebuild(app):
            pass
    result = run_cli("rebuild")
    assert result.exit_code == 3 and "stop it before rebuilding" in result.stderr
    assert rows(app) == before and lease.current(app.engine).holder == ELSEWHERE.holder


@pytest.mark.slow
def test_a_rebuild_that_loses_the_lease_stops_before_writing(app) -> None:
    """Once another process takes the lease, run raises LeaseLost before the next scope."""
    three_days(app, "maya")
    before = rows(app)
    with Rebuild(app) as rebuild:
        rebuild.mark(CountingModel())
        later = datetime.now(timezone.utc) + timedelta(minutes=1)  # our 2 s lease has expired by then
        assert lease.acquire(app.engine, ELSEWHERE, later, timedelta(minutes=5))
        assert rebuild.lost.wait(timeout=10)  # the keeper renews every ttl/4 and finds it taken
        with pytest.raises(LeaseLost):
            rebuild.run(DRAINED)
    assert rows(app) == before and lease.current(app.engine).holder == ELSEWHERE.holder


def test_a_stopped_rebuild_leaves_its_marks_for_the_daemon_and_releases_the_lease(app) -> None:
    """`stop` set (as SIGTERM does): nothing more is written, the lease is free, the marked windows stay dirty."""
    three_days(app, "maya")
    before = rows(app)
    with Rebuild(app) as rebuild:
        assert rebuild.mark(CountingModel()) > 0
        rebuild.stop.set()
        assert rebuild.run(DRAINED) == 0 and rebuild.stopped
    assert rows(app) == before and lease.current(app.engine) is None
    with reading(app.engine) as session:
        assert dirty_windows(session, "maya", "time") and dirty_windows(session, "maya", "count")
    Consolidator(app, [], [LadderStage(app, CountingModel())]).drain(DRAINED)
    with reading(app.engine) as session:
        assert not dirty_windows(session, "maya", "time") and not dirty_windows(session, "maya", "count")


def test_sigterm_during_a_rebuild_stops_it_instead_of_killing_the_process() -> None:
    """A real SIGTERM inside `stop_on_signals` sets the event; the old handler comes back afterwards."""
    import os
    import signal
    import threading

    from consolidator.cli.ladders import stop_on_signals

    stop = threading.Event()
    before = signal.getsignal(signal.SIGTERM)
    with stop_on_signals(stop):
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.wait(timeout=5)
    assert signal.getsignal(signal.SIGTERM) is before


def test_rebuild_refuses_an_unknown_scope(app, run_cli) -> None:
    """`rebuild --scope nobody` exits 2 naming the known scopes, and writes nothing."""
    three_days(app, "maya")
    result = run_cli("rebuild", "--scope", "nobody")
    assert result.exit_code == 2 and "unknown scope 'nobody'" in result.stderr and "maya" in result.stderr
    assert "rebuilt" not in result.stdout
