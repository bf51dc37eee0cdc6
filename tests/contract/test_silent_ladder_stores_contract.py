"""Contract: the reads that let silent windows write nothing and an idle scope be left alone, whatever the database."""

from __future__ import annotations

from datetime import timedelta

from stores.engine import reading, transaction
from stores.holds import hold_until, scope_holds
from stores.ladder_state import (
    Progress,
    advance_seen_seq,
    mark_dirty,
    scope_dirty_windows,
    scope_progress,
    set_announced_days,
    wake_through,
)
from stores.summaries import keys_with_content, newest_announcements, newest_content_start
from tests.support.summaries_kit import T0, summary, write


def test_scope_progress_reads_every_ladder_of_one_scope(engine) -> None:
    """scope_progress: ladder -> state for the scope's ladders only; none for a scope never looked at."""
    with transaction(engine) as session:
        advance_seen_seq(session, "s", "time", 4)
        advance_seen_seq(session, "s", "count", 3)
        advance_seen_seq(session, "t", "time", 9)
    with reading(engine) as session:
        assert scope_progress(session, "s") == {"time": Progress(4, 0, None, None), "count": Progress(3, 0, None, None)}
        assert scope_progress(session, "u") == {}


def test_the_wake_cursor_starts_where_set_and_never_goes_back(engine) -> None:
    """wake_through sets through_unit the first time, then only moves it forward; first_unit is left alone."""
    with transaction(engine) as session:
        wake_through(session, "s", "time", 20100)
    with transaction(engine) as session:
        wake_through(session, "s", "time", 20090)
    with reading(engine) as session:
        assert scope_progress(session, "s")["time"].through_unit == 20100
    with transaction(engine) as session:
        set_announced_days(session, "s", "time", 20050, 20100)
        wake_through(session, "s", "time", 20107)
    with reading(engine) as session:
        assert scope_progress(session, "s")["time"] == Progress(0, 0, 20050, 20107)


def test_dirty_windows_and_holds_of_a_scope_come_per_ladder_in_one_read(engine) -> None:
    """scope_dirty_windows and scope_holds group the scope's rows by ladder and leave other scopes out."""
    with transaction(engine) as session:
        mark_dirty(session, "s", "time", {20100: T0, 20101: T0 + timedelta(hours=1)})
        mark_dirty(session, "s", "count", {7: T0})
        mark_dirty(session, "t", "time", {20100: T0})
        hold_until(session, "s", "time", "week", "2025-03-03", T0 + timedelta(minutes=5), "deferred")
        hold_until(session, "t", "count", "1", "7-7", T0, "deferred")
    with reading(engine) as session:
        assert scope_dirty_windows(session, "s") == {"time": {20100: T0, 20101: T0 + timedelta(hours=1)}, "count": {7: T0}}
        assert scope_holds(session, "s") == {"time": {("week", "2025-03-03"): T0 + timedelta(minutes=5)}}
        assert scope_dirty_windows(session, "u") == {} and scope_holds(session, "u") == {}


def test_newest_announcements_per_ladder(engine) -> None:
    """newest_announcements: the id of each ladder's newest announcement, for one scope."""
    first, second, third = write(engine, summary("2025-03-03"), summary("1-1", ladder="count", rung="1", order=1),
                                 summary("2025-03-04", order=1))
    write(engine, summary("2025-03-05", scope="t", order=2))
    with reading(engine) as session:
        assert newest_announcements(session, "s") == {"time": third, "count": second}
        assert newest_announcements(session, "u") == {}
    assert first < third


def test_the_newest_window_start_with_content_and_the_keys_with_content_in_a_range(engine) -> None:
    """newest_content_start skips empty rows; keys_with_content keeps windows whose newest version says something."""
    write(engine, summary("2025-03-03"), summary("2025-03-04", order=1, kind="empty"),
          summary("2025-03-05", order=2), summary("2025-03-05", 2, order=2, kind="empty"),
          summary("2025-03-06", order=3, kind="empty"), summary("2025-03-06", 2, order=3),
          summary("2025-03-10", order=7, kind="empty"))
    with reading(engine) as session:
        assert newest_content_start(session, "s", "time", "day") == T0 + timedelta(days=3)
        assert newest_content_start(session, "s", "time", "week") is None
        keys = keys_with_content(session, "s", "time", "day", T0, T0 + timedelta(days=7))
        assert keys == {"2025-03-03", "2025-03-06"}  # 03-05 taken back, 03-04 and 03-10 empty or outside
        assert keys_with_content(session, "s", "time", "day", T0 + timedelta(days=1), T0 + timedelta(days=3)) == set()
