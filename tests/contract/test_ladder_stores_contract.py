"""Contract: the ladders' stores (cursors, dirty windows, holds, summaries, announcements, log reads), whatever the database."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from consolidator.pipeline.assign import assign_interactions
from stores.engine import reading, transaction
from stores.holds import count_holds, hold_after_failure, hold_until, holds, release
from stores.interactions import interaction_count, last_times
from stores import ladder_state
from stores.message_windows import (
    arrivals_after,
    arrivals_through,
    has_messages_after,
    messages_in_time_window,
    messages_of_interaction,
)
from stores.messages import NewMessage, append_messages
from stores.summaries import (
    announcements_after,
    latest_rows,
    newest_summary,
    newest_versions,
    reusable,
    tally,
    write_summary,
)
from tests.support.summaries_kit import T0, summary, write

GAP = timedelta(minutes=30)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


# --- cursors -------------------------------------------------------------------------------


def test_a_ladder_has_no_progress_until_started_and_starts_at_zero(engine) -> None:
    """progress() is None for a ladder never looked at; start_progress records it with every cursor at zero."""
    with reading(engine) as session:
        assert ladder_state.progress(session, "s", "time") is None
    with transaction(engine) as session:
        assert ladder_state.start_progress(session, "s", "time") == ladder_state.Progress(0, 0, None, None)
    with reading(engine) as session:
        assert ladder_state.progress(session, "s", "time") == ladder_state.Progress(0, 0, None, None)
        assert ladder_state.progress(session, "s", "count") is None


def test_cursors_advance_per_scope_and_ladder(engine) -> None:
    """Each cursor moves for its own (scope, ladder); starting again keeps what was recorded."""
    with transaction(engine) as session:
        ladder_state.advance_seen_seq(session, "s", "time", 12)  # no row yet: it is created
        ladder_state.advance_seen_announcement(session, "s", "time", 7)
        ladder_state.set_announced_days(session, "s", "time", 20100, 20107)
        ladder_state.advance_seen_seq(session, "s", "count", 3)
    with transaction(engine) as session:
        assert ladder_state.start_progress(session, "s", "time") == ladder_state.Progress(12, 7, 20100, 20107)
    with reading(engine) as session:
        assert ladder_state.progress(session, "s", "count") == ladder_state.Progress(3, 0, None, None)
        assert ladder_state.progress(session, "t", "time") is None


def test_the_announcement_cursor_never_goes_back_except_by_rewind(engine) -> None:
    """advance_seen_announcement keeps the larger id; rewind_announcements sets it to zero."""
    with transaction(engine) as session:
        ladder_state.advance_seen_announcement(session, "s", "count", 9)
    with transaction(engine) as session:
        ladder_state.advance_seen_announcement(session, "s", "count", 4)
    with reading(engine) as session:
        assert ladder_state.progress(session, "s", "count").seen_announcement == 9
    with transaction(engine) as session:
        ladder_state.rewind_announcements(session, "s", "count")
    with reading(engine) as session:
        assert ladder_state.progress(session, "s", "count").seen_announcement == 0


# --- dirty windows -------------------------------------------------------------------------


def test_dirty_windows_keep_their_newest_time_and_clear_one_at_a_time(engine) -> None:
    """Marking again keeps the later of two times; clear_dirty removes one window of one ladder only."""
    with transaction(engine) as session:
        ladder_state.mark_dirty(session, "s", "time", {1: at(10), 2: at(20)})
        ladder_state.mark_dirty(session, "s", "count", {1: at(5)})
    with transaction(engine) as session:
        ladder_state.mark_dirty(session, "s", "time", {1: at(1), 2: at(30), 3: at(40)})
    with reading(engine) as session:
        assert ladder_state.dirty_windows(session, "s", "time") == {1: at(10), 2: at(30), 3: at(40)}
    with transaction(engine) as session:
        ladder_state.clear_dirty(session, "s", "time", 2)
        ladder_state.clear_dirty(session, "s", "time", 99)  # not dirty: nothing happens
    with reading(engine) as session:
        assert ladder_state.dirty_windows(session, "s", "time") == {1: at(10), 3: at(40)}
        assert ladder_state.dirty_windows(session, "s", "count") == {1: at(5)}
        assert ladder_state.dirty_windows(session, "t", "time") == {}


@pytest.mark.slow
def test_marking_thousands_of_windows_again_updates_each_once(engine) -> None:
    """A rebuild marks every window of a long history: windows already dirty are updated, never inserted twice."""
    units = range(-3_000, 3_500)  # more windows than one IN list holds; day units may be negative
    with transaction(engine) as session:
        ladder_state.mark_dirty(session, "s", "time", {u: at(0) for u in units if u % 2 == 0})
    with transaction(engine) as session:
        ladder_state.mark_dirty(session, "s", "time", {u: at(1) for u in units})
    with reading(engine) as session:
        found = ladder_state.dirty_windows(session, "s", "time")
    assert len(found) == len(units) and set(found.values()) == {at(1)}


# --- holds ---------------------------------------------------------------------------------


def doubling(attempts: int) -> timedelta:
    return timedelta(seconds=30 * 2 ** (attempts - 1))


def test_failures_count_attempts_and_back_off(engine) -> None:
    """Each failure adds an attempt and holds the window until now plus the delay for that many attempts."""
    with transaction(engine) as session:
        first = hold_after_failure(session, "s", "time", "day", "2025-03-03", T0, "ModelError: no", doubling)
    with transaction(engine) as session:
        second = hold_after_failure(session, "s", "time", "day", "2025-03-03", at(1), "ModelError: again", doubling)
    assert (first, second) == (1, 2)
    with reading(engine) as session:
        (hold,) = holds(session, "s", "time").values()
        assert (hold.rung, hold.key, hold.attempts, hold.reason) == ("day", "2025-03-03", 2, "ModelError: again")
        assert hold.next_at == at(1) + timedelta(seconds=60)
        assert count_holds(session) == {"s": 1}


def test_a_deferral_holds_until_a_time_without_counting_an_attempt(engine) -> None:
    """hold_until sets next_at and the reason and leaves the attempts as they were."""
    reopens = T0 + timedelta(hours=15)
    with transaction(engine) as session:
        assert hold_until(session, "s", "count", "10", "1-10", reopens, "deferred: daily budget") == 0
        hold_after_failure(session, "s", "count", "1", "3-3", T0, "ModelError", doubling)
    with transaction(engine) as session:
        assert hold_until(session, "s", "count", "1", "3-3", reopens, "deferred: daily budget") == 1
    with reading(engine) as session:
        found = holds(session, "s", "count")
    assert {w: (h.attempts, h.next_at, h.reason) for w, h in found.items()} == {
        ("10", "1-10"): (0, reopens, "deferred: daily budget"),
        ("1", "3-3"): (1, reopens, "deferred: daily budget"),
    }


def test_holds_are_per_scope_and_ladder_and_release_forgets_one(engine) -> None:
    """holds() lists one ladder of one scope; release removes one hold and ignores a window with none."""
    with transaction(engine) as session:
        for scope, ladder, key in (("s", "time", "a"), ("s", "time", "b"), ("s", "count", "a"), ("t", "time", "a")):
            hold_until(session, scope, ladder, "day", key, T0, "deferred")
    with transaction(engine) as session:
        release(session, "s", "time", "day", "a")
        release(session, "s", "time", "day", "zzz")
    with reading(engine) as session:
        assert set(holds(session, "s", "time")) == {("day", "b")}
        assert set(holds(session, "s", "count")) == {("day", "a")}
        assert count_holds(session) == {"s": 2, "t": 1}


# --- summaries and announcements -----------------------------------------------------------


def test_a_summary_and_its_announcement_are_written_together(engine) -> None:
    """write_summary announces in the caller's transaction: a rolled-back write leaves neither."""
    with pytest.raises(RuntimeError):
        with transaction(engine) as session:
            write_summary(session, summary("2025-03-03"))
            raise RuntimeError("crash before commit")
    with reading(engine) as session:
        assert announcements_after(session, "s", "time", 0) == []
        assert latest_rows(session, "s", "time", [("day", "2025-03-03")]) == {}
    (announced,) = write(engine, summary("2025-03-03"))
    with reading(engine) as session:
        assert announcements_after(session, "s", "time", 0) == [(announced, "day", "2025-03-03")]
        assert latest_rows(session, "s", "time", [("day", "2025-03-03")])[("day", "2025-03-03")].version == 1


def test_announcements_after_a_cursor_come_oldest_first_per_ladder(engine) -> None:
    """announcements_after lists the ladder's announcements newer than the cursor, in the order they were made."""
    first, second, _, third = write(engine, summary("2025-03-04", order=1), summary("2025-03-03"),
                                    summary("1-1", ladder="count", rung="1", order=1), summary("2025-W10", rung="week"))
    with reading(engine) as session:
        assert announcements_after(session, "s", "time", first) == [(second, "day", "2025-03-03"), (third, "week", "2025-W10")]
        assert announcements_after(session, "s", "time", third) == []
        assert [key for _, _, key in announcements_after(session, "s", "count", 0)] == ["1-1"]
        assert announcements_after(session, "t", "time", 0) == []


def test_summaries_are_versioned_and_the_newest_version_wins(engine) -> None:
    """A window written twice keeps both rows; latest_rows and newest_versions return the newer one."""
    write(engine, summary("2025-03-03", text="old"), summary("2025-03-04", order=1), summary("2025-03-03", 2, text="new"))
    with reading(engine) as session:
        latest = latest_rows(session, "s", "time", [("day", "2025-03-03"), ("day", "2025-03-04"), ("day", "2025-03-09")])
        assert {w: (s.version, s.text) for w, s in latest.items()} == {
            ("day", "2025-03-03"): (2, "new"), ("day", "2025-03-04"): (1, "text"),
        }
        assert [(s.key, s.version) for s in newest_versions(session, "s", "time", "day")] == [
            ("2025-03-03", 2), ("2025-03-04", 1),
        ]


@pytest.mark.parametrize("ladder, rung", [("time", "week"), ("count", "10")])
def test_the_newest_window_with_content_skips_empty_ones(engine, ladder: str, rung: str) -> None:
    """newest_summary: the latest window that is not empty (by its start or first number), newest version."""
    write(engine, summary("a", ladder=ladder, rung=rung, order=1), summary("b", ladder=ladder, rung=rung, order=2),
          summary("b", 2, ladder=ladder, rung=rung, order=2, text="b again"),
          summary("c", ladder=ladder, rung=rung, order=3, kind="empty"))
    with reading(engine) as session:
        found = newest_summary(session, "s", ladder, rung)
        assert (found.key, found.version, found.text) == ("b", 2, "b again")
        assert newest_summary(session, "s", ladder, "other") is None


def test_only_a_summarized_row_of_the_same_scope_is_reusable(engine) -> None:
    """reusable finds a model call's summary by input hash within its scope; passed rows are not reused."""
    write(engine, summary("a", kind="passed", input_hash="h1"), summary("b", kind="summarized", input_hash="h2"),
          summary("c", kind="summarized", input_hash="h3", scope="t"))
    with reading(engine) as session:
        assert reusable(session, "s", "h1") is None
        assert reusable(session, "s", "h2").key == "b"
        assert reusable(session, "s", "h3") is None


def test_tally_counts_rows_and_the_largest_input_per_kind_in_a_time_range(engine) -> None:
    """tally groups by (ladder, rung, kind) over [created_from, created_before); open ends mean no bound."""
    write(engine, summary("a", kind="summarized", input_tokens=500, created_at=at(0)),
          summary("b", kind="summarized", input_tokens=900, created_at=at(60), order=1),
          summary("c", kind="empty", created_at=at(60), order=2),
          summary("1-1", ladder="count", rung="1", kind="reused", created_at=at(120)))
    with reading(engine) as session:
        everything = tally(session)
        first_hour = tally(session, at(0), at(60))
        later = tally(session, created_from=at(60))
    assert {k: (t.rows, t.largest_input) for k, t in everything.items()} == {
        ("time", "day", "summarized"): (2, 900), ("time", "day", "empty"): (1, 0), ("count", "1", "reused"): (1, 0),
    }
    assert {k: (t.rows, t.largest_input) for k, t in first_hour.items()} == {("time", "day", "summarized"): (1, 500)}
    assert set(later) == {("time", "day", "summarized"), ("time", "day", "empty"), ("count", "1", "reused")}


# --- the message log as the ladders read it ------------------------------------------------


def log(engine, *minutes: float, scope: str = "s") -> None:
    """One message per time, logged in the order given (so arrival order may differ from time order)."""
    messages = [NewMessage(scope, at(m), "user", f"said at {m}", id=f"{scope}-{i}") for i, m in enumerate(minutes)]
    append_messages(engine, messages, T0)


def test_arrivals_after_a_cursor_show_which_are_not_yet_placed(engine) -> None:
    """arrivals_after lists (seq, at, interaction) in arrival order; interaction is None until placed."""
    log(engine, 0, 5, 100)
    with reading(engine) as session:
        assert has_messages_after(session, "s", 0) and not has_messages_after(session, "s", 3)
        assert [(a.seq, a.at, a.interaction) for a in arrivals_after(session, "s", 1)] == [(2, at(5), None), (3, at(100), None)]
    assign_interactions(engine, "s", GAP)
    with reading(engine) as session:
        assert [(a.seq, a.interaction) for a in arrivals_after(session, "s", 0)] == [(1, 1), (2, 1), (3, 2)]
        assert arrivals_after(session, "t", 0) == []


def test_arrivals_through_a_cursor_from_a_time_on(engine) -> None:
    """arrivals_through stops at the cursor and, given `since`, starts at that time."""
    log(engine, 0, 50, 100, 150)
    with reading(engine) as session:
        assert sorted(a.seq for a in arrivals_through(session, "s", 3)) == [1, 2, 3]
        assert sorted(a.seq for a in arrivals_through(session, "s", 3, since=at(50))) == [2, 3]


def test_a_time_window_is_half_open_capped_by_the_cursor_and_in_time_order(engine) -> None:
    """messages_in_time_window: start <= at < end, seq <= through_seq, ordered by time then arrival."""
    log(engine, 30, 10, 60, 10, 20)
    with reading(engine) as session:
        found = messages_in_time_window(session, "s", 4, at(10), at(60))
    assert [(m.seq, m.at) for m in found] == [(2, at(10)), (4, at(10)), (1, at(30))]


def test_an_interaction_s_messages_in_time_order(engine) -> None:
    """messages_of_interaction returns one interaction's messages up to the cursor, oldest first."""
    log(engine, 5, 0, 200, 10)
    assign_interactions(engine, "s", GAP)
    with reading(engine) as session:
        assert [m.seq for m in messages_of_interaction(session, "s", 4, 1)] == [2, 1, 4]
        assert [m.seq for m in messages_of_interaction(session, "s", 3, 1)] == [2, 1]
        assert [m.seq for m in messages_of_interaction(session, "s", 4, 2)] == [3]


def test_interactions_last_times_and_count(engine) -> None:
    """last_times gives each existing interaction's newest message time; interaction_count counts per scope or all."""
    log(engine, 0, 10, 200)
    log(engine, 0, scope="t")
    assign_interactions(engine, "s", GAP)
    assign_interactions(engine, "t", GAP)
    with reading(engine) as session:
        assert last_times(session, "s", [1, 2, 3]) == {1: at(10), 2: at(200)}
        assert (interaction_count(session, "s"), interaction_count(session)) == (2, 3)
