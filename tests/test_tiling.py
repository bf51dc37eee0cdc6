"""Ladder tiling: how each rung's blocks are covered by lower blocks."""

from __future__ import annotations

import math

import pytest

from hierarchy.tiling import (
    MAX_INPUTS_LIMIT,
    Block,
    LadderSpec,
    RungSpec,
    _cover_count,
    _inputs_bound,
    block_of,
    count_ladder,
    inputs_of,
    max_inputs,
    readers_of,
    time_ladder,
)

TIME = time_ladder()
COUNT = count_ladder()
LADDERS = {"time": TIME, "count": COUNT}


def _period(spec: LadderSpec) -> int:
    return math.lcm(*spec.sizes)


def _all_blocks(spec: LadderSpec, periods: int = 3, start_period: int = -1):
    """Every block of every rung over ``periods`` full periods (starting before unit 0)."""
    first_unit = start_period * _period(spec)
    last_unit = first_unit + periods * _period(spec)
    for rung, size in enumerate(spec.sizes):
        for index in range(first_unit // size, last_unit // size):
            yield Block(rung, index)


def _spans(spec: LadderSpec, blocks) -> list[tuple[str, int, int]]:
    return [(spec.rungs[b.rung].name, b.units(spec).start, b.units(spec).stop - 1) for b in blocks]


# --- ladder construction -------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "names", "sizes"),
    [
        (TIME, ("day", "week", "4w", "12w", "52w"), (1, 7, 28, 84, 364)),
        (COUNT, ("1", "10", "40", "120", "520"), (1, 10, 40, 120, 520)),
        (time_ladder(("day", "week", "2w")), ("day", "week", "2w"), (1, 7, 14)),
        (count_ladder((1, 5)), ("1", "5"), (1, 5)),
    ],
)
def test_ladder_factories_name_and_size_rungs(spec, names, sizes):
    """time_ladder sizes rungs in days (<N>w = 7N) and count_ladder names rungs by size."""
    assert tuple(r.name for r in spec.rungs) == names
    assert spec.sizes == sizes


@pytest.mark.parametrize("name", ["month", "0w", "04w", "w", "4d", "", "４w"])
def test_time_ladder_rejects_unknown_rung_names(name):
    """An unknown time rung name is a ValueError naming it."""
    with pytest.raises(ValueError, match=repr(name)):
        time_ladder(("day", name))


@pytest.mark.parametrize(
    ("rungs", "named", "why"),
    [
        ((RungSpec("d", 2), RungSpec("w", 14)), "'d'", "base rung must have size 1"),
        ((RungSpec("d", 1), RungSpec("w", 7), RungSpec("x", 7)), "'x'", "must exceed"),
        ((RungSpec("d", 1), RungSpec("w", 7), RungSpec("x", 5)), "'x'", "must exceed"),
        ((RungSpec("d", 1), RungSpec("d", 7)), "'d'", "duplicate"),
        ((RungSpec("d", 1), RungSpec("big", 17)), "'big'", "17 inputs"),
        ((RungSpec("d", 1), RungSpec("w", 7), RungSpec("odd", 125)), "'odd'", "more than 16"),
        ((RungSpec("d", 1), RungSpec("z", 0)), "'z'", "positive int"),
        ((RungSpec("d", 1), RungSpec("f", 2.5)), "'f'", "positive int"),
    ],
)
def test_invalid_ladders_are_rejected_naming_the_rung(rungs, named, why):
    """LadderSpec validation raises ValueError naming the offending rung and the reason."""
    with pytest.raises(ValueError, match=why) as err:
        LadderSpec("count", rungs)
    assert named in str(err.value)


def test_empty_ladder_and_bad_kind_are_rejected():
    """A ladder needs at least one rung and a kind of 'time' or 'count'."""
    with pytest.raises(ValueError, match="no rungs"):
        LadderSpec("time", ())
    with pytest.raises(ValueError, match="kind"):
        LadderSpec("days", (RungSpec("d", 1),))  # type: ignore[arg-type]


def test_count_ladder_with_too_many_inputs_is_rejected():
    """count_ladder((1, 10, 200)) is rejected: a 200-block would read 20 ten-blocks."""
    with pytest.raises(ValueError, match="'200'.*20 inputs"):
        count_ladder((1, 10, 200))


def test_single_rung_ladder_is_valid_and_reads_nothing():
    """A ladder of only the base rung is valid; its blocks read nothing and max_inputs is 0."""
    spec = count_ladder((1,))
    assert inputs_of(spec, Block(0, 5)) == ()
    assert max_inputs(spec) == 0


@pytest.mark.parametrize(
    ("spec", "name", "index"),
    [(TIME, "day", 0), (TIME, "week", 1), (TIME, "52w", 4), (COUNT, "1", 0), (COUNT, "120", 3)],
)
def test_rung_index_finds_rungs_by_name(spec, name, index):
    """rung_index maps a rung name to its position in the ladder."""
    assert spec.rung_index(name) == index


def test_rung_index_of_unknown_rung_names_it_and_the_valid_ones():
    """rung_index of an unknown name is a ValueError listing the valid rungs."""
    with pytest.raises(ValueError, match=r"'month'.*'day', 'week', '4w', '12w', '52w'"):
        TIME.rung_index("month")


# --- blocks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "rung", "unit", "block", "units"),
    [
        (TIME, 0, 5, Block(0, 5), range(5, 6)),
        (TIME, 1, 6, Block(1, 0), range(0, 7)),
        (TIME, 1, 7, Block(1, 1), range(7, 14)),
        (TIME, 1, -1, Block(1, -1), range(-7, 0)),
        (TIME, 4, 363, Block(4, 0), range(0, 364)),
        (TIME, 4, 364, Block(4, 1), range(364, 728)),
        (COUNT, 1, 10, Block(1, 1), range(10, 20)),
        (COUNT, 4, 1039, Block(4, 1), range(520, 1040)),
    ],
)
def test_block_of_finds_the_aligned_block_containing_a_unit(spec, rung, unit, block, units):
    """block_of floors the unit to its rung's aligned block (also before unit 0)."""
    assert block_of(spec, rung, unit) == block
    assert block.units(spec) == units


def test_block_of_an_unknown_rung_is_rejected():
    """A rung index outside the ladder is a ValueError."""
    with pytest.raises(ValueError, match="out of range"):
        block_of(COUNT, 5, 0)
    with pytest.raises(ValueError, match="out of range"):
        Block(-1, 0).units(COUNT)


# --- inputs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "block", "spans"),
    [
        (COUNT, Block(0, 3), []),
        (COUNT, Block(1, 1), [("1", u, u) for u in range(10, 20)]),
        (COUNT, Block(2, 1), [("10", 40, 49), ("10", 50, 59), ("10", 60, 69), ("10", 70, 79)]),
        (COUNT, Block(3, 1), [("40", 120, 159), ("40", 160, 199), ("40", 200, 239)]),
        (
            COUNT,
            Block(4, 0),
            [("120", 0, 119), ("120", 120, 239), ("120", 240, 359), ("120", 360, 479), ("40", 480, 519)],
        ),
        (
            COUNT,
            Block(4, 1),
            [
                ("40", 520, 559),
                ("40", 560, 599),
                ("120", 600, 719),
                ("120", 720, 839),
                ("120", 840, 959),
                ("40", 960, 999),
                ("40", 1000, 1039),
            ],
        ),
        (
            COUNT,
            Block(4, 2),
            [("40", 1040, 1079), ("120", 1080, 1199), ("120", 1200, 1319), ("120", 1320, 1439), ("120", 1440, 1559)],
        ),
        (TIME, Block(1, 0), [("day", u, u) for u in range(7)]),
        (TIME, Block(2, 1), [("week", 28, 34), ("week", 35, 41), ("week", 42, 48), ("week", 49, 55)]),
        (TIME, Block(3, 0), [("4w", 0, 27), ("4w", 28, 55), ("4w", 56, 83)]),
        (TIME, Block(4, 0), [("12w", 0, 83), ("12w", 84, 167), ("12w", 168, 251), ("12w", 252, 335), ("4w", 336, 363)]),
        (
            TIME,
            Block(4, 1),
            [
                ("4w", 364, 391),
                ("4w", 392, 419),
                ("12w", 420, 503),
                ("12w", 504, 587),
                ("12w", 588, 671),
                ("4w", 672, 699),
                ("4w", 700, 727),
            ],
        ),
        (TIME, Block(4, 2), [("4w", 728, 755), ("12w", 756, 839), ("12w", 840, 923), ("12w", 924, 1007), ("12w", 1008, 1091)]),
        (TIME, Block(4, -1), [("4w", -364, -337), ("12w", -336, -253), ("12w", -252, -169), ("12w", -168, -85), ("12w", -84, -1)]),
    ],
)
def test_inputs_of_covers_a_block_with_the_rung_below_and_fills_remainders(spec, block, spans):
    """inputs_of uses the rung below where it fits and the largest lower rung in the gaps."""
    assert _spans(spec, inputs_of(spec, block)) == spans


@pytest.mark.parametrize("kind", ["time", "count"])
def test_union_of_inputs_is_exactly_the_block(kind):
    """For every block of every rung over three periods, its inputs tile its units in order."""
    spec = LADDERS[kind]
    checked = 0
    for block in _all_blocks(spec):
        inputs = inputs_of(spec, block)
        if block.rung == 0:
            assert inputs == ()
            continue
        covered = [u for b in inputs for u in b.units(spec)]
        assert covered == list(block.units(spec)), block
        assert all(b.rung < block.rung for b in inputs), block
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "sizes", [(1, 10, 40, 120, 520), (1, 7, 28, 84, 364), (1, 3, 5, 7), (1, 2, 6, 10, 30), (1, 4, 9)]
)
def test_union_of_inputs_is_exactly_the_block_for_other_ladders(sizes):
    """The cover is exact for ladders whose sizes do not divide one another, too."""
    spec = count_ladder(sizes)
    for block in _all_blocks(spec, periods=2):
        covered = [u for b in inputs_of(spec, block) for u in b.units(spec)]
        assert covered == ([] if block.rung == 0 else list(block.units(spec))), block


# --- readers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "block", "readers"),
    [
        (COUNT, Block(0, 0), (Block(1, 0),)),
        (COUNT, Block(2, 12), (Block(3, 4), Block(4, 0))),
        (COUNT, Block(3, 4), ()),
        (COUNT, Block(2, 13), (Block(3, 4), Block(4, 1))),
        (COUNT, Block(3, 5), (Block(4, 1),)),
        (COUNT, Block(4, 1), ()),
        (TIME, Block(2, 12), (Block(3, 4), Block(4, 0))),
        (TIME, Block(3, 4), ()),
        (TIME, Block(1, 0), (Block(2, 0),)),
    ],
)
def test_readers_of_lists_the_higher_blocks_reading_a_block(spec, block, readers):
    """readers_of names each higher block that reads this one; a straddling block has none."""
    assert readers_of(spec, block) == readers


@pytest.mark.parametrize("kind", ["time", "count"])
def test_readers_of_is_consistent_with_inputs_of(kind):
    """B is in readers_of(b) iff b is in inputs_of(B), for every block over three periods."""
    spec = LADDERS[kind]
    expected: dict[Block, list[Block]] = {}
    blocks = list(_all_blocks(spec))  # whole periods: every block's containing blocks are here
    for reader in blocks:
        for b in inputs_of(spec, reader):
            expected.setdefault(b, []).append(reader)
    for block in blocks:
        readers = readers_of(spec, block)
        assert list(readers) == sorted(readers), block
        assert len({r.rung for r in readers}) == len(readers), block
        assert set(readers) == set(expected.get(block, [])), block


# --- max_inputs ------------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "expected"), [(TIME, 7), (COUNT, 10)])
def test_max_inputs_of_the_default_ladders(spec, expected):
    """Default ladders read at most 7 (time: a 52w block) and 10 (count: ten single interactions)."""
    assert max_inputs(spec) == expected


@pytest.mark.parametrize("sizes", [(1, 10, 40, 120, 520), (1, 7, 28, 84, 364), (1, 3, 5, 7), (1, 4, 9)])
def test_max_inputs_equals_brute_force_over_two_periods(sizes):
    """max_inputs equals the largest inputs_of seen over two full periods."""
    spec = count_ladder(sizes)
    brute = max(len(inputs_of(spec, b)) for b in _all_blocks(spec, periods=2))
    assert max_inputs(spec) == brute <= MAX_INPUTS_LIMIT


@pytest.mark.parametrize("sizes", [(1, 10, 40, 120, 520), (1, 7, 28, 84, 364), (1, 3, 5, 7), (1, 4, 9), (1, 2, 6, 10, 30)])
def test_input_bound_used_for_huge_periods_is_an_upper_bound(sizes):
    """The bound used when a period is too long to scan is never below the exact worst case."""
    for rung in range(1, len(sizes)):
        n = sizes[rung]
        exact = max(_cover_count(sizes, k * n, (k + 1) * n, rung - 1) for k in range(math.lcm(*sizes)))
        assert _inputs_bound(sizes[:rung], n, rung - 1) >= exact
