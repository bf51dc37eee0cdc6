"""The cold archive: what moves, that history reads the same across archive and hot store, and imports."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from consolidator.runtime.rebuild import Rebuild
from consolidator.messages.archive import Archiver, ArchiveStage
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import ArchiveSettings, Settings
from stores.files.archive_files import scope_folder
from stores.messages import append_messages
from tests.support.archive_kit import all_rows, consolidated, hot_ids, summaries, talk

AFTER = timedelta(days=10)  # 70 days logged from 6 January: January and February are whole months past it
DAYS = 70


@pytest.fixture
def settings(state_dir):
    return Settings(state_dir=state_dir, archive=ArchiveSettings(after=AFTER))


@pytest.mark.slow
def test_only_old_consolidated_messages_move_and_the_log_reads_the_same(app) -> None:
    """Whole months older than archive.after leave the database; the one reader still returns every message once, in order."""
    now = consolidated(app, days=DAYS)
    before = all_rows(app)
    report = Archiver(app).run(now)
    aged = now - AFTER
    month_start = aged.replace(day=1, hour=0, minute=0, second=0, microsecond=0)  # whole months move
    hot = set(hot_ids(app))
    moved = [row for row in before if row[0] not in hot]
    assert report.messages == len(moved) > 0
    assert [row for row in before if row[3] < month_start] == moved
    assert report.scopes["maya"].months == ["2025-01", "2025-02"]
    assert all_rows(app) == before
    files = scope_folder(app.settings.archive_dir, "maya").rglob("*.parquet")
    assert sorted(p.parent.name for p in files if "summaries" not in p.parts) == \
        sorted(report.scopes["maya"].months)


@pytest.mark.slow
def test_a_dry_run_moves_nothing_and_a_second_run_finds_nothing(app) -> None:
    """--dry-run reports what a run then moves; after the run nothing is left to move."""
    now = consolidated(app, days=DAYS)
    planned = Archiver(app).run(now, dry_run=True)
    assert len(hot_ids(app)) == len(all_rows(app))
    done = Archiver(app).run(now)
    assert (planned.messages, planned.scopes["maya"].months) == (done.messages, done.scopes["maya"].months)
    assert Archiver(app).run(now).messages == 0


@pytest.mark.slow
def test_messages_the_ladders_have_not_seen_stay_hot(app) -> None:
    """A late import of old days (not yet placed nor summarised) is not archived, though old."""
    now = consolidated(app, days=DAYS)
    late = talk("maya", 3, first_day=2)
    late = [m._replace(id="late-" + m.id, text=m.text + " (late)") for m in late]
    append_messages(app.engine, late, now, archive_root=app.settings.archive_dir)
    Archiver(app).run(now)
    hot = set(hot_ids(app))
    assert {m.key() for m in late} <= hot


@pytest.mark.slow
def test_the_archive_is_off_with_after_zero(tmp_path) -> None:
    """archive.after = 0: nothing moves."""
    app = open_app(Settings(state_dir=tmp_path / "s", archive=ArchiveSettings(after=timedelta(0))))
    now = consolidated(app, days=DAYS)
    assert Archiver(app).run(now).messages == 0 and not app.settings.archive_dir.exists()
    app.close()


@pytest.mark.slow
def test_rebuild_after_archiving_equals_rebuild_before(app) -> None:
    """With the offline model, rebuilding after the archive moved months of messages writes exactly what it wrote before."""
    now = consolidated(app, days=DAYS)
    with Rebuild(app) as rebuild:
        rebuild.mark(OfflineModel())
        rebuild.run(now)
    before = summaries(app)
    assert Archiver(app).run(now).messages > 0
    with Rebuild(app) as rebuild:
        marked = rebuild.mark(OfflineModel())
        rebuild.run(now)
    assert marked > 0
    assert summaries(app) == before


@pytest.mark.slow
def test_an_archived_id_is_still_a_duplicate(app) -> None:
    """Importing the same history again after archiving adds nothing."""
    now = consolidated(app, days=DAYS)
    Archiver(app).run(now)
    again = append_messages(app.engine, talk("maya", DAYS), now, archive_root=app.settings.archive_dir)
    assert (again.added, again.duplicates) == (0, DAYS * 8)


@pytest.mark.slow
def test_the_daemon_archives_only_in_a_tick_with_nothing_else_to_do(app) -> None:
    """The idle stage runs in a tick that found no work, not in one that did."""
    now = consolidated(app, days=DAYS)
    consolidator = Consolidator(app, [], [], idle=[ArchiveStage(app)])
    append_messages(app.engine, talk("maya", 1, first_day=DAYS + 1), now, archive_root=app.settings.archive_dir)
    busy = consolidator.tick(now + timedelta(days=2))
    assert "archive" not in busy.stages and len(hot_ids(app)) == len(all_rows(app))
    consolidator.drain(now + timedelta(days=2))
    assert len(hot_ids(app)) < len(all_rows(app))


@pytest.mark.slow
def test_status_shows_archived_counts_apart(app, run_cli) -> None:
    """status --json: messages counts every message, archived those in the archive."""
    now = consolidated(app, days=DAYS)
    moved = Archiver(app).run(now).messages
    status = json.loads(run_cli("status", "--json").output)
    assert status["scopes"]["maya"]["messages"] == DAYS * 8
    assert status["scopes"]["maya"]["archived"] == moved
    assert f"({moved} archived)" in run_cli("status").output


def _statements_of_a_pass(tmp_path, scopes: int) -> int:
    """SQL statements of one archive pass over `scopes` scopes that hold only recent messages."""
    from sqlalchemy import event

    app = open_app(Settings(state_dir=tmp_path / f"s{scopes}", archive=ArchiveSettings(after=AFTER)))
    messages = [m for n in range(scopes) for m in talk(f"scope-{n:05d}", days=1, per_talk=1, first_day=DAYS)]
    append_messages(app.engine, messages, messages[-1].at, archive_root=app.settings.archive_dir)
    now = messages[-1].at + timedelta(days=1)
    archiver = Archiver(app)
    archiver.run(now)  # the first pass of a process also looks for leftovers of a killed run
    statements: list[str] = []
    event.listen(app.engine, "before_cursor_execute", lambda c, cur, sql, *a: statements.append(sql))
    try:
        report = archiver.run(now)
    finally:
        app.close()
    assert report.messages == 0
    return len(statements)


@pytest.mark.slow
def test_a_pass_with_nothing_old_costs_the_same_for_5_and_500_scopes(tmp_path) -> None:
    """The daemon's idle archive pass finds candidate scopes in one statement, not a few per scope."""
    few, many = _statements_of_a_pass(tmp_path, 5), _statements_of_a_pass(tmp_path, 500)
    assert few == many and many <= 5, (few, many)
