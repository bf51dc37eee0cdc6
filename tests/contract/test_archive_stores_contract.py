"""Contract: the flat-hot-store archive's stores (which summaries may move, the summary manifest's
finish, the archived-id lookup's time gate and hash expiry), whatever the database."""

from __future__ import annotations

import pytest

from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import func, select

from stores.files.archive_files import write_file
from stores.archive_manifest import FileRanges, finish, record_written
from stores.schema.archive import ArchivedId
from stores.archived_lookup import archived_in_files, expire_hashes
from stores.engine import reading, transaction
from stores.ladder_state import advance_seen_announcement
from stores.schema.log import Message
from stores.schema.ladders import Announcement, Summary
from stores.summaries import summary_id, write_summary
from stores.summary_manifest import finish as finish_summaries, record_written as record_summaries
from stores.summary_select import archivable_summaries

DAY0 = datetime(2025, 1, 6, tzinfo=timezone.utc)  # a Monday


def _summary(rung: str, first_day: int, days: int, version: int = 1, kind: str = "passed") -> Summary:
    start = DAY0 + timedelta(days=first_day)
    key = start.date().isoformat()
    return Summary(id=summary_id("s", "time", rung, key, version), scope="s", ladder="time", rung=rung, key=key,
                   version=version, kind=kind, label=key, text=f"{rung} {key} v{version}", sources=[],
                   window_start=start, window_end=start + timedelta(days=days), created_at=start + timedelta(days=days))


def test_an_old_window_moves_with_all_its_versions_once_the_rung_above_and_its_own_rung_moved_past_it(engine) -> None:
    """Days before the cutoff go (every version) when a week with content and a later day with
    content exist after them; the newest day with content and days the weeks have not passed stay."""
    with transaction(engine) as session:
        for day in range(10):
            write_summary(session, _summary("day", day, 1))
        write_summary(session, _summary("day", 1, 1, version=2))
        write_summary(session, _summary("week", 0, 7))  # days 0-6; no week after day 7 yet
    cutoff = DAY0 + timedelta(days=9)
    with reading(engine) as session:
        before_week = archivable_summaries(session, "s", "time", "day", "week", cutoff=cutoff)
    assert before_week == []  # no week starts after any day yet
    with transaction(engine) as session:
        write_summary(session, _summary("week", 7, 7))
    with reading(engine) as session:
        moving = archivable_summaries(session, "s", "time", "day", "week", cutoff=cutoff)
        weeks = archivable_summaries(session, "s", "time", "week", "4w", cutoff=cutoff)
    assert sorted((s.key, s.version) for s in moving) == sorted(
        [((DAY0 + timedelta(days=d)).date().isoformat(), 1) for d in range(7)] + [((DAY0 + timedelta(days=1)).date().isoformat(), 2)])
    assert weeks == []  # no 4w block above them


def test_finishing_a_summary_file_deletes_its_rows_and_only_the_seen_announcements_but_the_newest(engine) -> None:
    """The hot rows go; an announcement the cursor passed goes, one it has not seen and the ladder's newest stay."""
    rows = [_summary("day", d, 1) for d in range(4)]
    with transaction(engine) as session:
        ids = [write_summary(session, row).id for row in rows]
        advance_seen_announcement(session, "s", "time", ids[1])
    with transaction(engine) as session:
        file_id = record_summaries(session, "s", "time", "s/summaries/time/x.parquet", rows, "c", 10, DAY0)
        assert finish_summaries(session, file_id, [r.id for r in rows]) == 4
    with reading(engine) as session:
        assert session.execute(select(func.count()).select_from(Summary)).scalar_one() == 0
        left = sorted(session.execute(select(Announcement.id)).scalars())
    assert left == ids[2:]  # unseen (ids[2]) and newest (ids[3]) stay


def _archived(engine, root: Path, at: datetime) -> str:
    """One message archived in a done file; returns its id."""
    row = ("s:old", "s", 1, at, "user", None, "hello", None, at, 1)
    written = write_file(root, Path("s/2025-01/1-1.parquet"), [row])
    with transaction(engine) as session:
        session.add(Message(id="s:keep", scope="s", seq=2, at=at + timedelta(days=400), role="user", text="newest",
                            received_at=at))
        file_id = record_written(session, "s", "2025-01", str(written.path), 1, written.checksum, written.bytes,
                                 FileRanges(1, 1, at, at, 1, 1), at)
        finish(session, file_id, ["s:old"])
    return "s:old"


@pytest.mark.slow
def test_an_archived_id_is_found_in_its_files_only_for_old_times_and_its_hash_expires(engine, tmp_path) -> None:
    """The files answer for a time at or before the newest archived time; a newer time is not looked
    up there (the hash answers while it is kept); expire_hashes drops a file's hashes once, after `keep`."""
    at = datetime(2025, 1, 8, 9, tzinfo=timezone.utc)
    key = _archived(engine, tmp_path, at)
    with engine.connect() as connection:
        assert archived_in_files(connection, tmp_path, [(key, "s", at)]) == {key}
        assert archived_in_files(connection, tmp_path, [(key, "s", at + timedelta(days=1))]) == set()
        assert archived_in_files(connection, tmp_path, [("s:other", "s", at)]) == set()
    with transaction(engine) as session:
        assert expire_hashes(session, tmp_path, "s", at + timedelta(days=5), timedelta(days=10)) == -1  # too recent
    with transaction(engine) as session:
        assert expire_hashes(session, tmp_path, "s", at + timedelta(days=11), timedelta(days=10)) == 1
    with transaction(engine) as session:
        assert expire_hashes(session, tmp_path, "s", at + timedelta(days=11), timedelta(days=10)) == -1  # done once
    with reading(engine) as session:
        assert session.execute(select(func.count()).select_from(ArchivedId)).scalar_one() == 0
