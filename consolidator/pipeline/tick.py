"""One tick of the daemon: everything due at `now`, as a function of `now` and the database.

The scheduler calls `Consolidator.tick(now)` on an interval; tests and `run --once` call it
directly with chosen times, so time-driven behaviour needs no sleeps and no real clock.
Order within a tick: assign new messages to interactions, cut batches, run due batch
steps, then the later stages (ladders, snapshots) which read what the earlier ones wrote.

Faults: a stage that raises is recorded in the fault book and the next stage still runs
(one stage never blocks another); a storage fault (full disk, read-only database) fails the
tick as a whole, recorded as the "tick" fault and raised to the caller.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Sequence

import structlog

from consolidator.runtime.app import App
from consolidator.pipeline.assign import assign_interactions
from consolidator.pipeline.batching import cut_batches, ensure_step_runs
from consolidator.cost.budget import BudgetGate
from consolidator.runtime.faults import FaultBook
from consolidator.runtime.progress import Progress
from consolidator.pipeline.runner import StepRunner
from consolidator.pipeline.steps import BatchStep, check_unique
from stores.engine import reading
from stores.errors import StorageError
from stores.runs import scope_cursors
from stores.messages import scope_heads

if TYPE_CHECKING:
    from consolidator.ports import Stage

log = structlog.get_logger()


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
                 faults: FaultBook | None = None, idle: Sequence["Stage"] = ()):
        self.app = app
        self.idle = list(idle)  # housekeeping (the archive) run only by ticks that found nothing else due
        self.gate = gate  # the daily model budget, read once per tick
        self.faults = faults if faults is not None else FaultBook(app.engine)
        self.steps = check_unique(list(steps))
        self.stages = list(stages)
        settings = app.settings
        self.progress = Progress()
        self._runner = StepRunner(
            app.engine, self.steps, settings.retry, settings.daemon.step_workers, on_progress=self.progress.beat
        )
        for stage in self.stages + self.idle:  # every stage beats per finished unit of work (ports.Stage)
            stage.on_progress = self.progress.beat
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
        settings = self.app.settings
        report = TickReport()
        if self.gate is not None:
            self.gate.refresh(now)
        for scope, assigned, batched, newest in self._scope_positions():
            if stop is not None and stop.is_set():
                return report
            if newest > assigned:
                report.interactions += len(assign_interactions(self.app.engine, scope, settings.interaction_gap))
            if newest > batched:
                names = [s.name for s in self.steps]
                report.batches += len(
                    cut_batches(self.app.engine, scope, names, settings.batch_size, settings.flush_idle, now)
                )
            self.progress.beat()
        run = self._runner.run_due(now, stop)
        report.steps_done, report.steps_failed = run.done, run.failed
        for stage in self.stages:
            if stop is not None and stop.is_set():
                break
            report.stages[stage.name] = self._run_stage(stage, now, stop)
            self.progress.beat()
        if not report.busy and not (stop is not None and stop.is_set()):
            for stage in self.idle:
                report.stages[stage.name] = self._run_stage(stage, now, stop)
        if report.busy:
            log.info("daemon.tick", **_report_fields(report))
        return report

    def _run_stage(self, stage: "Stage", now: datetime, stop: threading.Event | None) -> int:
        where = f"stage:{stage.name}"
        try:
            done = stage.run(now, stop)
        except StorageError:
            raise  # the database itself: nothing else can be done this tick
        except Exception as exc:  # one stage failing must not keep the others from running
            self.faults.failed(where, "", exc, now)
            return 0
        self.faults.succeeded(where, "", now)
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

    def _scope_positions(self) -> list[tuple[str, int, int, int]]:
        with reading(self.app.engine) as session:
            newest = scope_heads(session)
            cursors = scope_cursors(session)
        out = []
        for scope, top in sorted(newest.items()):
            cursor = cursors.get(scope)
            out.append((scope, cursor.assigned_seq if cursor else 0, cursor.batched_seq if cursor else 0, top))
        return out


def _report_fields(report: TickReport) -> dict:
    return {
        "interactions": report.interactions,
        "batches": report.batches,
        "steps_done": report.steps_done,
        "steps_failed": report.steps_failed,
        **{f"stage_{k}": v for k, v in report.stages.items()},
    }
