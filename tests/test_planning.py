"""Ladder planning as pure functions of recorded state and `now` (no database, no clock)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from hierarchy.calendar import day_unit, local_day
from hierarchy.planning import (
    Action,
    Known,
    closed_through,
    closing_blocks,
    complete_interactions,
    days_to_write,
    decide_block,
    next_closing,
    settled_empty,
)
from hierarchy.tiling import Block, count_ladder, inputs_of, time_ladder

TIME = time_ladder()
COUNT = count_ladder()
PARIS = ZoneInfo("Europe/Paris")
UTC = timezone.utc
GRACE = timedelta(minutes=10)


def known(block: Block, version: int = 1, empty: bool = False, tokens: int = 50, sources=()) -> Known:
    return Known(f"{block.rung}/{block.index}@{version}", version, empty, tokens, tuple(sources))


def week(d: str) -> Block:
    return Block(1, day_unit(datetime.fromisoformat(d).date()) // 7)


def days_of(block: Block) -> list[Block]:
    return list(inputs_of(TIME, block))


# --- deciding a higher block -----------------------------------------------------------------


def test_block_with_a_missing_input_waits_and_names_it():
    """A week whose Sunday is not announced waits, and says which input is missing."""
    w = week("2025-03-03")
    inputs = days_of(w)
    state = {b: known(b) for b in inputs[:-1]}
    decision = decide_block(TIME, w, state, 400)
    assert decision.action is Action.WAIT and decision.missing == (inputs[-1],)


@pytest.mark.parametrize(
    "empties, tokens, action",
    [
        (7, 50, Action.EMPTY),  # all seven days silent: empty for free
        (6, 350, Action.PASS),  # a single non-empty input is passed through as is
        (5, 150, Action.PASS),  # two inputs that fit the budget together
        (5, 250, Action.SUMMARIZE),  # two inputs over the budget: one call
        (0, 50, Action.SUMMARIZE),  # seven inputs of 50 tokens = 350 + ... over 300
    ],
)
def test_decide_week(empties, tokens, action):
    """Empty, passed-through or summarised follows from the inputs' emptiness and size."""
    w = week("2025-03-03")
    state = {b: known(b, empty=i < empties, tokens=tokens) for i, b in enumerate(days_of(w))}
    assert decide_block(TIME, w, state, 300).action is action


def test_up_to_date_block_is_skipped_until_an_input_changes():
    """A block written from exactly the inputs' latest versions is skipped; a new input version re-opens it."""
    w = week("2025-03-03")
    inputs = days_of(w)
    state = {b: known(b) for b in inputs}
    ids = tuple(state[b].summary_id for b in inputs)
    state[w] = known(w, sources=ids)
    assert decide_block(TIME, w, state, 400).action is Action.SKIP
    state[inputs[2]] = known(inputs[2], version=2)
    decision = decide_block(TIME, w, state, 400)
    assert decision.action is not Action.SKIP and decision.input_ids[2].endswith("@2")


def test_count_520_reads_remainder_blocks():
    """A 520 block whose 120-blocks do not tile it waits on the 40-blocks of its remainder."""
    block = Block(4, 1)  # interactions 521..1040
    inputs = inputs_of(COUNT, block)
    assert [COUNT.rungs[b.rung].name for b in inputs] == ["40", "40", "120", "120", "120", "40", "40"]
    state = {b: known(b) for b in inputs if b.rung == 3}
    assert set(decide_block(COUNT, block, state, 400).missing) == {b for b in inputs if b.rung == 2}


def test_base_blocks_are_not_decided_here():
    """Base windows come from the raw log; asking to decide one is a programming error."""
    with pytest.raises(ValueError):
        decide_block(TIME, Block(0, 10), {}, 400)


# --- closing days ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "now_local, closed_day",
    [
        ("2025-03-04 00:09", "2025-03-02"),  # Monday not closed until 00:10 Tuesday
        ("2025-03-04 00:10", "2025-03-03"),
        ("2025-03-31 00:09", "2025-03-29"),  # the 23-hour day of 2025-03-30
        ("2025-03-31 00:10", "2025-03-30"),
        ("2025-10-27 00:10", "2025-10-26"),  # the 25-hour day of 2025-10-26
        ("2026-01-01 00:10", "2025-12-31"),  # year end
    ],
)
def test_closed_through_paris(now_local, closed_day):
    """A day closes at local midnight plus grace, DST days and year ends included."""
    now = datetime.fromisoformat(now_local).replace(tzinfo=PARIS).astimezone(UTC)
    assert closed_through(PARIS, GRACE, now) == day_unit(datetime.fromisoformat(closed_day).date())


@pytest.mark.parametrize(
    "local, day",
    [
        (datetime(2025, 3, 30, 3, 0, tzinfo=PARIS), "2025-03-30"),  # just after the skipped hour
        (datetime(2025, 10, 26, 2, 30, fold=0, tzinfo=PARIS), "2025-10-26"),  # first 02:30
        (datetime(2025, 10, 26, 2, 30, fold=1, tzinfo=PARIS), "2025-10-26"),  # repeated 02:30
        (datetime(2025, 10, 26, 23, 59, tzinfo=PARIS), "2025-10-26"),
    ],
)
def test_dst_messages_land_in_their_local_day(local, day):
    """Messages in the skipped and repeated hours belong to the local day they were said on."""
    assert local_day(local.astimezone(UTC), PARIS) == day_unit(datetime.fromisoformat(day).date())


# --- planning days ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dirty, closed, write",
    [
        ([], 100, []),  # nothing logged: nothing written, not even the silent days
        ([101], 100, []),  # today's messages wait for the day to close
        ([98], 100, [98]),  # the silent days after it are not written
        ([99, 95, 104], 103, [95, 99]),  # late data re-opens old days, oldest first; an open day waits
    ],
)
def test_days_to_write(dirty, closed, write):
    """Only closed days that received messages are written from the log."""
    assert list(days_to_write(dirty, closed)) == write


def test_silent_inputs_are_complete_only_when_closed_clean_and_without_content():
    """A day or week with no summary is empty once closed, not dirty and holding no day with content."""
    w = week("2025-03-03")
    days = days_of(w)
    monday = days[0].index
    closed = days[-1].index
    assert settled_empty(TIME, days, closed, dirty=(), content=()) == frozenset(days)
    assert settled_empty(TIME, days, closed - 1, dirty=(), content=()) == frozenset(days[:-1])  # Sunday is open
    assert settled_empty(TIME, days, closed, dirty={monday}, content=()) == frozenset(days[1:])  # Monday waits
    month = Block(2, monday // 28)
    weeks = [b for b in inputs_of(TIME, month)]
    assert w in weeks
    quiet = settled_empty(TIME, weeks, weeks[-1].units(TIME).stop, dirty=(), content={monday + 2})
    assert quiet == frozenset(weeks) - {w}  # the week with a spoken day is missing until written
    with pytest.raises(ValueError):
        settled_empty(COUNT, [Block(0, 1)], 5, (), ())


def test_week_of_one_spoken_day_passes_it_and_a_silent_week_is_empty():
    """Six silent days without rows and one spoken day: the week passes the day through; seven: empty."""
    w = week("2025-03-03")
    days = days_of(w)
    spoken = {days[3]: known(days[3], tokens=40)}
    decision = decide_block(TIME, w, spoken, 300, empty=set(days) - {days[3]})
    assert decision.action is Action.PASS
    assert decision.input_ids == ("", "", "", spoken[days[3]].summary_id, "", "", "")
    assert decide_block(TIME, w, {}, 300, empty=days).action is Action.EMPTY
    assert decide_block(TIME, w, spoken, 300, empty=days[:3]).missing == tuple(days[4:])


def test_closing_days_wake_only_the_blocks_that_may_hold_content():
    """Days closing after the cursor wake each higher block they complete, unless it starts after the last content."""
    monday = day_unit(datetime(2025, 3, 17).date())  # first day of a week and of a 4-week block
    assert monday % 28 == 0
    sunday = monday + 6
    assert closing_blocks(TIME, monday, sunday - 1, monday) == ()  # the week is still open
    assert closing_blocks(TIME, monday, sunday, monday) == (Block(1, monday // 7),)
    assert closing_blocks(TIME, sunday, monday + 27, monday) == (Block(2, monday // 28),)  # later weeks are silent
    assert closing_blocks(TIME, monday, monday + 27, None) == ()  # no content at all
    late = closing_blocks(TIME, monday - 1, monday + 27, monday + 20)  # a cursor far behind
    assert late == (*(Block(1, k) for k in range(monday // 7, monday // 7 + 3)), Block(2, monday // 28))


def test_next_closing_is_the_end_of_the_first_block_still_open_around_content():
    """After the week of a spoken Monday closes, the next block due is its 4 weeks, then its 12 weeks."""
    monday = day_unit(datetime(2025, 3, 17).date())  # first day of a week and of a 4-week block
    assert next_closing(TIME, monday, monday) == monday + 6
    assert next_closing(TIME, monday + 6, monday) == monday + 27
    twelve = Block(3, monday // 84).units(TIME)
    assert next_closing(TIME, monday + 27, monday) == min(twelve.stop - 1, Block(4, monday // 364).units(TIME).stop - 1)
    assert next_closing(TIME, monday + 400, monday) is None  # every block holding it has closed
    assert next_closing(TIME, monday, None) is None


def test_complete_interactions():
    """Only dirty interactions that a newer one followed, or that went quiet for the gap, are written."""
    t = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
    dirty = {1: t, 2: t + timedelta(minutes=50), 3: t + timedelta(minutes=55)}
    gap = timedelta(minutes=30)
    assert complete_interactions(dirty, 3, gap, t + timedelta(minutes=60)) == (1, 2)
    assert complete_interactions(dirty, 3, gap, t + timedelta(minutes=85)) == (1, 2, 3)


def test_inputs_before_the_scope_history_count_as_empty():
    """A 4-week block that starts before the scope's first day does not wait for days never logged."""
    first = day_unit(datetime(2025, 3, 3).date())
    block = Block(2, first // 28)
    inputs = inputs_of(TIME, block)
    state = {b: known(b) for b in inputs if b.units(TIME).stop > first}
    assert decide_block(TIME, block, state, 400).action is Action.WAIT
    decision = decide_block(TIME, block, state, 400, floor=first)
    assert decision.action is not Action.WAIT and "" in decision.input_ids
