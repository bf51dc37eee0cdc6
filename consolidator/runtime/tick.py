"""One tick of the daemon: everything due at `now`, as a function of `now` and the database.

The scheduler calls `Consolidator.tick(now)` on an interval; tests and `run --once` call it
directly with chosen times, so time-driven behaviour needs no sleeps and no real clock.
A tick works only the scopes the work queue (stores/work_queue.py) says are due at `now`:
it claims one due scope at a time, and in it assigns new messages to interactions, cuts
batches, runs the due batch steps, then the later stages (ladders, sleep, snapshots) which
read what the earlier ones wrote; then it leaves the scope's next due time (pipeline/scope_due.py)
or removes its row. A tick with nothing due is one claim query, whatever the number of
scopes. On PostgreSQL several daemons tick at once; each scope is worked by the one daemon
holding its claim (DESIGN.md, "Claims").

Faults: a stage that raises is recorded in the fault book and the next stage still runs
(one stage never blocks another); a storage fault (full disk, read-only database) fails the
tick as a whole, recorded as the "tick" fault and raised to the caller.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Sequence

import structlog

from consolidator.core.app import App
from consolidator.pipeline.assign import assign_interactions
from consolidator.pipeline.batching import cut_batches, ensure_step_runs
from consolidator.cost.budget import BudgetGate
from consolidator.core.faults import FaultBook
from consolidator.runtime.progress import Progress
from consolidator.pipeline.runner import StepRunner
from consolidator.pipeline.steps import BatchStep, check_unique
from consolidator.pipeline.claims import ClaimKeeper
from consolidator.pipeline.scope_due import next_due
from consolidator.runtime.lease_keeper import AnyEvent
from stores.engine import reading, shares_work
from stores.errors import StorageError
from stores import lease
from stores.lease import Holder
from stores.pending import pending
from stores.work_queue import Claim, claim_due, mark_all_due, release_all, settle

if TYPE_CHECKING:
    from consolidator.ports import Stage

log = structlog.get_logger()

TICK_WIDE_LEASE = "tick-wide"  # the named lease under which one daemon runs the tick-wide stages


@dataclass
class TickReport:
    interactions: int = 0
    batches: int = 0
    steps_done: int = 0
    steps_failed: int = 0
    stages: dict[str, int] = field(default_factory=dict)

    @property
    def busy(self) -> bool:
        return bool(self.interactions or self.batches or self.steps_done or self.steps_failed or any(self.stages.values()))

    def add(self, other: "TickReport") -> None:
        self.interactions += other.interactions
        self.batches += other.batches
        self.steps_done += other.steps_done
        self.steps_failed += other.steps_failed
        for name, count in other.stages.items():
            self.stages[name] = self.stages.get(name, 0) + count


class Consolidator:
    def __init__(self, app: App, steps: Sequence[BatchStep], stages: Sequence["Stage"] = (), gate: BudgetGate | None = None,
                 faults: FaultBook | None = None, holder: str | None = None, every_tick: Sequence["Stage"] = (),
                 idle: Sequence["Stage"] = ()):
        self.app = app
        self.idle = list(idle)  # housekeeping (the archive) run only by ticks that found nothing else due
        self.gate = gate  # the daily model budget, read once per tick
        self.faults = faults if faults is not None else FaultBook(app.engine)
        self.steps = check_unique(list(steps))
        self.stages = list(stages)
        # Stages whose work is not any one scope's (the batch courier): run once per tick after
        # the claimed scopes, by one daemon at a time where several share the database.
        self.every_tick = list(every_tick)
        settings = app.settings
        self.progress = Progress()
        self.holder = holder or Holder.this_process().holder  # who claims scopes in the work queue
        self._claim_ttl = settings.daemon.lease_ttl
        self._shared = shares_work(app.engine)  # several daemons (PostgreSQL); SQLite: the lease makes us the only one
        self._step_names = {s.name for s in self.steps}
        self._seeded = False
        self._keeper: ClaimKeeper | None = None
        self._runner = StepRunner(
            app.engine, self.steps, settings.retry, settings.daemon.step_workers, on_progress=self._beat,
            context_lines=settings.batch_context_lines,
        )
        for stage in (*self.stages, *self.every_tick, *self.idle):  # every stage beats per finished unit of work (ports.Stage)
            stage.on_progress = self._beat
        ensure_step_runs(app.engine, [s.name for s in self.steps])

    def tick(self, now: datetime, stop: threading.Event | None = None) -> TickReport:
        self.progress.start()
        try:
            report = self._tick(now, stop)
        except Exception as exc:
            self.faults.failed("tick", "", exc, now)
            raise
        finally:
            self.progress.stop()
        self.faults.succeeded("tick", "", now)
        return report

    def _tick(self, now: datetime, stop: threading.Event | None) -> TickReport:
        """Claim due scopes one at a time and work each, then the tick-wide stages (the archive only
        when nothing else was due); an idle tick is one claim query and those stages' own probes."""
        report = TickReport()
        if self.gate is not None:
            self.gate.refresh(now)
        if not self._seeded:  # a database from before the queue: every scope is looked at once
            mark_all_due(self.app.engine, now)
            self._seeded = True
        again: set[str] = set()  # worked this tick and still due (a stop, a failing publication): next tick
        while not (stop is not None and stop.is_set()):
            claims = claim_due(self.app.engine, self.holder, now, self._claim_ttl, exclude=again, shared=self._shared)
            if not claims:
                break
            report.add(self._work_scope(claims[0], now, stop, again))
        self._run_tick_wide(self.every_tick, now, stop, report)
        if not report.busy:
            self._run_tick_wide(self.idle, now, stop, report)
        if report.busy:
            log.info("daemon.tick", **_report_fields(report))
        return report

    def _work_scope(self, claim: Claim, now: datetime, stop: threading.Event | None, again: set[str]) -> TickReport:
        """Everything due in one claimed scope, then its next due time (or its row removed)."""
        scope, settings = claim.scope, self.app.settings
        keeper = ClaimKeeper(self.app.engine, self.holder, claim, now, self._claim_ttl)
        halt = AnyEvent(keeper.lost, *([stop] if stop is not None else []))
        self._keeper = keeper
        report = TickReport()
        try:
            with reading(self.app.engine) as session:
                before = pending(session, scope)
            if before.newest_seq > before.assigned_seq:
                report.interactions += len(assign_interactions(self.app.engine, scope, settings.interaction_gap))
            if before.newest_seq > before.batched_seq:
                names = [s.name for s in self.steps]
                report.batches += len(
                    cut_batches(self.app.engine, scope, names, settings.batch_size, settings.flush_idle, now)
                )
            self._beat()
            if self.steps and (before.run_heads or report.batches):  # else no step run is open: nothing to look up
                run = self._runner.run_due(now, halt, scopes=[scope])
                report.steps_done, report.steps_failed = run.done, run.failed
            for stage in self.stages:
                if halt.is_set():
                    break
                report.stages[stage.name] = self._run_stage(stage, now, halt, scope)
                self._beat()
        except BaseException:
            self._keeper = None
            try:  # the scope stays due (its row is untouched) and claimable by us or, after the ttl, by others
                release_all(self.app.engine, self.holder)
            except Exception:
                pass  # the original error says more
            raise
        self._keeper = None
        if not keeper.lost.is_set():
            with reading(self.app.engine) as session:
                after = pending(session, scope)
            due = next_due(after, settings, settings.timezone_of(scope), now, self._step_names)
            if due is not None and due <= now:
                again.add(scope)
            settle(self.app.engine, claim, self.holder, due)
        return report

    def _run_tick_wide(self, stages: list["Stage"], now: datetime, stop: threading.Event | None,
                       report: TickReport) -> None:
        """Stages whose work is no one scope's (the batch courier; the archive in idle ticks), for
        every scope at once, under the named lease TICK_WIDE_LEASE when daemons share the
        database (so two daemons never submit the same queued work or archive the same month),
        else directly."""
        if not stages or (stop is not None and stop.is_set()):
            return
        me = replace(Holder.this_process(), holder=self.holder)
        if self._shared and not lease.acquire(self.app.engine, me, now, self._claim_ttl, TICK_WIDE_LEASE):
            return  # another daemon runs them this tick
        for stage in stages:
            if stop is not None and stop.is_set():
                break
            report.stages[stage.name] = self._run_stage(stage, now, stop, None)

    def keep_claim(self) -> None:
        """Renew the claim of the scope being worked now (the daemon's heartbeat calls it, so a
        long unit of work, e.g. a slow model call, does not let the claim expire)."""
        keeper = self._keeper
        if keeper is not None:
            keeper.beat(force=True)

    def _beat(self) -> None:
        """Progress for the watchdog, and the claim in hand renewed while the work goes on."""
        self.progress.beat()
        keeper = self._keeper
        if keeper is not None:
            keeper.beat()

    def _run_stage(self, stage: "Stage", now: datetime, stop, scope: str | None) -> int:
        """One stage for one claimed scope (or, scope None, a tick-wide stage for all)."""
        where = f"stage:{stage.name}"
        try:
            done = stage.run(now, stop, scopes=None if scope is None else [scope])
        except StorageError:
            raise  # the database itself: nothing else can be done this tick
        except Exception as exc:  # one stage failing must not keep the others from running
            self.faults.failed(where, scope or "", exc, now)
            return 0
        self.faults.succeeded(where, scope or "", now)
        return done

    def drain(self, now: datetime, stop: threading.Event | None = None, max_ticks: int = 10_000) -> TickReport:
        """Tick until nothing more is due at `now` (what `run --once` does)."""
        total = TickReport()
        for _ in range(max_ticks):
            report = self.tick(now, stop)
            total.add(report)
            if not report.busy or (stop is not None and stop.is_set()):
                break
        return total

    def release_claims(self) -> None:
        """A clean stop: this daemon's claims end now, so others take its scopes at once."""
        release_all(self.app.engine, self.holder)


def _report_fields(report: TickReport) -> dict:
    return {
        "interactions": report.interactions,
        "batches": report.batches,
        "steps_done": report.steps_done,
        "steps_failed": report.steps_failed,
        **{f"stage_{k}": v for k, v in report.stages.items()},
    }
