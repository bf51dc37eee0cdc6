"""Gathering a scope's ladders for the timeline page (rendered by timeline.py).

Every rung's windows over the range drawn: the newest version of each window's summary
(stores.history.History.newest_versions, archived windows included), marked held when a
LadderHold row waits on it, empty when it has no summary because it is silent (closed,
nothing said in it: such windows write no row), pending when no summary of it exists yet otherwise (open, or waiting for inputs), and
flagged when newer messages wait to rewrite a base window (stores.overview.dirty_units).
The time ladder is drawn from the first to the last day with content, widened to the end
of that week; the silent days before and after it are counted in the caption, not drawn.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from consolidator.ladders.publish import ladder_specs
from consolidator.core.app import App
from consolidator.snapshots.timeline import TimelineBlock, TimelineData, TimelineLadder
from hierarchy.calendar import block_key, block_label, count_window, local_day, parse_block_key, unit_date
from hierarchy.planning import closed_through, settled_empty
from hierarchy.tiling import Block, LadderSpec
from stores.engine import reading
from stores.interactions import max_number
from stores.messages import newest_at, newest_seq
from stores.overview import dirty_units
from stores.schema.ladders import LadderHold
from stores.holds import holds
from stores.history import History
from stores.schema.ladders import Summary

Rows = dict[str, dict[str, Summary]]  # rung -> key -> newest version


def gather_timeline(app: App, scope: str, now: datetime) -> TimelineData:
    specs = ladder_specs(app)
    tz = app.settings.timezone_of(scope)
    history = History(app.settings.archive_dir)
    with reading(app.engine) as session:
        messages, last_at = newest_seq(session, scope), newest_at(session, scope)
        interactions = max_number(session, scope)
        found = {
            kind: ({r.name: {s.key: s for s in history.newest_versions(session, scope, kind, r.name)} for r in spec.rungs},
                   holds(session, scope, kind), set(dirty_units(session, scope, kind)))
            for kind, spec in specs.items()
        }
    newest = f", newest message {last_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC" if last_at else ""
    ladders = []
    for kind, spec in specs.items():
        rows, held, dirty = found[kind]
        span = _time_span(spec, rows, held, dirty) if kind == "time" else _count_span(spec, rows, dirty, interactions)
        if span is not None:
            ladders.append(_ladder(spec, scope, rows, held, dirty, span, tz, now, interactions, app.settings.ladders.day_grace))
    return TimelineData(scope=scope, generated_at=now.isoformat(timespec="seconds"),
                        summary=f"{messages:,} messages, {interactions:,} interactions{newest}", ladders=tuple(ladders))


def _units(spec: LadderSpec, rung: int, key: str) -> range | None:
    try:
        return parse_block_key(spec, rung, key).units(spec)
    except ValueError:
        return None  # a window of another ladder configuration: not drawn


def _time_span(spec: LadderSpec, rows: Rows, held: dict, dirty: set[int]) -> tuple[int, int] | None:
    """[first, stop) day units: the base days with content, dirty or held, to a week's end."""
    base = spec.rungs[0].name
    units = {u.start for key, s in rows[base].items() if s.kind != "empty" and (u := _units(spec, 0, key))}
    units |= dirty
    for (rung, key) in held:
        if (u := _units(spec, spec.rung_index(rung), key)) is not None:
            units |= {u.start, u.stop - 1}
    if not units:  # nothing on the base rung: whatever has content higher up
        units = {unit for r, rung in enumerate(spec.rungs) for key, s in rows[rung.name].items()
                 if s.kind != "empty" and (u := _units(spec, r, key)) for unit in (u.start, u.stop - 1)}
    if not units:
        return None
    first, stop = min(units), max(units) + 1
    if len(spec.rungs) > 1:  # through the end of the last week (the history's start stays where it is)
        size = spec.rungs[1].size
        stop = -(-stop // size) * size
    return first, stop


def _count_span(spec: LadderSpec, rows: Rows, dirty: set[int], interactions: int) -> tuple[int, int] | None:
    """[0, stop) interaction units: through the newest interaction (or summary)."""
    stops = [u.stop for key, s in rows[spec.rungs[0].name].items() if s.kind != "empty" and (u := _units(spec, 0, key))]
    stop = max([interactions, *stops, *(d + 1 for d in dirty)])
    return (0, stop) if stop > 0 else None


def _ladder(spec: LadderSpec, scope: str, rows: Rows, held: dict[tuple[str, str], LadderHold], dirty: set[int],
            span: tuple[int, int], tz: ZoneInfo, now: datetime, interactions: int, grace: timedelta) -> TimelineLadder:
    first, stop = span
    today = local_day(now, tz)
    silent = _silent(spec, rows, dirty, closed_through(tz, grace, now), first, stop) if spec.kind == "time" else set()
    blocks = []
    for r, rung in enumerate(spec.rungs):
        for index in range(first // rung.size, (stop - 1) // rung.size + 1):
            block = Block(r, index)
            units = block.units(spec)
            key = block_key(spec, block)
            row, hold = rows[rung.name].get(key), held.get((rung.name, key))
            notes = []
            if hold is not None:
                notes.append(f"held after {hold.attempts} attempts: {hold.reason or 'no reason given'}; "
                             f"next try {hold.next_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC")
            if row is None and hold is None and block not in silent:
                notes.append(_why_pending(spec, units, today, interactions))
            if row is not None and r == 0 and units.start in dirty:
                notes.append("newer messages since this version: it will be written again")
            sources, messages = _sources(scope, row)
            blocks.append(TimelineBlock(
                ref=f"{spec.kind}/{rung.name}/{key}", ladder=spec.kind, rung=rung.name,
                start=max(first, units.start), stop=min(stop, units.stop),
                label=_label(spec, block), short=_short(spec, block), window=_window(spec, block, tz),
                state="held" if hold is not None else row.kind if row is not None else "empty" if block in silent else "pending",
                version=row.version if row else None, tokens=row.tokens if row else None,
                text=row.text if row else "", sources=sources, messages=messages, notes=tuple(notes),
            ))
    return TimelineLadder(kind=spec.kind, rungs=tuple(r.name for r in spec.rungs), first=first, stop=stop,
                          ticks=_ticks(spec, first, stop), blocks=tuple(blocks),
                          caption=_caption(spec, rows, first, stop, tz, interactions))


def _silent(spec: LadderSpec, rows: Rows, dirty: set[int], closed: int, first: int, stop: int) -> set[Block]:
    """The drawn time windows without a summary that are silent: closed, clean, no day with content."""
    base = spec.rungs[0].name
    content = {u.start for key, s in rows[base].items() if s.kind != "empty" and (u := _units(spec, 0, key))}
    drawn = [Block(r, i) for r, rung in enumerate(spec.rungs)
             for i in range(first // rung.size, (stop - 1) // rung.size + 1)
             if block_key(spec, Block(r, i)) not in rows[rung.name]]
    return set(settled_empty(spec, drawn, closed, dirty, content))


def _sources(scope: str, row: Summary | None) -> tuple[tuple[str, ...], int]:
    """(refs of the summaries it read, number of messages it read)."""
    if row is None:
        return (), 0
    pattern = re.compile(rf"{re.escape(scope)}/(time|count)/([^/]+)/([^/@]+)@\d+")
    refs, messages = [], 0
    for source in row.sources:
        if not source:
            continue  # an input window that does not exist (before the first day)
        match = pattern.fullmatch(source)
        if match:
            refs.append("/".join(match.groups()))
        else:
            messages += 1
    return tuple(refs), messages


def _why_pending(spec: LadderSpec, units: range, today: int, interactions: int) -> str:
    if spec.kind == "time":
        if units.stop > today:
            return "open: the window has not closed yet"
        return "not written yet: waiting for its inputs"
    if units.stop > interactions:
        return f"open: {max(0, interactions - units.start)} of {len(units)} interactions so far"
    return "not written yet: waiting for its inputs (or for the interaction to end)"


def _label(spec: LadderSpec, block: Block) -> str:
    if spec.kind == "count" and spec.size_of(block.rung) == 1:
        return f"interaction {count_window(spec, block)[0]}"
    return block_label(spec, block)


def _short(spec: LadderSpec, block: Block) -> str:
    if spec.kind == "count":
        first, last = count_window(spec, block)
        return f"#{first}" if first == last else f"{first}-{last}"
    day = unit_date(block.units(spec).start)
    size = spec.size_of(block.rung)
    if size == 1:
        return str(day.day)
    if size == 7:
        return f"W{day.isocalendar().week:02d}"
    return f"{spec.rungs[block.rung].name} {day:%b} {day.day}"


def _window(spec: LadderSpec, block: Block, tz: ZoneInfo) -> str:
    if spec.kind == "count":
        first, last = count_window(spec, block)
        return f"interaction {first}" if first == last else f"interactions {first} to {last} ({last - first + 1})"
    units = block.units(spec)
    start, end = unit_date(units.start), unit_date(units.stop - 1)
    if start == end:
        return f"{start:%a} {start.isoformat()} ({tz.key})"
    return f"{start:%a} {start.isoformat()} to {end:%a} {end.isoformat()} ({len(units)} days, {tz.key})"


def _ticks(spec: LadderSpec, first: int, stop: int) -> tuple[tuple[int, str], ...]:
    if spec.kind == "count":
        return tuple((u, str(u + 1)) for u in range(first - first % 10, stop, 10))
    if stop - first <= 70:  # Mondays (day unit 0 is a Monday)
        return tuple((u, f"{unit_date(u):%b} {unit_date(u).day}") for u in range(first + (-first) % 7, stop, 7))
    ticks = [(first, unit_date(first).isoformat())]
    for u in range(first + 1, stop):
        d = unit_date(u)
        if d.day == 1:
            ticks.append((u, f"{d:%b %Y}" if d.month == 1 else f"{d:%b}"))
    return tuple(ticks)


def _caption(spec: LadderSpec, rows: Rows, first: int, stop: int, tz: ZoneInfo, interactions: int) -> str:
    if spec.kind == "count":
        return (f"Interactions 1 to {stop} (the newest is {interactions}); "
                f"rungs of {', '.join(r.name for r in spec.rungs)} interactions.")
    outside = [key for key in rows[spec.rungs[0].name] if (u := _units(spec, 0, key)) and not first <= u.start < stop]
    left_out = f"; {len(outside)} silent days outside it are not drawn" if outside else ""
    return (f"{unit_date(first).isoformat()} to {unit_date(stop - 1).isoformat()} "
            f"({stop - first} days, time zone {tz.key}){left_out}.")

