"""The ladder stage over simulated weeks and months, with chosen times and a counting model."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from consolidator.core.app import open_app
from consolidator.core.config import LadderSettings, Settings
from consolidator.ladders.stage import LadderStage
from consolidator.runtime.tick import Consolidator
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Announcement, Summary
from stores.summaries import newest_versions
from tests.support.fakes import CountingModel
from tests.support.ladders_kit import MONDAY, UTC, app, by_rung, machine, rows, say  # noqa: F401  (app is a fixture)

PARIS = ZoneInfo("Europe/Paris")


def chatty(app, scope, start, count, words=30, step=timedelta(minutes=1)):
    body = " ".join(f"word{i}" for i in range(words))
    messages = [NewMessage(scope, start + i * step, "user", f"message {i} {body}") for i in range(count)]
    append_messages(app.engine, messages, start)


def test_week_exists_only_after_its_seventh_day_closes(app):
    """The week summary is written once Sunday's local midnight plus grace has passed, not before."""
    consolidator, _, _ = machine(app)
    for day in range(7):
        say(app, "maya", MONDAY + timedelta(days=day), f"day {day} news")
    sunday_end = datetime(2025, 3, 10, 0, 0, tzinfo=UTC)
    consolidator.drain(sunday_end + timedelta(minutes=9))
    assert ("time", "week") not in by_rung(app)
    consolidator.drain(sunday_end + timedelta(minutes=10))
    weeks = [s for s in rows(app) if s.rung == "week"]
    assert [(w.key, w.kind) for w in weeks] == [("2025-03-03", "passed")]
    assert weeks[0].text.count("day ") == 7


def test_forty_messages_then_a_silent_month_cost_one_call(app):
    """Forty messages on a Monday, then silence: one model call in all; silent windows write no row."""
    consolidator, model, _ = machine(app)
    chatty(app, "maya", MONDAY, 40)
    consolidator.drain(MONDAY + timedelta(days=35))
    assert len(model.calls) == 1  # the day; the interaction reuses it; every other rung passes or is empty
    got = by_rung(app)
    assert got[("time", "day")] == {"summarized": 1}  # the 34 silent days: no row
    assert got[("count", "1")] == {"reused": 1}
    assert got[("time", "week")] == {"passed": 1}  # the 4 silent weeks: no row
    assert ("count", "10") not in got  # ten interactions do not exist yet
    snapshot = json.loads((app.settings.snapshot_dir / "maya" / "time" / "week.json").read_text())
    assert snapshot["window"]["start"].startswith("2025-03-03") and snapshot["text"]
    assert snapshot["watermark"]["seq"] == 40


def test_silent_windows_make_no_call(app):
    """A scope silent for weeks after one short message makes no call at all."""
    consolidator, model, _ = machine(app)
    say(app, "maya", MONDAY, "short hello")
    consolidator.drain(MONDAY + timedelta(days=120))
    assert model.calls == []
    kinds = {(s.rung, s.kind) for s in rows(app)}
    assert {("day", "passed"), ("week", "passed"), ("4w", "passed"), ("12w", "passed")} <= kinds
    assert all(kind != "empty" for _, kind in kinds)  # the silent days, weeks and months wrote nothing


@pytest.mark.slow
def test_late_message_reversions_exactly_one_chain_per_ladder(app):
    """A message landing in an old day and interaction re-versions one summary per rung, per ladder."""
    consolidator, _, _ = machine(app)
    for i in range(12):  # twelve interactions on twelve days
        chatty(app, "maya", MONDAY + timedelta(days=i), 3)
    now = MONDAY + timedelta(days=60)
    consolidator.drain(now)
    before = {(s.ladder, s.rung, s.key): s.version for s in rows(app)}
    say(app, "maya", MONDAY + timedelta(days=2, minutes=5), "a late remark about day two")
    consolidator.drain(now + timedelta(hours=1))
    after: dict[tuple[str, str, str], int] = {}
    for s in rows(app):
        after[(s.ladder, s.rung, s.key)] = max(after.get((s.ladder, s.rung, s.key), 0), s.version)
    bumped = sorted(k for k, v in after.items() if v == 2)
    assert all(v == 1 for k, v in after.items() if k not in bumped)
    per_rung = {}
    for ladder, rung, key in bumped:
        per_rung.setdefault((ladder, rung), []).append(key)
    assert all(len(keys) == 1 for keys in per_rung.values())
    assert {r for (ladder, r) in per_rung if ladder == "time"} == {"day", "week", "4w", "12w"}
    assert ("time", "52w") not in {(ladder, r) for ladder, r, _ in before}  # not closed yet: nothing to redo
    assert {r for (ladder, r) in per_rung if ladder == "count"} == {"1", "10"}
    old = [s for s in rows(app) if s.ladder == "time" and s.rung == "day" and s.key == "2025-03-05"]
    assert sorted(s.version for s in old) == [1, 2] and "late remark" in max(old, key=lambda s: s.version).text


def test_crash_between_summary_and_parent_leaves_no_duplicate_and_no_gap(app):
    """If the process dies after a day is announced but before its week, the restart writes the week once."""

    class Dying(CountingModel):
        def summarize(self, request):
            if request.rung == "week":
                raise SystemExit("killed")  # stands for the process dying mid-tick
            return super().summarize(request)

    for day in range(7):
        chatty(app, "maya", MONDAY + timedelta(days=day), 20)
    with pytest.raises(SystemExit):
        Consolidator(app, [], [LadderStage(app, Dying())]).drain(MONDAY + timedelta(days=8))
    assert ("time", "week") not in by_rung(app)
    consolidator, _, _ = machine(app)
    consolidator.drain(MONDAY + timedelta(days=8))
    consolidator.drain(MONDAY + timedelta(days=9))
    with reading(app.engine) as session:
        versions = session.execute(
            select(Summary.ladder, Summary.rung, Summary.key, func.count()).group_by(
                Summary.ladder, Summary.rung, Summary.key
            )
        ).all()
        announced = session.execute(select(func.count()).select_from(Announcement)).scalar_one()
    assert all(n == 1 for *_, n in versions)  # no duplicate
    assert by_rung(app)[("time", "week")] == {"summarized": 1}  # no gap
    assert announced == len(rows(app))  # every summary announced exactly once


def test_dst_day_in_paris_holds_both_repeated_hours(app):
    """2025-10-26 in Paris is 25 hours: both 02:30s land in its summary, whose window is 25 h long."""
    consolidator, _, _ = machine(app)
    first = datetime(2025, 10, 26, 2, 30, fold=0, tzinfo=PARIS).astimezone(UTC)
    second = datetime(2025, 10, 26, 2, 30, fold=1, tzinfo=PARIS).astimezone(UTC)
    say(app, "paris", first, "first half past two")
    say(app, "paris", second, "second half past two")
    consolidator.drain(datetime(2025, 10, 27, 0, 0, tzinfo=PARIS).astimezone(UTC) + timedelta(minutes=10))
    days = [s for s in rows(app, "paris") if s.rung == "day" and s.kind != "empty"]
    assert len(days) == 1 and "first half" in days[0].text and "second half" in days[0].text
    assert days[0].window_end - days[0].window_start == timedelta(hours=25)


def test_day_holding_one_interaction_costs_one_call_for_both_ladders(app):
    """Identical inputs under the same prompt are reused: the interaction costs nothing after its day."""
    consolidator, model, _ = machine(app)
    chatty(app, "maya", MONDAY, 30)
    consolidator.drain(MONDAY + timedelta(days=2))
    assert len(model.calls) == 1
    assert by_rung(app)[("count", "1")] == {"reused": 1}


@pytest.mark.slow
def test_count_ladder_rungs_follow_interactions(app):
    """Ten complete interactions make one 10-block; forty make a 40-block from four of them."""
    consolidator, _, _ = machine(app)
    for i in range(40):
        say(app, "maya", MONDAY + timedelta(hours=i), f"conversation {i}", session=f"s{i}")
    consolidator.drain(MONDAY + timedelta(hours=41))
    with reading(app.engine) as session:
        tens = newest_versions(session, "maya", "count", "10")
        forties = newest_versions(session, "maya", "count", "40")
    assert [(s.first_number, s.last_number) for s in tens] == [(1, 10), (11, 20), (21, 30), (31, 40)]
    assert [(s.first_number, s.last_number, len(s.sources)) for s in forties] == [(1, 40, 4)]


def test_ladder_rungs_come_from_config(tmp_path):
    """A shorter ladder from config writes only its rungs."""
    settings = Settings(state_dir=tmp_path / "s", ladders=LadderSettings(time=["day", "week"], count=[1, 5]))
    app = open_app(settings)
    consolidator, _, _ = machine(app)
    for i in range(5):
        say(app, "maya", MONDAY + timedelta(hours=i), f"talk {i}", session=f"s{i}")
    consolidator.drain(MONDAY + timedelta(days=30))
    assert {(s.ladder, s.rung) for s in rows(app)} == {("time", "day"), ("time", "week"), ("count", "1"), ("count", "5")}
    app.close()


def test_failing_summary_call_backs_off_and_does_not_block_other_windows(app):
    """A window whose call keeps failing is held with backoff; later days and their week still get written."""
    from consolidator.model.base import ModelError
    from stores.holds import holds

    class Poisoned(CountingModel):
        def summarize(self, request):
            if any("poison" in i.text for i in request.inputs):
                self.calls.append("failed")
                raise ModelError("the model refuses this window")
            return super().summarize(request)

    model = Poisoned()
    consolidator = Consolidator(app, [], [LadderStage(app, model)])
    chatty(app, "maya", MONDAY, 20)
    say(app, "maya", MONDAY + timedelta(minutes=25), "poison " + "x " * 2000)
    for day in range(1, 7):
        chatty(app, "maya", MONDAY + timedelta(days=day), 20)
    now = MONDAY + timedelta(days=8)
    for tick in range(10):  # ten ticks 3 s apart: all within the first backoff (30 s)
        consolidator.tick(now + timedelta(seconds=3 * tick))
    failed = model.calls.count("failed")
    assert failed == 2  # the day and its interaction once each, not once per tick
    days = {s.key for s in rows(app) if s.rung == "day" and s.kind != "empty"}
    assert "2025-03-03" not in days and {"2025-03-04", "2025-03-09"} <= days
    with reading(app.engine) as session:
        held = [*holds(session, "maya", "time").values(), *holds(session, "maya", "count").values()]
    assert held and all(h.attempts == 1 and h.next_at > now for h in held)


def test_rebuild_since_keeps_windows_that_are_still_waiting(app):
    """Rebuilding from a date leaves earlier pending windows (an open day) dirty, so they are still written."""
    consolidator, _, _ = machine(app)
    say(app, "maya", MONDAY + timedelta(hours=14, minutes=50), "late evening note")  # 23:50 Paris-free UTC day
    consolidator.drain(MONDAY + timedelta(hours=15))  # the day is still open
    stage = LadderStage(app, CountingModel())
    stage.mark_all_dirty("maya", "time", MONDAY + timedelta(days=1))
    stage.mark_all_dirty("maya", "count", MONDAY + timedelta(days=1))
    consolidator.drain(MONDAY + timedelta(days=3))
    kinds = {(s.ladder, s.rung, s.key): s.kind for s in rows(app)}
    assert kinds[("time", "day", "2025-03-03")] == "passed"
    assert kinds[("count", "1", "1-1")] == "passed"


def test_snapshot_files_catch_up_after_a_crash_between_commit_and_publish(app):
    """Summaries committed by a process that died before writing their files are published on the next tick."""
    from consolidator.snapshots.stage import SnapshotStage

    silent = LadderStage(app, CountingModel(), publish=False)  # commits, then "dies" before publishing
    for day in range(3):
        chatty(app, "maya", MONDAY + timedelta(days=day), 5)
    Consolidator(app, [], [silent]).drain(MONDAY + timedelta(days=4))
    day_file = app.settings.snapshot_dir / "maya" / "time" / "day.json"
    assert not day_file.exists()
    Consolidator(app, [], [SnapshotStage(app, {})]).drain(MONDAY + timedelta(days=4))
    assert json.loads(day_file.read_text())["window"]["start"].startswith("2025-03-05")
    assert (app.settings.snapshot_dir / "maya" / "count" / "1.json").exists()


def test_summary_requests_carry_the_scope_s_time_zone(app):
    """The model is told the zone the inputs' times are in (Europe/Paris here, UTC by default)."""
    class Recording(CountingModel):
        zones: set[tuple[str, str]] = set()

        def summarize(self, request):
            Recording.zones.add((request.scope, request.timezone))
            return super().summarize(request)

    chatty(app, "paris", MONDAY, 60, words=200)
    chatty(app, "maya", MONDAY, 60, words=200)
    Consolidator(app, [], [LadderStage(app, Recording())]).drain(MONDAY + timedelta(days=2))
    assert Recording.zones == {("paris", "Europe/Paris"), ("maya", "UTC")}


def test_base_windows_are_taken_in_runs_spanning_fewer_than_32_units():
    """Due units in any order: sorted, deduplicated, and cut so that each run is one bounded range read."""
    from consolidator.ladders.base import RUN_SPAN, _runs

    runs = _runs([40, 3, 1, 2, 1, 33, 200, 34])
    assert runs == [[1, 2, 3], [33, 34, 40], [200]]
    assert all(run[-1] - run[0] < RUN_SPAN for run in runs)
    assert [u for run in _runs(range(100)) for u in run] == list(range(100))
