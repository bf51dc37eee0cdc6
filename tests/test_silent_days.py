"""Silence costs nothing: an idle scope writes no row for its silent days, and the ladders still tile.

The whole daemon (build_consolidator, offline model) is ticked once a simulated day with a
chosen `now`; rows are counted in every table of the schema.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import event, func, select

from consolidator.ladders.stage import LadderStage
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import ScopeSettings, Settings
from consolidator.runtime.wiring import build_consolidator
from hierarchy.calendar import day_closes_at, day_unit
from stores.engine import reading
from stores.erase import all_tables
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary
from stores.summaries import newest_versions

UTC = timezone.utc
PARIS = ZoneInfo("Europe/Paris")
DAY0 = datetime(2025, 3, 17, 9, 0, tzinfo=UTC)  # a Monday that starts a week, a 4-week and a 12-week block
NOON = DAY0.replace(hour=12)
WRITES = ("INSERT", "UPDATE", "DELETE")


def table_rows(app) -> dict[str, int]:
    with reading(app.engine) as session:
        return {t.name: session.execute(select(func.count()).select_from(t)).scalar_one() for t in all_tables()}


def speak(app, scope: str, day: int, text: str) -> None:
    at = DAY0 + timedelta(days=day)
    lines = [NewMessage(scope, at + timedelta(minutes=m), "user", f"{text} (part {m})") for m in range(3)]
    append_messages(app.engine, lines, at)


def newest(app, scope: str, rung: str) -> dict[str, Summary]:
    with reading(app.engine) as session:
        return {s.key: s for s in newest_versions(session, scope, "time", rung)}


@pytest.fixture
def daemon(tmp_path):
    app = open_app(Settings(state_dir=tmp_path / "state"))
    yield app, build_consolidator(app, OfflineModel())
    app.close()


@pytest.mark.slow
def test_thirty_idle_days_write_no_row_but_the_blocks_holding_day_zero(daemon):
    """Day 0 spoken, then 30 silent days: from day 2 to day 31 no table grows except by the week and the
    4 weeks that hold day 0, each once, on the day it closes (a summary, its announcement, its rung's view)."""
    app, consolidator = daemon
    speak(app, "maya", 0, "I planted tomatoes with Ana")
    consolidator.drain(NOON + timedelta(days=1))
    before = table_rows(app)
    grew: dict[int, dict[str, int]] = {}
    for day in range(2, 32):
        consolidator.drain(NOON + timedelta(days=day))
        after = table_rows(app)
        delta = {t: after[t] - before[t] for t in after if after[t] != before[t]}
        if delta:
            grew[day] = delta
        before = after
    block = {"summary": 1, "announcement": 1, "view_version": 1}
    assert grew == {7: block, 28: block}  # the week closes Sunday night (day 6), the 4 weeks on day 27
    kinds = {(s.rung, s.kind) for rung in ("day", "week", "4w", "12w") for s in newest(app, "maya", rung).values()}
    assert kinds == {("day", "passed"), ("week", "passed"), ("4w", "passed")}


@pytest.mark.slow
def test_an_idle_run_of_the_ladder_stage_writes_nothing_and_reads_little(tmp_path):
    """Between the closes of the blocks holding day 0, a run of the stage is one read transaction of a few
    queries (it looks, finds nothing due, and leaves) and issues no write."""
    app = open_app(Settings(state_dir=tmp_path / "state"))
    try:
        stage = LadderStage(app, OfflineModel())
        consolidator = Consolidator(app, [], [stage])
        speak(app, "maya", 0, "I planted tomatoes with Ana")
        consolidator.drain(NOON + timedelta(days=8))  # the day and its week are written
        statements: list[str] = []
        event.listen(app.engine, "before_cursor_execute", lambda c, cur, sql, *a: statements.append(sql))
        for hour in range(24 * 10, 24 * 18, 6):  # days 10 to 17, every six hours
            assert stage.run_scope("maya", NOON + timedelta(hours=hour)) == 0
        writes = [s for s in statements if s.lstrip().upper().startswith(WRITES)]
        assert writes == []
        assert len(statements) <= 8 * 32  # per run (BEGIN included), both ladders, whatever the days gone by
    finally:
        app.close()


@pytest.mark.slow
def test_next_due_follows_the_blocks_holding_the_last_spoken_day(daemon):
    """After day 0: due when its week closes, then its 4 weeks; a scope with no content left open is never due."""
    app, consolidator = daemon
    stage = next(s for s in consolidator.stages if isinstance(s, LadderStage))
    speak(app, "maya", 0, "I planted tomatoes with Ana")
    now = NOON + timedelta(days=1)
    consolidator.drain(now)
    tz = app.settings.timezone_of("maya")
    grace = app.settings.ladders.day_grace
    first = day_unit(DAY0.date())
    assert stage.next_due("maya", now) == day_closes_at(first + 6, tz, grace)
    now = NOON + timedelta(days=9)
    consolidator.drain(now)
    assert stage.next_due("maya", now) == day_closes_at(first + 27, tz, grace)
    late = DAY0 + timedelta(days=800)
    consolidator.drain(late)
    assert stage.next_due("maya", late) is None
    speak(app, "maya", 801, "back again")
    assert stage.next_due("maya", late) == late  # a new message: due at once


@pytest.mark.slow
def test_a_scope_back_after_the_gap_gets_exactly_the_summaries_of_its_spoken_weeks(daemon):
    """Spoken days 0, 31 and 45, ticked daily to day 70: a day, week and 4-week row exist exactly where
    something was said, each passing its spoken days through; the same log drained at once agrees."""
    app, consolidator = daemon
    spoken = {0: "tomatoes with Ana", 31: "the trip to Lisbon", 45: "a new job offer"}
    for day in range(71):
        if day in spoken:
            speak(app, "maya", day, spoken[day])
        consolidator.drain(NOON + timedelta(days=day))
    first = day_unit(DAY0.date())
    units = {first + d for d in spoken}
    assert {day_unit(datetime.fromisoformat(k).date()) for k in newest(app, "maya", "day")} == units
    for rung, size in (("week", 7), ("4w", 28)):
        rows = newest(app, "maya", rung)
        assert {day_unit(datetime.fromisoformat(k).date()) // size for k in rows} == {u // size for u in units}
        for key, row in rows.items():
            start = day_unit(datetime.fromisoformat(key).date())
            said = [text for d, text in spoken.items() if start <= first + d < start + size]
            assert row.kind == "passed" and all(text in row.text for text in said), (rung, key)
    assert all(s.kind != "empty" for rung in ("day", "week", "4w") for s in newest(app, "maya", rung).values())

    fresh = open_app(Settings(state_dir=app.settings.state_dir.parent / "fresh"))
    try:
        for day, text in spoken.items():
            speak(fresh, "maya", day, text)
        build_consolidator(fresh, OfflineModel()).drain(NOON + timedelta(days=70))
        for rung in ("day", "week", "4w", "12w"):
            daily = {k: s.text for k, s in newest(app, "maya", rung).items()}
            assert {k: s.text for k, s in newest(fresh, "maya", rung).items()} == daily, rung
    finally:
        fresh.close()


@pytest.mark.slow
def test_a_paris_week_of_one_spoken_day_is_due_and_written_at_its_local_close(tmp_path):
    """Paris, the week of 2025-03-24 (its Sunday has 23 hours), one spoken Tuesday: the week is due and
    written at Monday 00:10 Paris (22:10 UTC on Sunday), not a minute before, passing the Tuesday through."""
    app = open_app(Settings(state_dir=tmp_path / "state", scopes={"paris": ScopeSettings(timezone="Europe/Paris")}))
    try:
        stage = LadderStage(app, OfflineModel())
        consolidator = Consolidator(app, [], [stage])
        tuesday = datetime(2025, 3, 25, 20, 0, tzinfo=PARIS).astimezone(UTC)
        append_messages(app.engine, [NewMessage("paris", tuesday, "user", "dinner with Ana at the harbour")], tuesday)
        for day in range(26, 31):
            consolidator.drain(datetime(2025, 3, day, 12, 0, tzinfo=UTC))
        close = datetime(2025, 3, 31, 0, 10, tzinfo=PARIS).astimezone(UTC)
        assert close == datetime(2025, 3, 30, 22, 10, tzinfo=UTC)
        assert stage.next_due("paris", datetime(2025, 3, 30, 12, 0, tzinfo=UTC)) == close
        consolidator.drain(close - timedelta(minutes=1))
        assert newest(app, "paris", "week") == {}
        consolidator.drain(close)
        weeks = newest(app, "paris", "week")
        assert list(weeks) == ["2025-03-24"] and weeks["2025-03-24"].kind == "passed"
        assert "harbour" in weeks["2025-03-24"].text and list(newest(app, "paris", "day")) == ["2025-03-25"]
    finally:
        app.close()
