"""Calendar mapping: local days, DST, ISO weeks, interaction numbers, keys and labels."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest

from hierarchy.calendar import (
    EPOCH,
    block_key,
    block_label,
    count_window,
    day_closes_at,
    day_unit,
    interaction_unit,
    local_day,
    parse_block_key,
    time_window,
    unit_date,
)
from hierarchy.tiling import Block, block_of, count_ladder, time_ladder

TIME = time_ladder()
COUNT = count_ladder()
DAY, WEEK, W4, W12, W52 = range(5)
UTC = timezone.utc
PARIS = ZoneInfo("Europe/Paris")
TOKYO = ZoneInfo("Asia/Tokyo")
ZULU = ZoneInfo("UTC")


def _utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def _in(window: tuple[datetime, datetime], at: datetime) -> bool:
    start, end = window
    return start.astimezone(UTC) <= at.astimezone(UTC) < end.astimezone(UTC)


def _hours(window: tuple[datetime, datetime]) -> float:
    start, end = window
    return (end.astimezone(UTC) - start.astimezone(UTC)) / timedelta(hours=1)


# --- day units -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "unit"),
    [
        (date(1970, 1, 5), 0),
        (date(1970, 1, 4), -1),
        (date(1970, 1, 12), 7),
        (date(2025, 3, 30), 20173),
        (date(2025, 12, 31), 20449),
        (date(2026, 1, 1), 20450),
    ],
)
def test_day_unit_counts_days_from_the_monday_epoch(d, unit):
    """day_unit counts days from Monday 1970-01-05, and unit_date inverts it."""
    assert day_unit(d) == unit
    assert unit_date(unit) == d


def test_epoch_is_a_monday_so_weeks_are_iso_weeks():
    """EPOCH is a Monday: every week block starts on an ISO Monday."""
    assert EPOCH.isoweekday() == 1
    for index in range(-60, 3000, 37):
        assert unit_date(Block(WEEK, index).units(TIME).start).isoweekday() == 1


def test_day_unit_rejects_a_datetime():
    """day_unit takes a date; a datetime (whose day depends on a zone) is a TypeError."""
    with pytest.raises(TypeError, match="local_day"):
        day_unit(datetime(2025, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("at", "tz", "d"),
    [
        (_utc(2025, 3, 29, 23, 30), ZULU, date(2025, 3, 29)),
        (_utc(2025, 3, 29, 23, 30), PARIS, date(2025, 3, 30)),
        (_utc(2025, 3, 29, 14, 59), TOKYO, date(2025, 3, 29)),
        (_utc(2025, 3, 29, 15, 0), TOKYO, date(2025, 3, 30)),
        (datetime(2025, 3, 30, 0, 30, tzinfo=PARIS), ZULU, date(2025, 3, 29)),
        (datetime(2026, 1, 1, 0, 0, tzinfo=PARIS), PARIS, date(2026, 1, 1)),
    ],
)
def test_local_day_uses_the_calendar_date_in_the_given_zone(at, tz, d):
    """local_day is the day unit of the instant's local date in tz, not in its own zone."""
    assert local_day(at, tz) == day_unit(d)


class _NoOffset(tzinfo):
    def utcoffset(self, dt):
        return None


@pytest.mark.parametrize("at", [datetime(2025, 3, 30, 12, 0), datetime(2025, 3, 30, 12, 0, tzinfo=_NoOffset())])
def test_local_day_rejects_naive_datetimes(at):
    """A naive datetime (no tzinfo, or one without an offset) is a ValueError."""
    with pytest.raises(ValueError, match="naive"):
        local_day(at, PARIS)


# --- DST -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tz", "d", "hours", "start_utc", "end_utc"),
    [
        (PARIS, date(2025, 3, 29), 24, _utc(2025, 3, 28, 23), _utc(2025, 3, 29, 23)),
        (PARIS, date(2025, 3, 30), 23, _utc(2025, 3, 29, 23), _utc(2025, 3, 30, 22)),
        (PARIS, date(2025, 10, 26), 25, _utc(2025, 10, 25, 22), _utc(2025, 10, 26, 23)),
        (ZULU, date(2025, 3, 30), 24, _utc(2025, 3, 30), _utc(2025, 3, 31)),
        # midnight itself skipped (00:00 -> 01:00) and repeated (01:00 -> 00:00)
        (ZoneInfo("America/Santiago"), date(2024, 9, 8), 23, _utc(2024, 9, 8, 4), _utc(2024, 9, 9, 3)),
        (ZoneInfo("America/Havana"), date(2024, 11, 3), 25, _utc(2024, 11, 3, 4), _utc(2024, 11, 4, 5)),
    ],
)
def test_day_window_runs_local_midnight_to_local_midnight(tz, d, hours, start_utc, end_utc):
    """A day's window spans its local midnights, so DST days last 23 or 25 hours."""
    window = time_window(TIME, Block(DAY, day_unit(d)), tz)
    start, end = window
    assert start.tzinfo is tz and end.tzinfo is tz
    assert (start.astimezone(UTC), end.astimezone(UTC)) == (start_utc, end_utc)
    assert _hours(window) == hours


@pytest.mark.parametrize(
    ("at", "d"),
    [
        (datetime(2025, 3, 30, 1, 59, tzinfo=PARIS), date(2025, 3, 30)),
        (datetime(2025, 3, 30, 3, 0, tzinfo=PARIS), date(2025, 3, 30)),
        (_utc(2025, 3, 30, 1, 0), date(2025, 3, 30)),
        (datetime(2025, 3, 30, 23, 59, tzinfo=PARIS), date(2025, 3, 30)),
        (datetime(2025, 3, 31, 0, 0, tzinfo=PARIS), date(2025, 3, 31)),
        (datetime(2025, 10, 26, 2, 30, fold=0, tzinfo=PARIS), date(2025, 10, 26)),
        (datetime(2025, 10, 26, 2, 30, fold=1, tzinfo=PARIS), date(2025, 10, 26)),
        (datetime(2025, 10, 26, 23, 59, tzinfo=PARIS), date(2025, 10, 26)),
        (datetime(2025, 10, 25, 23, 59, tzinfo=PARIS), date(2025, 10, 25)),
    ],
)
def test_messages_around_dst_changes_belong_to_their_local_day(at, d):
    """03:00 after the skipped hour and both 02:30s of the repeated hour fall in their local day."""
    assert local_day(at, PARIS) == day_unit(d)
    assert _in(time_window(TIME, Block(DAY, day_unit(d)), PARIS), at)
    for other in (d - timedelta(days=1), d + timedelta(days=1)):
        assert not _in(time_window(TIME, Block(DAY, day_unit(other)), PARIS), at)


def test_the_two_0230s_of_the_repeated_hour_are_an_hour_apart():
    """fold=0 and fold=1 02:30 on 2025-10-26 in Paris are distinct instants one hour apart."""
    first = datetime(2025, 10, 26, 2, 30, fold=0, tzinfo=PARIS).astimezone(UTC)
    second = datetime(2025, 10, 26, 2, 30, fold=1, tzinfo=PARIS).astimezone(UTC)
    assert (first, second) == (_utc(2025, 10, 26, 0, 30), _utc(2025, 10, 26, 1, 30))


@pytest.mark.parametrize(
    ("d", "rung", "hours"),
    [
        (date(2025, 3, 26), WEEK, 7 * 24 - 1),
        (date(2025, 10, 22), WEEK, 7 * 24 + 1),
        (date(2025, 6, 4), WEEK, 7 * 24),
        (date(2025, 3, 30), W4, 28 * 24 - 1),
        (date(2025, 3, 30), W52, 364 * 24),
    ],
)
def test_longer_windows_add_up_their_days(d, rung, hours):
    """A week or longer block in Paris lasts the sum of its (23/24/25-hour) local days."""
    assert _hours(time_window(TIME, block_of(TIME, rung, day_unit(d)), PARIS)) == hours


# --- day closing -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "tz", "grace", "closes"),
    [
        (date(2025, 6, 1), ZULU, timedelta(0), _utc(2025, 6, 2)),
        (date(2025, 6, 1), PARIS, timedelta(0), _utc(2025, 6, 1, 22)),
        (date(2025, 6, 1), PARIS, timedelta(minutes=90), _utc(2025, 6, 1, 23, 30)),
        (date(2025, 3, 30), PARIS, timedelta(hours=2), _utc(2025, 3, 31)),
        (date(2025, 10, 26), PARIS, timedelta(0), _utc(2025, 10, 26, 23)),
        (date(2025, 6, 1), TOKYO, timedelta(minutes=5), _utc(2025, 6, 1, 15, 5)),
    ],
)
def test_day_closes_at_its_local_end_plus_grace(d, tz, grace, closes):
    """day_closes_at is the next local midnight of that day in tz, plus grace, as a UTC datetime."""
    at = day_closes_at(day_unit(d), tz, grace)
    assert at == closes
    assert at.tzinfo is UTC


@pytest.mark.parametrize(
    ("now", "closed"),
    [
        (datetime(2025, 6, 1, 23, 59, tzinfo=PARIS), False),
        (datetime(2025, 6, 2, 0, 0, tzinfo=PARIS), False),
        (datetime(2025, 6, 2, 0, 29, 59, 999999, tzinfo=PARIS), False),
        (datetime(2025, 6, 2, 0, 30, tzinfo=PARIS), True),
        (_utc(2025, 6, 1, 22, 30), True),
        (_utc(2025, 6, 1, 22, 29), False),
    ],
)
def test_a_day_is_still_open_until_its_grace_has_passed(now, closed):
    """Paris 2025-06-01 with 30 min grace is open until 00:30 local on 06-02, closed from then."""
    closes = day_closes_at(day_unit(date(2025, 6, 1)), PARIS, timedelta(minutes=30))
    assert (now >= closes) is closed


def test_day_closes_at_is_the_window_end_plus_grace():
    """day_closes_at agrees with the end of the day's time_window."""
    closes = day_closes_at(day_unit(date(2025, 6, 1)), PARIS, timedelta(minutes=30))
    assert closes == time_window(TIME, Block(DAY, day_unit(date(2025, 6, 1))), PARIS)[1] + timedelta(minutes=30)


def test_negative_grace_is_rejected():
    """A negative grace would close a day before it ends: ValueError."""
    with pytest.raises(ValueError, match="grace"):
        day_closes_at(0, PARIS, timedelta(seconds=-1))


# --- ISO weeks and year ends -----------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "rung", "key", "label", "first", "stop"),
    [
        (date(2021, 1, 3), WEEK, "2020-12-28", "2020-W53", date(2020, 12, 28), date(2021, 1, 4)),
        (date(2020, 12, 28), WEEK, "2020-12-28", "2020-W53", date(2020, 12, 28), date(2021, 1, 4)),
        (date(2027, 1, 1), WEEK, "2026-12-28", "2026-W53", date(2026, 12, 28), date(2027, 1, 4)),
        (date(2027, 1, 4), WEEK, "2027-01-04", "2027-W01", date(2027, 1, 4), date(2027, 1, 11)),
        (date(2025, 12, 31), WEEK, "2025-12-29", "2026-W01", date(2025, 12, 29), date(2026, 1, 5)),
        (date(2026, 1, 1), WEEK, "2025-12-29", "2026-W01", date(2025, 12, 29), date(2026, 1, 5)),
        (date(2025, 12, 31), W4, "2025-12-22", "4w 2025-12-22..2026-01-18", date(2025, 12, 22), date(2026, 1, 19)),
        (date(2026, 1, 1), W4, "2025-12-22", "4w 2025-12-22..2026-01-18", date(2025, 12, 22), date(2026, 1, 19)),
        (date(2025, 12, 21), W4, "2025-11-24", "4w 2025-11-24..2025-12-21", date(2025, 11, 24), date(2025, 12, 22)),
        (date(2025, 3, 30), DAY, "2025-03-30", "2025-03-30 (Sun)", date(2025, 3, 30), date(2025, 3, 31)),
        (date(2025, 3, 30), WEEK, "2025-03-24", "2025-W13", date(2025, 3, 24), date(2025, 3, 31)),
        (date(2025, 3, 30), W4, "2025-03-17", "4w 2025-03-17..2025-04-13", date(2025, 3, 17), date(2025, 4, 14)),
        (date(2025, 3, 30), W12, "2025-03-17", "12w 2025-03-17..2025-06-08", date(2025, 3, 17), date(2025, 6, 9)),
        (date(2025, 3, 30), W52, "2024-10-28", "52w 2024-10-28..2025-10-26", date(2024, 10, 28), date(2025, 10, 27)),
        (date(2026, 12, 28), W52, "2026-10-26", "52w 2026-10-26..2027-10-24", date(2026, 10, 26), date(2027, 10, 25)),
    ],
)
def test_time_blocks_have_iso_keys_labels_and_windows(d, rung, key, label, first, stop):
    """Time blocks: key is the first day, weeks are labelled by ISO week (53 included), windows span whole days."""
    block = block_of(TIME, rung, day_unit(d))
    assert block_key(TIME, block) == key
    assert block_label(TIME, block) == label
    start, end = time_window(TIME, block, PARIS)
    assert (start.date(), start.hour, end.date(), end.hour) == (first, 0, stop, 0)


def test_year_end_does_not_split_a_week_or_4w_block():
    """2025-12-31 and 2026-01-01 lie in the same week and 4w block; blocks ignore years."""
    a, b = day_unit(date(2025, 12, 31)), day_unit(date(2026, 1, 1))
    assert b == a + 1
    assert block_of(TIME, DAY, a) != block_of(TIME, DAY, b)
    for rung in (WEEK, W4, W12, W52):
        assert block_of(TIME, rung, a) == block_of(TIME, rung, b)


# --- count windows ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "window", "key", "label"),
    [
        (Block(0, 0), (1, 1), "1-1", "interactions 1-1"),
        (Block(0, 41), (42, 42), "42-42", "interactions 42-42"),
        (Block(1, 1), (11, 20), "11-20", "interactions 11-20"),
        (Block(2, 0), (1, 40), "1-40", "interactions 1-40"),
        (Block(3, 4), (481, 600), "481-600", "interactions 481-600"),
        (Block(4, 1), (521, 1040), "521-1040", "interactions 521-1040"),
    ],
)
def test_count_blocks_map_to_one_based_interaction_numbers(block, window, key, label):
    """Count block k of size n covers interactions k*n+1 .. (k+1)*n; key and label show them."""
    assert count_window(COUNT, block) == window
    assert block_key(COUNT, block) == key
    assert block_label(COUNT, block) == label
    assert block_of(COUNT, block.rung, interaction_unit(window[0])) == block
    assert block_of(COUNT, block.rung, interaction_unit(window[1])) == block


@pytest.mark.parametrize(("number", "unit"), [(1, 0), (10, 9), (11, 10), (520, 519)])
def test_interaction_unit_is_number_minus_one(number, unit):
    """Interaction n (1-based) is count unit n-1."""
    assert interaction_unit(number) == unit


@pytest.mark.parametrize("number", [0, -1])
def test_interaction_numbers_below_one_are_rejected(number):
    """Interaction numbers start at 1."""
    with pytest.raises(ValueError, match="start at 1"):
        interaction_unit(number)


def test_count_block_before_interaction_one_is_rejected():
    """A count block with a negative index has no interactions: ValueError."""
    with pytest.raises(ValueError, match="before interaction 1"):
        count_window(COUNT, Block(1, -1))


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        (lambda: time_window(COUNT, Block(0, 0), PARIS), "time"),
        (lambda: count_window(TIME, Block(0, 0)), "count"),
    ],
)
def test_window_functions_reject_the_other_ladder_kind(call, kind):
    """time_window needs a time ladder and count_window a count ladder."""
    with pytest.raises(ValueError, match=f"needs a {kind} ladder"):
        call()


# --- parse_block_key -------------------------------------------------------------------


@pytest.mark.parametrize("spec", [TIME, COUNT], ids=["time", "count"])
def test_parse_block_key_inverts_block_key(spec):
    """parse_block_key(block_key(b)) == b for every block of every rung over a period."""
    lowest = -800 if spec.kind == "time" else 0
    for rung, size in enumerate(spec.sizes):
        for index in range(lowest // size, 3000 // size):
            block = Block(rung, index)
            assert parse_block_key(spec, rung, block_key(spec, block)) == block


@pytest.mark.parametrize(
    ("spec", "rung", "key"),
    [
        (TIME, WEEK, "2025-03-25"),
        (TIME, W4, "2025-03-24"),
        (TIME, W52, "2025-01-06"),
        (TIME, DAY, "20250330"),
        (TIME, WEEK, "2025-W13-1"),
        (TIME, DAY, "2025-02-30"),
        (TIME, DAY, "garbage"),
        (TIME, DAY, ""),
        (COUNT, 1, "12-21"),
        (COUNT, 1, "11-21"),
        (COUNT, 1, "11-20 "),
        (COUNT, 1, "011-20"),
        (COUNT, 1, "0-9"),
        (COUNT, 4, "481-1000"),
        (COUNT, 0, "a-b"),
        (COUNT, 0, "5"),
    ],
)
def test_parse_block_key_rejects_malformed_and_misaligned_keys(spec, rung, key):
    """A key that is not exactly the key of a block of that rung is a ValueError."""
    with pytest.raises(ValueError):
        parse_block_key(spec, rung, key)


def test_parse_block_key_names_the_aligned_key_when_misaligned():
    """A misaligned week key says which week key contains it."""
    with pytest.raises(ValueError, match=r"'week'.*'2025-03-24'"):
        parse_block_key(TIME, WEEK, "2025-03-26")
