"""Running due batch steps: prepare concurrently, apply each in its own ledger transaction.

Order: within one (scope, step) the runs go in batch order, and a run that is failing holds
back the later batches of that same step, whether it waits for a retry (retrying) or used up
its attempts (failed, until `consolidator retry` re-arms it): a step applies a scope's
batches in the order they were said, so a re-armed facts run is never applied after newer
batches (an older fact would supersede a newer one). It never holds back other steps or
other scopes (stores.ledger.step_heads).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence

import structlog

from consolidator.core.config import RetrySettings
from consolidator.model.base import Deferred
from stores.errors import StorageError
from consolidator.pipeline.steps import BatchStep, BatchWork, MessageView
from stores.engine import Engine, reading
from stores.schema.ledger import Batch, RunStatus, StepRun
from stores.messages import lines_before, messages_between
from stores.ledger import open_run, step_heads

log = structlog.get_logger()

DEFERRED = "deferred: daily budget"


@dataclass
class RunReport:
    done: int = 0
    failed: int = 0
    skipped: int = 0
    deferred: int = 0
    errors: list[str] = field(default_factory=list)


def backoff(attempts: int, retry: RetrySettings) -> timedelta:
    """Delay before attempt `attempts + 1`: base x 2^(attempts-1), capped."""
    seconds = retry.base_delay.total_seconds() * (2 ** max(0, attempts - 1))
    return timedelta(seconds=min(seconds, retry.max_delay.total_seconds()))


def due_runs(engine: Engine, now: datetime, known_steps: set[str],
             scopes: Sequence[str] | None = None) -> list[tuple[StepRun, Batch]]:
    """The head run of each (scope, step) of these scopes (None: all), if it is due now, in batch order."""
    with reading(engine) as session:
        heads = step_heads(session, scopes)
    return [
        (run, batch)
        for run, batch in heads
        if run.step in known_steps and (run.next_at is None or run.next_at <= now)
    ]


def load_work(engine: Engine, batch: Batch, now: datetime, context_lines: int = 0) -> BatchWork:
    """A batch's messages, and up to `context_lines` lines of the same interaction just before
    them (a reply at the top of the batch is read with the question it answers)."""
    with reading(engine) as session:
        rows = messages_between(session, batch.scope, batch.first_seq, batch.last_seq)
        first = rows[0].interaction if rows else None
        before = lines_before(session, batch.scope, first, batch.first_seq, context_lines)
    views, context = (tuple(MessageView(m.id, m.seq, m.at, m.role, m.speaker, m.text, m.session, m.interaction,
                                        m.attachments) for m in group) for group in (rows, before))
    return BatchWork(batch.id, batch.scope, batch.number, batch.first_seq, batch.last_seq, views, now, context)


class StepRunner:
    def __init__(
        self,
        engine: Engine,
        steps: Sequence[BatchStep],
        retry: RetrySettings,
        workers: int = 3,
        on_progress: Callable[[], None] = lambda: None,
        context_lines: int = 0,
    ):
        self._on_progress = on_progress
        self._context_lines = context_lines
        self._engine = engine
        self._steps = {step.name: step for step in steps}
        self._retry = retry
        self._workers = workers

    def run_due(self, now: datetime, stop: threading.Event | None = None,
                scopes: Sequence[str] | None = None) -> RunReport:
        """Run every due step of these scopes (None: all), round after round, until nothing due is left (or `stop`).

        Each round takes the head run of each (scope, step); a run that succeeds makes the
        next batch of that step the head of the next round, so a backlog drains in one tick.
        """
        report = RunReport()
        while not (stop is not None and stop.is_set()):
            progress = report.done + report.skipped
            by_batch: dict[int, list[StepRun]] = {}
            batches: dict[int, Batch] = {}
            for run, batch in due_runs(self._engine, now, set(self._steps), scopes):
                by_batch.setdefault(batch.id, []).append(run)
                batches[batch.id] = batch
            if not by_batch:
                break
            for batch_id, runs in by_batch.items():
                if stop is not None and stop.is_set():
                    break
                self._run_batch(batches[batch_id], runs, now, report, stop)
            if report.done + report.skipped == progress:
                break  # everything due failed or was deferred this round
        return report

    def _run_batch(self, batch: Batch, runs: list[StepRun], now: datetime, report: RunReport, stop) -> None:
        work = load_work(self._engine, batch, now, self._context_lines)
        with ThreadPoolExecutor(max_workers=min(self._workers, len(runs)), thread_name_prefix="step") as pool:
            futures = {run.id: pool.submit(self._prepare, self._steps[run.step], work) for run in runs}
            prepared = {run_id: future.result() for run_id, future in futures.items()}
        for run in runs:
            if stop is not None and stop.is_set():
                break
            self._on_progress()
            outcome, value, started = prepared[run.id]
            if outcome == "ok":
                try:
                    applied = self._apply(run.id, self._steps[run.step], work, value, started)
                except StorageError:
                    raise  # a full disk or read-only database is not the step's fault: no attempt is used
                except Exception as exc:  # a step's apply may fail in any way; the ledger absorbs it
                    self._fail(run.id, batch, run.step, exc, started, now, report)
                    continue
                if applied:
                    report.done += 1
                else:
                    report.skipped += 1
            elif isinstance(value, StorageError):
                raise value
            elif isinstance(value, Deferred):  # the budget, or a batch not answered yet
                self._defer(run.id, batch, run.step, value, now, report)
            else:
                self._fail(run.id, batch, run.step, value, started, now, report)

    @staticmethod
    def _prepare(step: BatchStep, work: BatchWork) -> tuple[str, Any, float]:
        started = time.monotonic()
        try:
            return "ok", step.prepare(work), started
        except Exception as exc:  # reported through the ledger
            return "error", exc, started

    def _apply(self, run_id: int, step: BatchStep, work: BatchWork, prepared: Any, started: float) -> bool:
        with open_run(self._engine, run_id) as (session, run):
            if run is None:
                return False  # another worker finished it first
            step.apply(session, work, prepared)
            duration = int((time.monotonic() - started) * 1000)
            run.status = RunStatus.DONE.value
            run.attempts += 1
            run.finished_at = work.now
            run.duration_ms = duration
            run.next_at = None
            run.last_error = None
        log.info("batch.step", scope=work.scope, batch=work.number, step=step.name, outcome="done", duration_ms=duration)
        return True

    def _defer(self, run_id: int, batch: Batch, step: str, exc: Deferred, now: datetime, report: RunReport) -> None:
        until = exc.until(now)
        with open_run(self._engine, run_id) as (_, run):
            if run is None:
                return
            run.status = RunStatus.RETRYING.value
            run.next_at = until
            run.last_error = exc.reason
        report.deferred += 1
        log.info("batch.step", scope=batch.scope, batch=batch.number, step=step, outcome="deferred",
                 next_at=until.isoformat(), tier=getattr(exc, "tier", None), reason=exc.reason)

    def _fail(self, run_id: int, batch: Batch, step: str, exc: BaseException, started: float, now: datetime, report: RunReport) -> None:
        duration = int((time.monotonic() - started) * 1000)
        error = f"{type(exc).__name__}: {exc}"[:2000]
        with open_run(self._engine, run_id) as (_, run):
            if run is None:
                return
            run.attempts += 1
            run.last_error = error
            if run.attempts >= self._retry.max_attempts:
                run.status = RunStatus.FAILED.value
                run.next_at = None
            else:
                run.status = RunStatus.RETRYING.value
                run.next_at = now + backoff(run.attempts, self._retry)
            attempts, status, next_at = run.attempts, run.status, run.next_at
        report.failed += 1
        report.errors.append(error)
        log.warning(
            "batch.step",
            scope=batch.scope,
            batch=batch.number,
            step=step,
            outcome=status,
            attempts=attempts,
            next_at=next_at.isoformat() if next_at else None,
            duration_ms=duration,
            error=error,
        )
