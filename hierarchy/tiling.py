"""Ladders as block sizes, and which lower blocks each summary reads.

A ladder is a sequence of rungs, each a block size in *units* (a day for the time
ladder, one interaction for the count ladder). Rung 0 has size 1 and is written
from raw material; every other rung is written only from blocks of lower rungs.

Every rung is globally aligned: block ``k`` of a rung of size ``n`` covers units
``[k*n, (k+1)*n)``. When a size is not a multiple of the rung below (52 weeks
is not a multiple of 12 weeks), a block is covered by:

1. the blocks of the rung just below that lie fully inside it, then
2. each gap left over, by the blocks of the next rung down that lie fully
   inside that gap, recursively down to the base, which always tiles.

So a summary's window is exactly the union of its inputs and inputs are few
(``LadderSpec`` rejects a ladder where some block would need more than
``MAX_INPUTS_LIMIT``). A consequence: a block that straddles a boundary of
every higher rung (count 120-block 480..599 straddles 520) is read by nobody
above it; its own summary is still written and readable.

Block indices may be negative (days before the calendar epoch); units use floor
division throughout.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

MAX_INPUTS_LIMIT = 16
# Blocks per rung checked exactly by max_inputs; beyond it, a proven upper bound is used.
_EXACT_CHECK_LIMIT = 200_000


@dataclass(frozen=True)
class RungSpec:
    name: str
    size: int


@dataclass(frozen=True)
class LadderSpec:
    """An ordered set of rungs; validated on construction (ValueError naming the rung)."""

    kind: Literal["time", "count"]
    rungs: tuple[RungSpec, ...]

    def __post_init__(self) -> None:
        if self.kind not in ("time", "count"):
            raise ValueError(f"ladder kind must be 'time' or 'count', not {self.kind!r}")
        if not self.rungs:
            raise ValueError(f"{self.kind} ladder has no rungs")
        seen: set[str] = set()
        for i, rung in enumerate(self.rungs):
            if isinstance(rung.size, bool) or not isinstance(rung.size, int) or rung.size < 1:
                raise ValueError(f"rung {rung.name!r}: size must be a positive int, not {rung.size!r}")
            if rung.name in seen:
                raise ValueError(f"rung {rung.name!r}: duplicate rung name")
            seen.add(rung.name)
            if i == 0 and rung.size != 1:
                raise ValueError(f"rung {rung.name!r}: the base rung must have size 1, not {rung.size}")
            if i > 0 and rung.size <= self.rungs[i - 1].size:
                raise ValueError(
                    f"rung {rung.name!r}: size {rung.size} must exceed the size "
                    f"{self.rungs[i - 1].size} of rung {self.rungs[i - 1].name!r} below it"
                )
            # "Some lower rung's size divides this size" always holds: the base has size 1.
        sizes = self.sizes
        for r in range(1, len(sizes)):
            worst, exact = _worst_inputs(sizes, r)
            if worst > MAX_INPUTS_LIMIT:
                need = "can need" if exact else "may need up to"
                raise ValueError(
                    f"rung {self.rungs[r].name!r}: a block {need} {worst} inputs, "
                    f"more than {MAX_INPUTS_LIMIT}"
                )

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(r.size for r in self.rungs)

    def rung_index(self, name: str) -> int:
        for i, rung in enumerate(self.rungs):
            if rung.name == name:
                return i
        valid = ", ".join(repr(r.name) for r in self.rungs)
        raise ValueError(f"unknown rung {name!r} in {self.kind} ladder; valid rungs: {valid}")

    def size_of(self, rung: int) -> int:
        if not 0 <= rung < len(self.rungs):
            raise ValueError(f"rung index {rung} out of range for {self.kind} ladder of {len(self.rungs)} rungs")
        return self.rungs[rung].size


def time_ladder(names: tuple[str, ...] = ("day", "week", "4w", "12w", "52w")) -> LadderSpec:
    """Time ladder in days: ``day`` = 1, ``week`` = 7, ``<N>w`` = 7*N."""
    return LadderSpec("time", tuple(RungSpec(name, _days_of(name)) for name in names))


def _days_of(name: str) -> int:
    if name == "day":
        return 1
    if name == "week":
        return 7
    weeks = name[:-1]
    if name.endswith("w") and weeks.isascii() and weeks.isdigit() and weeks == str(int(weeks)) != "0":
        return 7 * int(weeks)
    raise ValueError(f"unknown time rung {name!r}; use 'day', 'week' or '<N>w'")


def count_ladder(sizes: tuple[int, ...] = (1, 10, 40, 120, 520)) -> LadderSpec:
    """Count ladder in interactions; each rung is named by its size."""
    return LadderSpec("count", tuple(RungSpec(str(size), size) for size in sizes))


@dataclass(frozen=True, order=True)
class Block:
    """Block ``index`` of rung ``rung`` (an index into ``LadderSpec.rungs``)."""

    rung: int
    index: int

    def units(self, spec: LadderSpec) -> range:
        size = spec.size_of(self.rung)
        return range(self.index * size, (self.index + 1) * size)


def block_of(spec: LadderSpec, rung: int, unit: int) -> Block:
    return Block(rung, unit // spec.size_of(rung))


def inputs_of(spec: LadderSpec, block: Block) -> tuple[Block, ...]:
    """The lower blocks whose union is exactly ``block``'s units, ordered by first unit."""
    units = block.units(spec)
    if block.rung == 0:
        return ()
    return tuple(_cover(spec.sizes, units.start, units.stop, block.rung - 1))


def readers_of(spec: LadderSpec, block: Block) -> tuple[Block, ...]:
    """The higher blocks that read ``block`` (at most one per rung), ordered by rung."""
    first = block.units(spec).start
    readers = []
    for higher in range(block.rung + 1, len(spec.rungs)):
        candidate = block_of(spec, higher, first)
        if block in inputs_of(spec, candidate):
            readers.append(candidate)
    return tuple(readers)


def max_inputs(spec: LadderSpec) -> int:
    """Most inputs any block of any rung reads (exact unless the ladder's period is huge)."""
    sizes = spec.sizes
    return max((_worst_inputs(sizes, r)[0] for r in range(1, len(sizes))), default=0)


def _cover(sizes: tuple[int, ...], start: int, stop: int, top: int) -> Iterator[Block]:
    """Blocks of rungs <= top covering [start, stop), largest rung first, in unit order."""
    if start >= stop:
        return
    if top == 0:
        yield from (Block(0, u) for u in range(start, stop))
        return
    size = sizes[top]
    first = -(-start // size)
    last = stop // size
    if first >= last:
        yield from _cover(sizes, start, stop, top - 1)
        return
    yield from _cover(sizes, start, first * size, top - 1)
    yield from (Block(top, k) for k in range(first, last))
    yield from _cover(sizes, last * size, stop, top - 1)


def _cover_count(sizes: tuple[int, ...], start: int, stop: int, top: int) -> int:
    """len(list(_cover(...))) without building the blocks."""
    if start >= stop:
        return 0
    if top == 0:
        return stop - start
    size = sizes[top]
    first = -(-start // size)
    last = stop // size
    if first >= last:
        return _cover_count(sizes, start, stop, top - 1)
    return (
        (last - first)
        + _cover_count(sizes, start, first * size, top - 1)
        + _cover_count(sizes, last * size, stop, top - 1)
    )


def _worst_inputs(sizes: tuple[int, ...], rung: int) -> tuple[int, bool]:
    """(most inputs of a block of ``rung``, whether exact); a proven bound if the period is huge.

    The cover of a block depends only on its start modulo L = lcm of the lower
    sizes; starts are multiples of n, so L / gcd(n, L) consecutive blocks
    exhaust all cases.
    """
    n = sizes[rung]
    lower = math.lcm(*sizes[:rung])
    period = lower // math.gcd(n, lower)
    if period > _EXACT_CHECK_LIMIT:
        return _inputs_bound(sizes[:rung], n, rung - 1), False
    return max(_cover_count(sizes, k * n, (k + 1) * n, rung - 1) for k in range(period)), True


@lru_cache(maxsize=4096)
def _inputs_bound(sizes: tuple[int, ...], length: int, top: int) -> int:
    """Upper bound on the cover size of any interval of at most ``length`` units.

    Either no block of rung ``top`` fits (then length <= 2*size - 2) and the
    next rung down covers it, or at most length // size blocks fit, leaving two
    end gaps each shorter than size.
    """
    if top == 0 or length <= 0:
        return max(length, 0)
    size = sizes[top]
    no_fit = _inputs_bound(sizes, min(length, 2 * size - 2), top - 1)
    if length < size:
        return no_fit
    fit = length // size + 2 * _inputs_bound(sizes, size - 1, top - 1)
    return max(no_fit, fit)
