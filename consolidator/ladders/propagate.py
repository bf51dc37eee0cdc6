"""Higher blocks, woken by announcements: each decides from its inputs' latest summaries what to write.

Every announcement the ladder has not yet seen wakes the blocks that read it
(hierarchy.tiling.readers_of), and so do held blocks whose wait is over. Lowest rung
first, each block is decided by hierarchy.planning from the latest announcements of its
inputs (wait, skip, empty, pass through, or summarise); a block that writes announces
itself in turn and wakes its own readers. The announcement cursor then moves past
everything seen: a block that could not be written now is held (see holds.py) and its
hold row, not the cursor, brings it back.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from consolidator.domain import estimate_tokens
from consolidator.ladders.blocks import BlockWrite, Stop, Target, Watermark, stopped, write_block
from consolidator.ladders.drafting import Drafter, summary_inputs
from consolidator.ladders.holds import Guard
from consolidator.runtime.app import App
from hierarchy.calendar import parse_block_key
from hierarchy.planning import Action, Known, decide_block
from hierarchy.tiling import Block, LadderSpec, inputs_of, readers_of
from stores.engine import reading, transaction
from stores.ladder_state import Progress, advance_seen_announcement, progress
from stores.summaries import announcements_after, latest_rows


class Propagation:
    """The rungs above the base of both ladders of every scope."""

    def __init__(self, app: App, drafter: Drafter, guard: Guard) -> None:
        self.app = app
        self.drafter = drafter
        self.guard = guard

    def run(self, scope: str, spec: LadderSpec, tz: ZoneInfo, now: datetime, stop: Stop) -> int:
        """Decide and write every block woken since the last run; returns summaries written."""
        ladder = spec.kind
        with reading(self.app.engine) as session:
            state = progress(session, scope, ladder)
            seen = state.seen_announcement if state else 0
            announced = announcements_after(session, scope, ladder, seen)
            held = self.guard.held(scope, ladder, now, session)
        work: set[Block] = {  # held blocks whose wait is over are tried again
            parse_block_key(spec, spec.rung_index(rung), key) for rung, key in held.due() if spec.rung_index(rung) > 0
        }
        if not announced and not work:
            return 0
        top = announced[-1][0] if announced else seen
        for _, rung, key in announced:
            work.update(readers_of(spec, parse_block_key(spec, spec.rung_index(rung), key)))
        floor = self._floor(state, ladder)
        written = 0
        while work and not stopped(stop):
            block = min(work, key=lambda b: (b.rung, b.index))
            work.discard(block)
            target = Target(scope, spec, block, tz)
            if held.waiting(target.window):
                continue  # its hold row wakes it when the wait is over; the cursor can move on
            announcement_id = self.guard.run(target, now, held, lambda: self._decide_and_write(target, floor, now))
            if announcement_id is not None:
                written += 1
                top = max(top, announcement_id)
                work.update(readers_of(spec, block))
        if not stopped(stop):
            with transaction(self.app.engine) as session:
                advance_seen_announcement(session, scope, ladder, top)
        return written

    @staticmethod
    def _floor(state: Progress | None, ladder: str) -> int | None:
        """The first day of a scope's time ladder; the count ladder starts at interaction 1."""
        if ladder != "time":
            return 0
        return state.first_unit if state else None

    def _decide_and_write(self, target: Target, floor: int | None, now: datetime) -> int | None:
        """Write the block if its inputs call for it; returns the announcement id, or None (wait, skip)."""
        spec, block = target.spec, target.block
        windows = {b: target.at(b).window for b in (*inputs_of(spec, block), block)}
        with reading(self.app.engine) as session:
            found = latest_rows(session, target.scope, target.ladder, list(windows.values()))
        rows = {b: found[w] for b, w in windows.items() if w in found}
        known = {
            b: Known(s.id, s.version, s.kind == "empty", s.tokens + estimate_tokens(s.label) + 1, tuple(s.sources))
            for b, s in rows.items()
        }
        decision = decide_block(spec, block, known, self.drafter.budget, floor=floor)
        if decision.action in (Action.WAIT, Action.SKIP):
            return None
        present = [rows[b] for b in decision.inputs if b in rows and rows[b].kind != "empty"]
        draft = self.drafter.higher(target, decision.action, summary_inputs(present))
        watermark = max((Watermark(s.watermark_seq, s.watermark_at) for s in rows.values() if s.watermark_at),
                        default=Watermark())
        version = rows[block].version + 1 if block in rows else 1
        with transaction(self.app.engine) as session:
            return write_block(session, BlockWrite(target, draft, decision.input_ids, watermark, version), now)
