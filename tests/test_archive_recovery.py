"""What an interrupted archive run leaves, and how the next run completes or rolls it back."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from consolidator.messages.archive import ArchiveBusy, Archiver, archive_lock
from consolidator.core.config import ArchiveSettings, Settings
from stores.files import archive_files
from stores import archive_manifest
from stores.files.archive_files import scope_folder
from stores.archive_select import archivable, safe_through
from stores.engine import reading, transaction
from tests.support.archive_kit import all_rows, consolidated, hot_ids

DAYS = 40


@pytest.fixture
def settings(state_dir):
    return Settings(state_dir=state_dir, archive=ArchiveSettings(after=timedelta(days=10)))


def half_done(app, now, record: bool) -> tuple[str, list[tuple]]:
    """Write the first month's file as a killed run would have: on disk, and recorded 'written' if `record`."""
    with reading(app.engine) as session:
        through = safe_through(session, "maya", ("time", "count"))
        rows = [r for r in archivable(session, "maya", through, now - timedelta(days=10), None, 100_000)
                if r[3].month == 1]
    relative = scope_folder(app.settings.archive_dir, "maya").relative_to(app.settings.archive_dir) / "2025-01" / "x.parquet"
    written = archive_files.write_file(app.settings.archive_dir, relative, rows)
    if record:
        ranges = archive_manifest.FileRanges(rows[0][2], rows[-1][2], rows[0][3], rows[-1][3], rows[0][9], rows[-1][9])
        with transaction(app.engine) as session:
            archive_manifest.record_written(session, "maya", "2025-01", str(relative), written.rows, written.checksum,
                                            written.bytes, ranges, now)
    return str(relative), rows


@pytest.mark.slow
def test_a_recorded_file_is_finished_by_the_next_run(app) -> None:
    """Killed after recording 'written': the rerun verifies the file and deletes its hot rows."""
    now = consolidated(app, days=DAYS)
    before = all_rows(app)
    path, rows = half_done(app, now, record=True)
    assert all_rows(app) == before  # a 'written' file is not read: its rows are still hot
    report = Archiver(app).run(now)
    assert report.recovered == 1
    with reading(app.engine) as session:
        assert path in archive_manifest.recorded_paths(session, "maya") and not archive_manifest.pending(session)
    assert not {r[0] for r in rows} & set(hot_ids(app))
    assert all_rows(app) == before


@pytest.mark.slow
def test_an_unrecorded_or_damaged_file_is_removed_and_written_again(app) -> None:
    """Killed after the rename but before the manifest, or a recorded file damaged since: deleted, rows still hot, redone."""
    now = consolidated(app, days=DAYS)
    before = all_rows(app)
    orphan, _ = half_done(app, now, record=False)
    (app.settings.archive_dir / orphan).with_name("y.parquet.tmp").write_bytes(b"half")
    assert Archiver(app).run(now).recovered == 2
    assert not (app.settings.archive_dir / orphan).exists()
    assert not list(app.settings.archive_dir.rglob("*.tmp"))
    assert all_rows(app) == before


@pytest.mark.slow
def test_a_recorded_file_that_does_not_verify_is_dropped(app) -> None:
    """A 'written' file whose ids do not match its checksum is dropped with its manifest row; nothing is lost."""
    now = consolidated(app, days=DAYS)
    before = all_rows(app)
    path, rows = half_done(app, now, record=True)
    archive_files.write_file(app.settings.archive_dir, Path(path), rows[:-1])  # one row short
    Archiver(app).run(now)
    with reading(app.engine) as session:
        assert path not in archive_manifest.recorded_paths(session, "maya")
    assert all_rows(app) == before


@pytest.mark.slow
def test_one_archive_run_at_a_time(app) -> None:
    """A second run while one holds the archive directory's lock is refused."""
    now = consolidated(app, days=DAYS)
    with archive_lock(app.settings.archive_dir):
        with pytest.raises(ArchiveBusy):
            Archiver(app).run(now)
