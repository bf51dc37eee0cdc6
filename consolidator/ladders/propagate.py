"""Higher blocks, woken by announcements and by days closing: each decides from its inputs what to write.

Every announcement the ladder has not yet seen wakes the blocks that read it
(hierarchy.tiling.readers_of), and so do held blocks whose wait is over. A silent day
announces nothing, so on the time ladder the days that closed since the stage last looked
also wake the blocks they complete, when those may hold content
(hierarchy.planning.closing_blocks); a block whose inputs are all silent would write
nothing and is never woken. Lowest rung first, each block is decided by hierarchy.planning
from the latest summaries of its inputs, an input without one counting as empty once it is
closed, not dirty and holds no day with content (wait, skip, empty, pass through, or
summarise); a block that writes announces itself in turn and wakes its own readers. An
empty decision writes nothing unless a summary with content must be taken back. The cursors
then move past everything seen: a block that could not be written now is held (see
holds.py) and its hold row, not the cursor, brings it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from datetime import datetime
from zoneinfo import ZoneInfo

from consolidator.domain import estimate_tokens
from consolidator.ladders.blocks import BlockWrite, Stop, Target, Watermark, stopped, summary_values, write_blocks
from consolidator.ladders.drafting import RungWriter, summary_inputs
from hierarchy.calendar import local_day, parse_block_key, time_window
from hierarchy.planning import Action, Known, closed_through, closing_blocks, decide_block, settled_empty
from hierarchy.tiling import Block, LadderSpec, block_of, inputs_of, readers_of
from stores.engine import Session, reading, transaction
from stores.ladder_state import Progress, advance_seen_announcement, dirty_windows, progress, wake_through
from stores.history import History
from stores.schema.ladders import Summary
from stores.summaries import announcements_after, newest_content_start


@dataclass(frozen=True)
class Days:
    """What tells a silent time window from a missing one: the newest closed day, and the dirty days."""

    closed: int
    dirty: frozenset[int]


def last_content_day(session: Session, scope: str, spec: LadderSpec, tz: ZoneInfo) -> int | None:
    """The newest day whose summary has something in it (any version), or None."""
    start = newest_content_start(session, scope, "time", spec.rungs[0].name)
    return local_day(start, tz) if start is not None else None


class _RunReads:
    """The summaries and content days one run of the stage has read, kept for the rest of the run.

    Why: the blocks of a run are decided one at a time (a write wakes its readers), and each
    read its inputs and its content days afresh: most of the stage's statements. The scope is
    claimed by this daemon while the run lasts, and nothing but this run writes its higher
    rungs meanwhile, so what was read stays true, and what the run writes it records here
    (`wrote`). Reads are batched: a block's rung-mates waiting in the run are read with it.
    The base rung's content days do not change during the run (the base windows were written
    before it), so they are read once per top-rung window.
    """

    def __init__(self, history: History, engine, scope: str, ladder: str) -> None:
        self.history, self.engine, self.scope, self.ladder = history, engine, scope, ladder
        self.rows: dict[tuple[str, str], Summary] = {}
        self.absent: set[tuple[str, str]] = set()
        self.content: list[tuple[datetime, datetime, set[str]]] = []  # (start, end, day keys with content)

    def latest(self, windows: list[tuple[str, str]]) -> dict[tuple[str, str], Summary]:
        missing = [w for w in windows if w not in self.rows and w not in self.absent]
        if missing:
            with reading(self.engine) as session:
                found = self.history.latest_summaries(session, self.scope, self.ladder, missing)
            self.rows.update(found)
            self.absent.update(w for w in missing if w not in found)
        return {w: self.rows[w] for w in windows if w in self.rows}

    def wrote(self, summary: Summary) -> None:
        window = (summary.rung, summary.key)
        self.rows[window] = summary
        self.absent.discard(window)

    def content_keys(self, base: str, start: datetime, end: datetime, wide: tuple[datetime, datetime]) -> set[str]:
        """Keys of the `base` rung with content, read for `wide` (a window holding [start, end)) the first time."""
        for low, high, keys in self.content:
            if low <= start and end <= high:
                return keys
        with reading(self.engine) as session:
            keys = self.history.keys_with_content(session, self.scope, "time", base, *wide)
        self.content.append((*wide, keys))
        return keys


class Propagation(RungWriter):
    """The rungs above the base of both ladders of every scope."""

    def run(self, scope: str, spec: LadderSpec, tz: ZoneInfo, now: datetime, stop: Stop) -> int:
        """Decide and write every block woken since the last run; returns summaries written."""
        ladder = spec.kind
        closed = closed_through(tz, self.app.settings.ladders.day_grace, now) if ladder == "time" else None
        with reading(self.app.engine) as session:
            state = progress(session, scope, ladder)
            seen = state.seen_announcement if state else 0
            announced = announcements_after(session, scope, ladder, seen)
            held = self.guard.held(scope, ladder, now, session)
            work: set[Block] = {  # held blocks whose wait is over are tried again
                parse_block_key(spec, spec.rung_index(rung), key) for rung, key in held.due() if spec.rung_index(rung) > 0
            }
            work.update(self._closing(session, scope, spec, tz, state, closed))
            if not announced and not work:
                return 0
            days = Days(closed, frozenset(dirty_windows(session, scope, ladder))) if closed is not None else None
        top = announced[-1][0] if announced else seen
        for _, rung, key in announced:
            work.update(readers_of(spec, parse_block_key(spec, spec.rung_index(rung), key)))
        written = 0
        reads = _RunReads(self.history, self.app.engine, scope, ladder)
        while work and not stopped(stop):
            block = min(work, key=lambda b: (b.rung, b.index))
            work.discard(block)
            target = Target(scope, spec, block, tz)
            if held.waiting(target.window):
                continue  # its hold row wakes it when the wait is over; the cursor can move on
            rung_mates = [block, *(b for b in work if b.rung == block.rung)]
            reads.latest([target.at(b).window for mate in rung_mates for b in (*inputs_of(spec, mate), mate)])
            announcement_id = self.guard.run(target, now, held,
                                             lambda: self._decide_and_write(target, days, now, reads))
            if announcement_id is not None:
                written += 1
                top = max(top, announcement_id)
                work.update(readers_of(spec, block))
        if not stopped(stop):
            with transaction(self.app.engine) as session:
                advance_seen_announcement(session, scope, ladder, top)
                if closed is not None and state is not None and state.through_unit is not None:
                    wake_through(session, scope, ladder, closed)
        return written

    @staticmethod
    def _closing(session: Session, scope: str, spec: LadderSpec, tz: ZoneInfo, state: Progress | None,
                 closed: int | None) -> tuple[Block, ...]:
        """Time ladder: the blocks completed by the days closed since the stage last woke them.

        The newest day with content is read only when some block closed since the cursor (which
        moves only when the run has work, so that a silent scope writes nothing); a silent scope
        does not get this far anyway: `LadderStage.run_scope` finds nothing due and leaves.
        """
        if closed is None or state is None or state.through_unit is None:
            return ()  # the count ladder; or a time ladder never looked at: no day written yet
        if not closing_blocks(spec, state.through_unit, closed, closed):
            return ()
        return closing_blocks(spec, state.through_unit, closed, last_content_day(session, scope, spec, tz))

    @staticmethod
    def _silent(target: Target, missing: list[Block], days: Days | None, reads: _RunReads) -> frozenset[Block]:
        """Of the inputs without a summary, those that are complete and empty (the time ladder only)."""
        if days is None or not missing:
            return frozenset()
        spec = target.spec
        start, end = time_window(spec, target.block, target.tz)
        top = block_of(spec, len(spec.rungs) - 1, target.block.units(spec).start)
        keys = reads.content_keys(spec.rungs[0].name, start, end, time_window(spec, top, target.tz))
        content = {parse_block_key(spec, 0, key).index for key in keys}  # days outside the block do not matter
        return settled_empty(spec, missing, days.closed, days.dirty, content)

    def _decide_and_write(self, target: Target, days: Days | None, now: datetime, reads: _RunReads) -> int | None:
        """Write the block if its inputs call for it; returns the announcement id, or None (wait, skip, silent)."""
        spec, block = target.spec, target.block
        windows = {b: target.at(b).window for b in (*inputs_of(spec, block), block)}
        found = reads.latest(list(windows.values()))
        rows = {b: found[w] for b, w in windows.items() if w in found}
        known = {
            b: Known(s.id, s.version, s.kind == "empty", s.tokens + estimate_tokens(s.label) + 1, tuple(s.sources))
            for b, s in rows.items()
        }
        silent = self._silent(target, [b for b in inputs_of(spec, block) if b not in rows], days, reads)
        decision = decide_block(spec, block, known, self.drafter.budget, empty=silent)
        if decision.action in (Action.WAIT, Action.SKIP):
            return None
        if decision.action is Action.EMPTY and (block not in rows or rows[block].kind == "empty"):
            return None  # silent, and nothing said before to take back: no row
        present = [rows[b] for b in decision.inputs if b in rows and rows[b].kind != "empty"]
        draft = self.drafter.higher(target, decision.action, summary_inputs(present))
        watermark = max((Watermark(s.watermark_seq, s.watermark_at) for s in rows.values() if s.watermark_at),
                        default=Watermark())
        version = rows[block].version + 1 if block in rows else 1
        write = BlockWrite(target, draft, decision.input_ids, watermark, version)
        with transaction(self.app.engine) as session:
            announcement_id = write_blocks(session, [write], now)
        reads.wrote(SimpleNamespace(**summary_values(write, now)))  # the row just written: kept from memory, not read back
        return announcement_id
