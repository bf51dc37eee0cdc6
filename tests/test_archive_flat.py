"""The hot store stays flat with the archive on: summaries, archived-id hashes and announcements
of old windows leave it, and everything that reads them still finds them."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from consolidator.ladders.stage import LadderStage
from consolidator.messages.archive import Archiver
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.core.config import ArchiveSettings, Settings
from stores.schema.archive import ArchivedId
from stores.schema.archive import ArchivedIdExpiry
from stores.engine import reading
from stores.history import History
from stores.messages import append_messages
from stores.schema.ladders import Announcement, Summary
from stores.schema.archive import SummaryArchiveFile
from tests.support.archive_kit import START, summaries, talk

AFTER = timedelta(days=20)
CHUNK = 30  # days logged between two drains and archive runs


@pytest.fixture
def settings(state_dir):
    return Settings(state_dir=state_dir, archive=ArchiveSettings(after=AFTER))


def _hot(app) -> dict[str, int]:
    with reading(app.engine) as session:
        return {table.__tablename__: session.execute(select(func.count()).select_from(table)).scalar_one()
                for table in (Summary, ArchivedId, Announcement)}


def _live(app, days: int) -> list[dict[str, int]]:
    """Log `days` days in chunks, draining the ladders and archiving after each; hot counts per chunk."""
    daemon = Consolidator(app, [], [LadderStage(app, OfflineModel())])
    counts = []
    for first in range(0, days, CHUNK):
        append_messages(app.engine, talk("maya", CHUNK, first_day=first), START + timedelta(days=first), archive_root=app.settings.archive_dir)
        now = START + timedelta(days=first + CHUNK, hours=1)
        daemon.drain(now)
        Archiver(app).run(now)
        counts.append(_hot(app))
    return counts


@pytest.mark.slow
def test_hot_rows_of_the_grown_tables_stay_bounded_over_a_long_run(app) -> None:
    """Over 12 months of steady talk, the hot summaries, id hashes and announcements stop growing
    once the archive runs: the last months hold no more than the third month did (plus one chunk)."""
    counts = _live(app, 12 * CHUNK)
    settled, last = counts[2], counts[-1]
    for table in settled:
        grown = max(c[table] for c in counts[2:])
        assert grown <= 1.5 * settled[table] + 10, (table, [c[table] for c in counts])
    assert last["summary"] < 0.3 * len(summaries(app))  # most summary versions are archived


@pytest.mark.slow
def test_an_id_archived_long_ago_is_still_a_duplicate_once_its_hash_left(app) -> None:
    """Once the hot hashes of a month's ids expired, re-importing that month still adds nothing
    (the ids are found in the scope's Parquet files), and a new message still goes in."""
    _live(app, 6 * CHUNK)
    with reading(app.engine) as session:
        assert session.get(ArchivedIdExpiry, "maya") is not None  # some files' hashes were dropped
    first_month = talk("maya", CHUNK)
    again = append_messages(app.engine, first_month, START + timedelta(days=6 * CHUNK), archive_root=app.settings.archive_dir)
    assert (again.added, again.duplicates) == (0, len(first_month))
    new = [m._replace(id="new-" + m.id) for m in talk("maya", 1, first_day=3)]
    assert append_messages(app.engine, new, START + timedelta(days=6 * CHUNK), archive_root=app.settings.archive_dir).added == len(new)


@pytest.mark.slow
def test_a_live_append_never_reads_the_archive_files(app) -> None:
    """An append of messages newer than everything archived does not open the Parquet files
    (damaged here: reading them would fail); one with an old time does read them."""
    _live(app, 3 * CHUNK)
    for path in app.settings.archive_dir.rglob("*.parquet"):
        if "summaries" not in path.parts:
            path.write_bytes(b"not parquet")
    recent = talk("maya", 1, first_day=3 * CHUNK + 2)
    assert append_messages(app.engine, recent, START + timedelta(days=3 * CHUNK + 3), archive_root=app.settings.archive_dir).added == len(recent)
    old = [m._replace(id="old-" + m.id) for m in talk("maya", 1, first_day=1)]
    with pytest.raises(Exception, match="(?i)parquet"):
        append_messages(app.engine, old, START + timedelta(days=3 * CHUNK + 3), archive_root=app.settings.archive_dir)


@pytest.mark.slow
def test_late_data_in_an_archived_window_rewrites_it_and_its_readers_from_the_archive(app) -> None:
    """A late message in a day whose summaries were archived: the day gets the next version after
    the archived one, and the week and month above are rewritten once, from archived inputs."""
    _live(app, 4 * CHUNK)
    history = History(app.settings.archive_dir)
    with reading(app.engine) as session:
        assert session.execute(select(func.count()).select_from(SummaryArchiveFile)).scalar_one() > 0
        day = history.latest_summaries(session, "maya", "time", [("day", "2025-01-08")])[("day", "2025-01-08")]
        week = history.latest_summaries(session, "maya", "time", [("week", "2025-01-06")])[("week", "2025-01-06")]
        assert session.get(Summary, day.id) is None  # archived
    late = talk("maya", 1, first_day=2)
    late = [m._replace(id="late-" + m.id, text=m.text + " A late word about the orchard.") for m in late]
    now = START + timedelta(days=4 * CHUNK, hours=2)
    append_messages(app.engine, late, now, archive_root=app.settings.archive_dir)
    Consolidator(app, [], [LadderStage(app, OfflineModel())]).drain(now)
    with reading(app.engine) as session:
        found = history.latest_summaries(session, "maya", "time", [("day", "2025-01-08"), ("week", "2025-01-06")])
    assert found[("day", "2025-01-08")].version == day.version + 1 and "orchard" in found[("day", "2025-01-08")].text
    assert found[("week", "2025-01-06")].version == week.version + 1
    assert len(summaries(app)) == len(set(summaries(app)))  # no version written twice


@pytest.mark.slow
def test_forget_removes_the_archived_summaries_and_the_id_bookkeeping(app, run_cli) -> None:
    """`forget` leaves no summary file, manifest row, hash or expiry cursor of the scope."""
    _live(app, 4 * CHUNK)
    run_cli("forget", "--scope", "maya", "--yes")
    assert not list(app.settings.archive_dir.rglob("*.parquet"))
    with reading(app.engine) as session:
        for table in (SummaryArchiveFile, ArchivedIdExpiry, ArchivedId, Summary, Announcement):
            assert session.execute(select(func.count()).select_from(table)).scalar_one() == 0, table


@pytest.mark.slow
def test_the_summaries_and_report_commands_still_count_archived_windows(app, run_cli) -> None:
    """`summaries` lists archived windows too, and `report` counts them, as before archiving."""
    _live(app, 4 * CHUNK)
    everything = summaries(app)
    with_content: dict[tuple[str, str], set[str]] = {}
    for _, ladder, rung, key, _, kind, _, _ in everything:
        if kind != "empty":
            with_content.setdefault((ladder, rung), set()).add(key)
    with reading(app.engine) as session:
        assert session.execute(select(func.count()).select_from(SummaryArchiveFile)).scalar_one() > 0
        counted = History(app.settings.archive_dir).written_windows(session, "maya")
    assert counted == {window: len(keys) for window, keys in with_content.items()}
    listed = json.loads(run_cli("summaries", "--scope", "maya", "--ladder", "time", "--rung", "day", "--json").output)
    assert {item["id"].split("/")[3].split("@")[0] for item in listed} == with_content[("time", "day")]
