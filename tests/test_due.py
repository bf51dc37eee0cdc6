"""When a ladder next has work (hierarchy.ladder_due.next_due): a pure function of recorded facts and `now`."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hierarchy.calendar import day_closes_at, day_unit
from hierarchy.ladder_due import LadderFacts, next_due
from hierarchy.tiling import count_ladder, time_ladder

TIME = time_ladder()
COUNT = count_ladder()
PARIS = ZoneInfo("Europe/Paris")
UTC = timezone.utc
GRACE = timedelta(minutes=10)
GAP = timedelta(minutes=30)
MONDAY = day_unit(date(2025, 3, 17))  # the first day of a week, of a 4-week and of a 12-week block
NOW = datetime(2025, 3, 19, 12, 0, tzinfo=UTC)  # the Wednesday after


def due(facts: LadderFacts, now: datetime = NOW) -> datetime | None:
    return next_due(facts, PARIS, GRACE, GAP, now)


def test_a_ladder_never_looked_at_and_without_messages_is_never_due():
    """No facts at all: nothing is due until a message arrives."""
    assert due(LadderFacts(TIME)) is None
    assert due(LadderFacts(COUNT)) is None


def test_unseen_messages_or_announcements_are_due_now():
    """Whatever the stage has not looked at yet is due at once."""
    assert due(LadderFacts(TIME, unseen=True)) == NOW


def test_a_dirty_day_is_due_when_it_closes_in_the_scope_time_zone():
    """Messages of Wednesday: due at Thursday 00:00 Paris plus grace; a day already closed is due now."""
    wednesday = MONDAY + 2
    facts = LadderFacts(TIME, dirty={wednesday: NOW}, woken_through=MONDAY + 1)
    assert due(facts) == day_closes_at(wednesday, PARIS, GRACE) == datetime(2025, 3, 19, 23, 10, tzinfo=UTC)
    late = LadderFacts(TIME, dirty={MONDAY: NOW}, woken_through=MONDAY + 1)
    assert due(late) == NOW


def test_a_spoken_monday_makes_its_week_then_its_month_due_and_then_nothing():
    """After a spoken Monday: the week's close, then the 4 weeks', ... and None once every block closed."""
    week_end = day_closes_at(MONDAY + 6, PARIS, GRACE)
    assert due(LadderFacts(TIME, woken_through=MONDAY + 1, last_content=MONDAY)) == week_end
    after_week = LadderFacts(TIME, woken_through=MONDAY + 6, last_content=MONDAY)
    assert due(after_week) == day_closes_at(MONDAY + 27, PARIS, GRACE)
    years_later = LadderFacts(TIME, woken_through=MONDAY + 800, last_content=MONDAY)
    assert due(years_later, datetime(2027, 6, 1, tzinfo=UTC)) is None


def test_a_silent_scope_is_never_due():
    """A ladder whose cursor moves on but that holds no content has nothing to close."""
    assert due(LadderFacts(TIME, woken_through=MONDAY + 30)) is None


def test_a_held_window_is_due_at_its_next_try_and_hides_its_dirty_base_window():
    """A held day is not due when it closes but when its hold says; the earliest of all wins."""
    retry = NOW + timedelta(minutes=5)
    held = LadderFacts(TIME, dirty={MONDAY: NOW}, held={("day", "2025-03-17"): retry}, woken_through=MONDAY + 1)
    assert due(held) == retry
    both = LadderFacts(TIME, dirty={MONDAY + 2: NOW}, held={("week", "2025-03-10"): NOW + timedelta(days=5)},
                       woken_through=MONDAY + 1)
    assert due(both) == day_closes_at(MONDAY + 2, PARIS, GRACE)


def test_an_interaction_is_due_when_complete():
    """The newest dirty interaction is due `gap` after its last message; an older one (a newer began) now."""
    last = NOW - timedelta(minutes=10)
    assert due(LadderFacts(COUNT, dirty={4: last}, newest_interaction=4)) == last + GAP
    assert due(LadderFacts(COUNT, dirty={3: last, 4: last}, newest_interaction=4)) == NOW
    held = LadderFacts(COUNT, dirty={4: last}, held={("1", "4-4"): NOW + timedelta(hours=2)}, newest_interaction=4)
    assert due(held) == NOW + timedelta(hours=2)
