"""Mapping ladder units to real windows: local days, interaction numbers, keys, labels.

Day unit 0 is ``EPOCH`` = Monday 1970-01-05, so week blocks are ISO weeks
(Monday to Sunday) and 4-, 12- and 52-week blocks are aligned on that epoch.
52-week blocks therefore drift against calendar years: an ISO year has 52 or 53
weeks, so a 52-week block starts on a different date each year. This is
deliberate: every block has the same length and is built from whole lower
blocks, which a calendar year (365 or 366 days) cannot be.

A day is a *local* calendar date in the user's time zone; its window runs from
local midnight to the next local midnight, so it lasts 23, 24 or 25 hours.
Windows are half-open ``[start, end)`` aware datetimes in that zone. Python
compares and subtracts two datetimes that share a tzinfo by wall clock, so
convert to UTC before measuring a window's length.

Interactions are numbered from 1; interaction ``n`` is count unit ``n - 1``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from hierarchy.tiling import Block, LadderSpec

EPOCH = date(1970, 1, 5)
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_COUNT_KEY = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)")


def day_unit(d: date) -> int:
    """Day unit of a calendar date (negative before ``EPOCH``)."""
    if isinstance(d, datetime):
        raise TypeError("day_unit takes a date, not a datetime; use local_day(at, tz)")
    return (d - EPOCH).days


def unit_date(u: int) -> date:
    return EPOCH + timedelta(days=u)


def local_day(at: datetime, tz: ZoneInfo) -> int:
    """Day unit of ``at``'s local calendar date in ``tz``; ValueError if ``at`` is naive."""
    _require_aware(at)
    return day_unit(at.astimezone(tz).date())


def time_window(spec: LadderSpec, block: Block, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """``[local midnight of the first day, local midnight after the last day)`` in ``tz``."""
    _require_kind(spec, "time")
    units = block.units(spec)
    return _local_midnight(units.start, tz), _local_midnight(units.stop, tz)


def day_closes_at(unit: int, tz: ZoneInfo, grace: timedelta) -> datetime:
    """The UTC instant from which day ``unit`` counts as closed: its end plus ``grace``."""
    if grace < timedelta(0):
        raise ValueError(f"grace must not be negative, got {grace}")
    return _local_midnight(unit + 1, tz).astimezone(timezone.utc) + grace


def count_window(spec: LadderSpec, block: Block) -> tuple[int, int]:
    """(first, last) 1-based interaction numbers of a count block, both inclusive."""
    _require_kind(spec, "count")
    units = block.units(spec)
    if units.start < 0:
        raise ValueError(f"count block {block} lies before interaction 1")
    return units.start + 1, units.stop


def interaction_unit(number: int) -> int:
    if number < 1:
        raise ValueError(f"interaction numbers start at 1, got {number}")
    return number - 1


def block_key(spec: LadderSpec, block: Block) -> str:
    """Stable storage key: first day's ISO date (time) or ``first-last`` (count)."""
    if spec.kind == "time":
        return unit_date(block.units(spec).start).isoformat()
    first, last = count_window(spec, block)
    return f"{first}-{last}"


def block_label(spec: LadderSpec, block: Block) -> str:
    """Human label: ``2025-03-30 (Sun)``, ``2025-W13``, ``4w 2025-03-03..2025-03-30``, ``interactions 11-20``."""
    if spec.kind == "count":
        first, last = count_window(spec, block)
        return f"interactions {first}-{last}"
    units = block.units(spec)
    first_day = unit_date(units.start)
    if len(units) == 1:
        return f"{first_day.isoformat()} ({_WEEKDAYS[first_day.weekday()]})"
    if len(units) == 7:
        iso = first_day.isocalendar()
        return f"{iso.year}-W{iso.week:02d}"
    name = spec.rungs[block.rung].name
    return f"{name} {first_day.isoformat()}..{unit_date(units.stop - 1).isoformat()}"


def parse_block_key(spec: LadderSpec, rung: int, key: str) -> Block:
    """Inverse of ``block_key``; ValueError on a malformed key or one not aligned to the rung."""
    size = spec.size_of(rung)
    if spec.kind == "time":
        try:
            unit = day_unit(date.fromisoformat(key))
        except ValueError:
            raise ValueError(f"not a time block key (YYYY-MM-DD): {key!r}") from None
    else:
        match = _COUNT_KEY.fullmatch(key)
        if match is None:
            raise ValueError(f"not a count block key (first-last): {key!r}")
        unit = interaction_unit(int(match.group(1)))
    block = Block(rung, unit // size)
    if block_key(spec, block) != key:
        raise ValueError(
            f"key {key!r} is not a block of rung {spec.rungs[rung].name!r}; "
            f"the block containing it has key {block_key(spec, block)!r}"
        )
    return block


def _local_midnight(unit: int, tz: ZoneInfo) -> datetime:
    # fold=0 is the start of the day even where midnight is skipped or repeated by a DST change.
    return datetime.combine(unit_date(unit), time(0), tzinfo=tz)


def _require_aware(at: datetime) -> None:
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"naive datetime {at.isoformat()}: pass an aware datetime")


def _require_kind(spec: LadderSpec, kind: str) -> None:
    if spec.kind != kind:
        raise ValueError(f"needs a {kind} ladder, got a {spec.kind} ladder")
