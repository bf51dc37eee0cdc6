"""Ladders through the CLI under freezegun, and rebuild against incremental operation."""

from __future__ import annotations

import pytest

import json
from datetime import datetime, timedelta, timezone

from freezegun import freeze_time
from sqlalchemy import select

from consolidator.core.app import open_app
from consolidator.ladders.stage import LadderStage
from consolidator.model.offline import OfflineModel
from consolidator.messages.sample import generate
from consolidator.runtime.tick import Consolidator
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary
from tests.support.drain_kit import newest_summaries

UTC = timezone.utc
START = datetime(2025, 1, 6, tzinfo=UTC)  # a Monday


def records_by_day(days: int, seed: int = 7) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for record in generate(scope="maya", start=START, days=days, seed=seed):
        day = (datetime.fromisoformat(record["at"]) - START).days
        out.setdefault(day, []).append(record)
    return out


def to_message(record: dict) -> NewMessage:
    return NewMessage(
        scope=record["scope"], at=datetime.fromisoformat(record["at"]), role=record["role"], text=record["text"],
        speaker=record.get("speaker"), session=record.get("session"), id=record["id"],
    )


@pytest.mark.slow
def test_weeks_appear_only_when_their_sunday_closes_under_freezegun(run_cli, tmp_path):
    """Driving `run --once` day by day with a frozen clock: a week shows up the tick after its Sunday closes
    (a silent week, such as the fourth here, never shows up: it has no summary, not even an empty one)."""
    days = records_by_day(28)
    spoken_weeks = {day // 7 for day in days}
    assert 3 not in spoken_weeks
    for day in range(28):
        lines = "".join(json.dumps(r) + "\n" for r in days.get(day, []))
        if lines:
            run_cli("import", "-", input=lines)
        with freeze_time(START + timedelta(days=day + 1, minutes=11)):
            assert run_cli("run", "--once").exit_code == 0
        weeks = json.loads(run_cli("summaries", "--scope", "maya", "--ladder", "time", "--rung", "week", "--all", "--json").output)
        closed_weeks = [w for w in range((day + 1) // 7) if w in spoken_weeks]
        assert len(weeks) == len(closed_weeks), f"day {day}"
        assert all(w["window"]["end"] <= (START + timedelta(days=day + 1)).isoformat() for w in weeks)
    fours = json.loads(run_cli("summaries", "--scope", "maya", "--ladder", "time", "--rung", "4w", "--all", "--json").output)
    assert len(fours) >= 1 and all(set(f) >= {"id", "window", "version", "sources", "text"} for f in fours)


def newest_texts(app) -> dict[tuple[str, str, str], tuple[str, str]]:
    best = newest_summaries(app)
    return {k: (s.text, "empty" if s.kind == "empty" else "content") for k, s in best.items()}


@pytest.mark.slow
def test_rebuild_equals_incremental_on_a_generated_year(tmp_path, run_cli, settings):
    """A year fed day by day (with late arrivals) and the same log rebuilt at once give the same summaries."""
    days = records_by_day(365, seed=11)
    incremental = open_app(settings.model_copy(update={"state_dir": tmp_path / "incremental"}))
    machine = Consolidator(incremental, [], [LadderStage(incremental, OfflineModel(), publish=False)])
    arrival: list[NewMessage] = []
    for day in range(365):
        batch = [to_message(r) for r in days.get(day, [])]
        if day % 45 == 44 and arrival:  # a late message about an old day
            old = arrival[len(arrival) // 2]
            batch.append(NewMessage("maya", old.at + timedelta(minutes=3), "user", f"Late note on day {day}."))
        if batch:
            append_messages(incremental.engine, batch, START + timedelta(days=day))
            arrival.extend(batch)
        machine.drain(START + timedelta(days=day + 1, hours=1))
    end = START + timedelta(days=366)
    machine.drain(end)

    rebuilt = open_app(settings)  # the state dir run_cli uses
    append_messages(rebuilt.engine, arrival, START)
    with freeze_time(end):
        result = run_cli("rebuild")
    assert result.exit_code == 0, result.output
    a, b = newest_texts(incremental), newest_texts(rebuilt)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    assert any(kind == "content" for _, kind in a.values() if True)
    assert {rung for (ladder, rung, _) in a if ladder == "time"} >= {"day", "week", "4w", "12w"}

    with reading(incremental.engine) as session:
        before = session.execute(select(Summary.id)).scalars().all()
    machine2 = LadderStage(incremental, OfflineModel(), publish=False)
    machine2.reuse = False
    for kind in ("time", "count"):
        machine2.mark_all_dirty("maya", kind, None)
    machine2.run_scope("maya", end)
    with reading(incremental.engine) as session:
        after = session.execute(select(Summary.id)).scalars().all()
    assert sorted(before) == sorted(after)  # rebuilding an up-to-date ladder changes nothing
    incremental.close()
    rebuilt.close()


@pytest.mark.slow
def test_idle_flush_and_interaction_completion_under_freezegun(run_cli):
    """Through the CLI with a frozen clock: the tail batch and the interaction wait for their idle gaps."""
    t0 = datetime(2025, 5, 5, 9, 0, tzinfo=UTC)
    lines = "".join(
        json.dumps({"scope": "maya", "at": (t0 + timedelta(minutes=i)).isoformat(), "role": "user", "text": f"note {i}"}) + "\n"
        for i in range(20)
    )
    run_cli("import", "-", input=lines)
    last = t0 + timedelta(minutes=19)

    def state():
        status = json.loads(run_cli("status", "--json").output)["scopes"]["maya"]
        ones = json.loads(run_cli("summaries", "--scope", "maya", "--ladder", "count", "--rung", "1", "--json").output)
        return status["pending"], len(ones)

    with freeze_time(last + timedelta(minutes=29)):
        run_cli("run", "--once")
        assert state() == (20, 0)  # neither the batch nor the interaction is due yet
    with freeze_time(last + timedelta(minutes=30)):
        run_cli("run", "--once")
        assert state() == (0, 1)


@pytest.mark.slow
def test_a_year_of_weekly_chats_closes_one_52_week_block(run_cli):
    """Over two simulated years with a frozen clock, a 52-week summary appears only once its block has closed."""
    lines = []
    for week in range(110):
        at = START + timedelta(weeks=week, hours=10)
        lines.append(json.dumps({"scope": "maya", "at": at.isoformat(), "role": "user", "session": f"w{week}",
                                 "text": f"Weekly check-in number {week}: the garden, the job, the cat."}))
    run_cli("import", "-", input="\n".join(lines) + "\n")

    def years(now):
        with freeze_time(now):
            run_cli("run", "--once")
        out = run_cli("summaries", "--scope", "maya", "--ladder", "time", "--rung", "52w", "--json").output
        return [item["window"] for item in json.loads(out)]

    from hierarchy.calendar import day_unit, unit_date

    first_block_end = unit_date((day_unit(START.date()) // 364 + 1) * 364)
    closes = datetime.combine(first_block_end, datetime.min.time(), UTC) + timedelta(minutes=10)
    assert years(closes - timedelta(minutes=1)) == []
    windows = years(closes)
    assert len(windows) == 1 and windows[0]["end"].startswith(first_block_end.isoformat())
