"""The ladder stage: writes both summary ladders of every scope, driven by announcements.

Per scope and ladder, each tick:
1. new messages mark their base window dirty (a local day; an interaction);
2. base windows that are closed (a day past midnight plus grace; a complete interaction)
   are written from the raw log (only here is the log read), silent days are announced
   empty for free;
3. every announcement not yet seen wakes the blocks that read it (hierarchy.tiling.readers_of);
   each decides from the latest announcements of its inputs (hierarchy.planning) to wait,
   skip, be empty, pass its inputs through, or summarise, and announces itself in turn.
A summary and its announcement share a transaction; the cursors only say how far the
stage has looked, and redoing a step finds the work done (SKIP), so a crash anywhere
leaves no duplicate and no gap.

A summary call that cannot be made now keeps its work for a later tick: the daily budget
(`BudgetExceeded`) or a failed call (`ModelError`) leaves a base window dirty, and a higher
block that was not written keeps the announcement cursor where it was, so every block is
re-decided next tick (the ones already up to date SKIP for free). A deferred call lets the
stage go on with the windows that need no call; a failed call ends this ladder's tick.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Callable, TypeVar
from zoneinfo import ZoneInfo

import structlog
from sqlalchemy import delete, select

from consolidator.runtime.app import App
from consolidator.model.base import BudgetExceeded, Model, ModelError, estimate_tokens
from consolidator.model.schemas import SummarizeRequest, SummaryInput
from consolidator.ladders.inputs import content_hash, render
from consolidator.pipeline.runner import backoff
from consolidator.ladders.publish import ladder_specs, ladder_view, publish_ladder_views
from hierarchy.calendar import block_key, block_label, count_window, local_day, parse_block_key, time_window
from hierarchy.planning import Action, Known, closed_through, complete_interactions, decide_block, plan_days
from hierarchy.tiling import Block, LadderSpec, inputs_of, readers_of
from stores.engine import reading, transaction
from stores.views import bump
from stores.interactions import Interaction
from stores.interactions import max_number as newest_interaction
from stores.messages import Message, scopes
from stores.summaries import (
    Announcement,
    DirtyWindow,
    LadderHold,
    LadderState,
    Summary,
    holds,
    latest_rows,
    reusable,
    summary_id,
    write_summary,
)

log = structlog.get_logger()


T = TypeVar("T")


class Guard(Enum):
    DONE = "done"
    DEFERRED = "deferred"  # the daily budget: try again when it reopens
    FAILED = "failed"  # the model call failed: try again next tick


@dataclass(frozen=True)
class Draft:
    kind: str
    text: str
    input_hash: str | None = None
    input_tokens: int = 0
    calls: int = 0


class LadderStage:
    name = "ladders"

    def __init__(self, app: App, model: Model, publish: bool = True):
        self.app = app
        self.model = model
        self.specs = ladder_specs(app)
        self.budget = app.settings.ladders.budget_tokens
        self.grace = app.settings.ladders.day_grace
        self.publish = publish
        self.stats: Counter[tuple[str, str, str]] = Counter()  # (ladder, rung, kind) -> summaries
        self.largest_input = 0  # tokens of the largest summary call made
        self.largest_by_rung: dict[tuple[str, str], int] = {}
        self.deferred: Counter[tuple[str, str]] = Counter()  # (ladder, rung) -> calls deferred by the budget
        self.reuse = True
        self.on_progress: Callable[[], None] = lambda: None  # set by the Consolidator: the watchdog's beat

    # --- the stage ------------------------------------------------------------------------

    def run(self, now: datetime, stop: threading.Event | None = None) -> int:
        total = 0
        for scope in self._scopes():
            if stop is not None and stop.is_set():
                break
            total += self.run_scope(scope, now, stop)
        return total

    def run_scope(self, scope: str, now: datetime, stop: threading.Event | None = None,
                  progress: Callable[[int], None] | None = None, ladders: tuple[str, ...] = ("time", "count")) -> int:
        tz = self.app.settings.timezone_of(scope)
        written = 0
        for kind in ladders:
            spec = self.specs[kind]
            self._mark_dirty(scope, kind, tz)
            if kind == "time":
                written += self._time_base(scope, spec, tz, now, stop, progress)
            else:
                written += self._count_base(scope, spec, tz, now, stop, progress)
            written += self._propagate(scope, kind, spec, tz, now, stop)
        if written:
            with transaction(self.app.engine) as session:
                bump(session, scope, "ladders")  # context.md shows the newest summaries
            if self.publish:
                publish_ladder_views(self.app, scope)
        return written

    def _scopes(self) -> list[str]:
        with reading(self.app.engine) as session:
            return scopes(session)

    # --- 1. dirty base windows ------------------------------------------------------------

    def _mark_dirty(self, scope: str, kind: str, tz: ZoneInfo) -> None:
        with reading(self.app.engine) as session:  # an idle scope takes no write lock
            state = session.get(LadderState, (scope, kind))
            seen = state.seen_seq if state else 0
            if state is not None and session.execute(
                select(Message.seq).where(Message.scope == scope, Message.seq > seen).limit(1)
            ).first() is None:
                return
        with transaction(self.app.engine) as session:
            state = session.get(LadderState, (scope, kind)) or LadderState(scope=scope, ladder=kind)
            session.add(state)
            rows = session.execute(
                select(Message.seq, Message.at, Message.interaction)
                .where(Message.scope == scope, Message.seq > state.seen_seq)
                .order_by(Message.seq)
            ).all()
            units: dict[int, datetime] = {}
            for seq, at, interaction in rows:
                if interaction is None:
                    break  # not placed yet: pick it up next tick
                unit = local_day(at, tz) if kind == "time" else interaction
                units[unit] = max(units.get(unit, at), at)
                state.seen_seq = seq
            if not units:
                return
            existing = {
                d.unit: d
                for d in session.execute(
                    select(DirtyWindow).where(
                        DirtyWindow.scope == scope, DirtyWindow.ladder == kind, DirtyWindow.unit.in_(list(units))
                    )
                ).scalars()
            }
            for unit, last_at in units.items():
                row = existing.get(unit)
                if row is None:
                    session.add(DirtyWindow(scope=scope, ladder=kind, unit=unit, last_at=last_at))
                else:
                    row.last_at = max(row.last_at, last_at)

    def mark_all_dirty(self, scope: str, kind: str, since: datetime | None) -> int:
        """For rebuild: every base window with messages (from `since`) is dirty again."""
        tz = self.app.settings.timezone_of(scope)
        with transaction(self.app.engine) as session:
            state = session.get(LadderState, (scope, kind)) or LadderState(scope=scope, ladder=kind)
            session.add(state)
            stmt = select(Message.at, Message.interaction).where(Message.scope == scope, Message.seq <= state.seen_seq)
            if since is not None:
                stmt = stmt.where(Message.at >= since)
            units: dict[int, datetime] = {}
            for at, interaction in session.execute(stmt):
                unit = local_day(at, tz) if kind == "time" else interaction
                units[unit] = max(units.get(unit, at), at)
            existing = {
                d.unit: d
                for d in session.execute(
                    select(DirtyWindow).where(DirtyWindow.scope == scope, DirtyWindow.ladder == kind)
                ).scalars()
            }  # windows already waiting (not closed yet, held, deferred) stay dirty
            for unit, last_at in units.items():
                if unit in existing:
                    existing[unit].last_at = max(existing[unit].last_at, last_at)
                else:
                    session.add(DirtyWindow(scope=scope, ladder=kind, unit=unit, last_at=last_at))
            state.seen_announcement = 0  # every block re-decides (cheap: up-to-date ones skip)
        return len(units)

    def _dirty(self, scope: str, kind: str) -> dict[int, datetime]:
        with reading(self.app.engine) as session:
            rows = session.execute(
                select(DirtyWindow.unit, DirtyWindow.last_at).where(DirtyWindow.scope == scope, DirtyWindow.ladder == kind)
            ).all()
        return dict(rows)

    # --- 2. base windows ------------------------------------------------------------------

    def _time_base(self, scope, spec: LadderSpec, tz: ZoneInfo, now, stop, progress) -> int:
        with reading(self.app.engine) as session:
            state = session.get(LadderState, (scope, "time"))
            seen_seq = state.seen_seq if state else 0
            first, through = (state.first_unit, state.through_unit) if state else (None, None)
        plan = plan_days(first, through, self._dirty(scope, "time"), closed_through(tz, self.grace, now))
        written = 0
        if plan.empty or (plan.first, plan.through) != (first, through):
            with transaction(self.app.engine) as session:
                for unit in plan.empty:
                    # a day outside the announced range has never been written: version 1
                    self._write(session, scope, spec, Block(0, unit), tz, Draft("empty", ""), [], (0, None), now, 1)
                state = session.get(LadderState, (scope, "time"))
                state.first_unit, state.through_unit = plan.first, plan.through
            written += len(plan.empty)
        holding, waiting = self._holds(scope, "time", now)
        for unit in plan.summarize:
            if stop is not None and stop.is_set():
                break
            window = (spec.rungs[0].name, block_key(spec, Block(0, unit)))
            if window in waiting:
                continue
            start, end = time_window(spec, Block(0, unit), tz)
            messages = self._messages(scope, seen_seq, Message.at >= start, Message.at < end)
            status, count = self._guarded(scope, spec, Block(0, unit), now, window in holding,
                                          lambda: self._write_base(scope, "time", spec, Block(0, unit), tz, messages, now))
            written += count or 0
            if progress:
                progress(1)
        return written

    def _count_base(self, scope, spec: LadderSpec, tz: ZoneInfo, now, stop, progress) -> int:
        dirty = self._dirty(scope, "count")
        if not dirty:
            return 0
        with reading(self.app.engine) as session:
            state = session.get(LadderState, (scope, "count"))
            seen_seq = state.seen_seq if state else 0
            newest = newest_interaction(session, scope)
            last_at = dict(
                session.execute(
                    select(Interaction.number, Interaction.last_at).where(
                        Interaction.scope == scope, Interaction.number.in_(list(dirty))
                    )
                ).all()
            )
        written = 0
        holding, waiting = self._holds(scope, "count", now)
        for number in complete_interactions(last_at, newest, self.app.settings.interaction_gap, now):
            if stop is not None and stop.is_set():
                break
            window = (spec.rungs[0].name, block_key(spec, Block(0, number - 1)))
            if window in waiting:
                continue
            messages = self._messages(scope, seen_seq, Message.interaction == number)
            status, count = self._guarded(scope, spec, Block(0, number - 1), now, window in holding,
                                          lambda: self._write_base(scope, "count", spec, Block(0, number - 1), tz, messages, now))
            written += count or 0
            if progress:
                progress(1)
        return written

    def _messages(self, scope: str, seen_seq: int, *where) -> list[Message]:
        with reading(self.app.engine) as session:
            stmt = (
                select(Message)
                .where(Message.scope == scope, Message.seq <= seen_seq, *where)
                .order_by(Message.at, Message.seq)
            )
            return list(session.execute(stmt).scalars())

    def _write_base(self, scope, kind, spec, block: Block, tz, messages: list[Message], now) -> int:
        inputs = [SummaryInput(id=m.id, label="", text=render(m, tz)) for m in messages]
        draft = self._draft(scope, kind, spec, block, inputs, join=lambda: "\n".join(i.text for i in inputs))
        watermark = (max((m.seq for m in messages), default=0), max((m.at for m in messages), default=None))
        window = (spec.rungs[0].name, block_key(spec, block))
        sources = [m.id for m in messages]
        with transaction(self.app.engine) as session:
            current = latest_rows(session, scope, kind, [window]).get(window)
            same = current is not None and list(current.sources) == sources and current.text == draft.text
            if not same:
                version = current.version + 1 if current is not None else 1
                self._write(session, scope, spec, block, tz, draft, sources, watermark, now, version)
            session.execute(
                delete(DirtyWindow).where(
                    DirtyWindow.scope == scope, DirtyWindow.ladder == kind, DirtyWindow.unit == _unit(kind, block)
                )
            )
        return 0 if same else 1

    # --- 3. higher rungs, woken by announcements ------------------------------------------

    def _propagate(self, scope: str, kind: str, spec: LadderSpec, tz, now, stop) -> int:
        with reading(self.app.engine) as session:
            state = session.get(LadderState, (scope, kind))
            seen = state.seen_announcement if state else 0
            anns = session.execute(
                select(Announcement.id, Announcement.rung, Announcement.key)
                .where(Announcement.scope == scope, Announcement.ladder == kind, Announcement.id > seen)
                .order_by(Announcement.id)
            ).all()
            all_holds = holds(session, scope, kind)
        held = {w for w, h in all_holds.items() if h.next_at > now}
        work: set[Block] = {  # held blocks whose wait is over are tried again
            parse_block_key(spec, spec.rung_index(rung), key)
            for (rung, key), h in all_holds.items()
            if h.next_at <= now and spec.rung_index(rung) > 0
        }
        if not anns and not work:
            return 0
        top = anns[-1][0] if anns else seen
        for _, rung, key in anns:
            work.update(readers_of(spec, parse_block_key(spec, spec.rung_index(rung), key)))
        written = 0
        while work and not (stop is not None and stop.is_set()):
            block = min(work, key=lambda b: (b.rung, b.index))
            work.discard(block)
            window = (spec.rungs[block.rung].name, block_key(spec, block))
            if window in held:
                continue  # its hold row wakes it when the wait is over; the cursor can move on
            status, announcement_id = self._guarded(
                scope, spec, block, now, window in all_holds,
                lambda: self._decide_and_write(scope, kind, spec, block, tz, now),
            )
            if announcement_id is not None:
                written += 1
                top = max(top, announcement_id)
                work.update(readers_of(spec, block))
        if not (stop is not None and stop.is_set()):
            with transaction(self.app.engine) as session:
                state = session.get(LadderState, (scope, kind))
                state.seen_announcement = max(state.seen_announcement, top)
        return written

    def _decide_and_write(self, scope, kind, spec: LadderSpec, block: Block, tz, now) -> int | None:
        blocks = (*inputs_of(spec, block), block)
        windows = {b: (spec.rungs[b.rung].name, block_key(spec, b)) for b in blocks}
        with reading(self.app.engine) as session:
            found = latest_rows(session, scope, kind, list(windows.values()))
        rows = {b: found[w] for b, w in windows.items() if w in found}
        known = {
            b: Known(s.id, s.version, s.kind == "empty", s.tokens + estimate_tokens(s.label) + 1, tuple(s.sources))
            for b, s in rows.items()
        }
        decision = decide_block(spec, block, known, self.budget, floor=self._floor(scope, kind))
        if decision.action in (Action.WAIT, Action.SKIP):
            return None
        present = [rows[b] for b in decision.inputs if b in rows and rows[b].kind != "empty"]
        inputs = [SummaryInput(id=s.id, label=s.label, text=s.text) for s in present]
        if decision.action is Action.EMPTY:
            draft = Draft("empty", "")
        elif decision.action is Action.PASS and len(inputs) == 1:
            draft = Draft("passed", inputs[0].text)
        elif decision.action is Action.PASS:
            draft = Draft("passed", "\n".join(f"{i.label}: {i.text}" for i in inputs))
        else:
            draft = self._call(scope, kind, spec, block, inputs)
        watermark = max(((s.watermark_seq, s.watermark_at) for s in rows.values() if s.watermark_at), default=(0, None))
        version = rows[block].version + 1 if block in rows else 1
        with transaction(self.app.engine) as session:
            announcement = self._write(
                session, scope, spec, block, tz, draft, list(decision.input_ids), watermark, now, version
            )
            session.flush()
            return announcement.id

    def _guarded(
        self, scope: str, spec: LadderSpec, block: Block, now: datetime, has_hold: bool, write: Callable[[], T]
    ) -> tuple[Guard, T | None]:
        """Run one window's write; a deferred or failed model call holds the window for later.

        A hold row says when to try again: the budget's reopening time, or the ledger's
        backoff after a failure (so a window whose call keeps failing costs one call per
        backoff, not one per tick). Other windows go on meanwhile.
        """
        rung = spec.rungs[block.rung].name
        key = block_key(spec, block)
        where = {"scope": scope, "ladder": spec.kind, "rung": rung, "window": key}
        self.on_progress()
        try:
            result = write()
        except BudgetExceeded as exc:
            self.deferred[(spec.kind, rung)] += 1
            log.info("ladder.deferred", **where, tier=exc.tier)
            self._hold(scope, spec.kind, rung, key, exc.reopens_at or now, "deferred: daily budget", failed=False)
            return Guard.DEFERRED, None
        except ModelError as exc:
            error = f"{type(exc).__name__}: {exc}"[:300]
            attempts = self._hold(scope, spec.kind, rung, key, now, error, failed=True)
            log.warning("ladder.call_failed", **where, attempts=attempts, error=error)
            return Guard.FAILED, None
        if has_hold:
            self._release(scope, spec.kind, rung, key)
        return Guard.DONE, result

    def _holds(self, scope: str, kind: str, now: datetime) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """(every held window, those still waiting at `now`)."""
        with reading(self.app.engine) as session:
            found = holds(session, scope, kind)
        return set(found), {w for w, h in found.items() if h.next_at > now}

    def _hold(self, scope, kind, rung, key, now_or_reopen: datetime, reason: str, failed: bool) -> int:
        with transaction(self.app.engine) as session:
            hold = session.get(LadderHold, (scope, kind, rung, key))
            if hold is None:
                hold = LadderHold(scope=scope, ladder=kind, rung=rung, key=key, next_at=now_or_reopen)
                session.add(hold)
            if failed:
                hold.attempts += 1
                hold.next_at = now_or_reopen + backoff(hold.attempts, self.app.settings.retry)
            else:
                hold.next_at = now_or_reopen
            hold.reason = reason
            return hold.attempts

    def _release(self, scope, kind, rung, key) -> None:
        with transaction(self.app.engine) as session:
            hold = session.get(LadderHold, (scope, kind, rung, key))
            if hold is not None:
                session.delete(hold)

    def _floor(self, scope: str, kind: str) -> int | None:
        """The first day of a scope's time ladder; the count ladder starts at interaction 1."""
        if kind != "time":
            return 0
        with reading(self.app.engine) as session:
            state = session.get(LadderState, (scope, kind))
            return state.first_unit if state else None

    # --- drafting and writing -------------------------------------------------------------

    def _draft(self, scope, kind, spec, block, inputs: list[SummaryInput], join: Callable[[], str]) -> Draft:
        if not inputs:
            return Draft("empty", "")
        if sum(estimate_tokens(i.text) for i in inputs) <= self.budget:
            return Draft("passed", join())
        return self._call(scope, kind, spec, block, inputs)

    def _call(self, scope, kind, spec: LadderSpec, block: Block, inputs: list[SummaryInput]) -> Draft:
        digest = content_hash(self.model.name, self.budget, inputs)
        if self.reuse:
            with reading(self.app.engine) as session:
                earlier = reusable(session, scope, digest)
            if earlier is not None:
                return Draft("reused", earlier.text, digest, 0, 0)
        size = sum(estimate_tokens(i.text) for i in inputs)
        request = SummarizeRequest(
            scope=scope, ladder=kind, rung=spec.rungs[block.rung].name, window_label=block_label(spec, block),
            inputs=inputs, budget_tokens=self.budget, ref=f"{kind}/{spec.rungs[block.rung].name}/{block_key(spec, block)}",
        )
        reply = self.model.summarize(request)
        self.largest_input = max(self.largest_input, size)
        rung_key = (kind, spec.rungs[block.rung].name)
        self.largest_by_rung[rung_key] = max(self.largest_by_rung.get(rung_key, 0), size)
        return Draft("summarized", reply.text, digest, size, 1)

    def _write(self, session, scope, spec: LadderSpec, block: Block, tz, draft: Draft, sources, watermark, now, version):
        kind = spec.kind
        rung = spec.rungs[block.rung].name
        key = block_key(spec, block)
        summary = Summary(
            id=summary_id(scope, kind, rung, key, version), scope=scope, ladder=kind, rung=rung, key=key,
            version=version, kind=draft.kind, label=block_label(spec, block), text=draft.text,
            tokens=estimate_tokens(draft.text), sources=list(sources), input_hash=draft.input_hash,
            input_tokens=draft.input_tokens, calls=draft.calls, watermark_seq=watermark[0],
            watermark_at=watermark[1], created_at=now,
        )
        if kind == "time":
            summary.window_start, summary.window_end = time_window(spec, block, tz)
        else:
            summary.first_number, summary.last_number = count_window(spec, block)
        self.stats[(kind, rung, draft.kind)] += 1
        bump(session, scope, ladder_view(kind, rung))  # the rung's snapshot is stale until published
        log.debug("ladder.rung_written", scope=scope, ladder=kind, rung=rung, window=key, version=version, kind=draft.kind)
        return write_summary(session, summary)


def _unit(kind: str, block: Block) -> int:
    return block.index if kind == "time" else block.index + 1
