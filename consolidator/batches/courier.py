"""The courier of model.batch_api: submits queued requests as Message Batches, stores answers.

A daemon stage (runs after the others each tick, so the requests they queued go out in the
same tick). Each run, in this order:

1. Batches recorded as "submitting" with no API id (a crash, or a create whose reply was
   lost, between asking the API and recording its id) are looked for among the API's batches:
   one created since, not known here, with as many requests, is adopted; if there is none, the
   batch was never made and its requests are queued again. So work is never submitted twice.
2. Batches in progress are polled; an ended one's results are stored with their ledger rows
   (outcome "ok" at the batch price, "error" for a request that got no message) in one
   transaction; errored, expired or canceled requests are queued again, each alone. A batch
   older than `batch_max_wait` is canceled (its work has gone to direct calls).
3. Queued requests (not yet older than `batch_max_wait`) are submitted: one batch for all,
   and one batch per request that failed in an earlier batch. The batch row and its
   custom_ids are written before the API call, the batch id right after.

API failures are logged and the step is tried again next run; nothing here raises for them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from consolidator.model.recording import CallRecord
from consolidator.model.settings import BATCH_DISCOUNT, ModelSettings
from stores import batch_requests as store
from stores.engine import Engine, reading
from stores.schema.model import FORGOTTEN_SCOPE

log = structlog.get_logger()

MAX_REQUESTS = 10_000  # the API's limit per batch
CLOCK_SKEW = timedelta(minutes=5)  # between our clock and the API's created_at, when adopting a batch


class BatchCourier:
    name = "batches"

    def __init__(self, engine: Engine, settings: ModelSettings, batches: Any, *, recorder: Any = None,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.engine = engine
        self.settings = settings
        self.api = batches  # the SDK's client.messages.batches
        self.recorder = recorder  # told of each billed result after it is stored (the budget gate), or None
        self.now = now
        self.on_progress: Callable[[], None] = lambda: None  # ports.Stage

    def run(self, now: datetime | None = None, stop: threading.Event | None = None, scopes: Any = None) -> int:
        """One round: resolve, poll, submit; returns batches submitted plus batches whose results were stored.

        `scopes` is ignored: batches hold every scope's requests (the daemon runs the courier once
        per tick, not per claimed scope)."""
        self.resolve()
        done = self.poll()
        if stop is None or not stop.is_set():
            done += self.submit()
        return done

    # --- 1. a submission whose outcome is unknown ---

    def resolve(self) -> None:
        with reading(self.engine) as session:
            unknown = [b for b in store.batches(session, store.SUBMITTING) if b.batch_id is None]
            known = store.known_batch_ids(session)
        if not unknown:
            return
        try:
            listed = list(self.api.list(limit=100))
        except Exception as exc:  # noqa: BLE001 - any API failure: try again next run
            log.warning("batch.list_failed", error=f"{type(exc).__name__}: {exc}"[:300])
            return
        for batch in unknown:
            match = next((b for b in sorted(listed, key=lambda b: b.created_at)
                          if b.id not in known and _total(b) == batch.requests
                          and b.created_at >= batch.created_at - CLOCK_SKEW), None)
            if match is None:
                store.batch_never_made(self.engine, batch.key)
                log.info("batch.never_made", key=batch.key, requests=batch.requests)
            else:
                known.add(match.id)
                store.batch_submitted(self.engine, batch.key, match.id)
                log.info("batch.adopted", key=batch.key, batch_id=match.id, requests=batch.requests)

    # --- 2. results ---

    def poll(self) -> int:
        with reading(self.engine) as session:
            open_batches = store.batches(session, "in_progress")
        stored = 0
        for batch in open_batches:
            try:
                remote = self.api.retrieve(batch.batch_id)
                if remote.processing_status != "ended":
                    if self.now() - batch.created_at >= self.settings.batch_max_wait and remote.processing_status == "in_progress":
                        self.api.cancel(batch.batch_id)
                        log.info("batch.canceled", batch_id=batch.batch_id, age_s=(self.now() - batch.created_at).total_seconds())
                    continue
                lines = list(self.api.results(batch.batch_id))
            except Exception as exc:  # noqa: BLE001
                log.warning("batch.poll_failed", batch_id=batch.batch_id, error=f"{type(exc).__name__}: {exc}"[:300])
                continue
            self._store(batch, lines)
            stored += 1
            self.on_progress()
        return stored

    def _store(self, batch: Any, lines: list[Any]) -> None:
        now = self.now()
        with reading(self.engine) as session:
            rows = store.requests_of(session, [line.custom_id for line in lines])
        answers: dict[str, str | None] = {}
        calls: list[CallRecord] = []
        latency_s = max(0.0, (now - batch.created_at).total_seconds())
        for line in lines:
            row = rows.get(line.custom_id)
            result = line.result
            message = result.message if result.type == "succeeded" else None
            answers[line.custom_id] = message.model_dump_json() if message is not None else None
            if result.type == "canceled" or (result.type == "expired"):
                continue  # never processed: no bill, and no call was made
            calls.append(self._call(row, message, latency_s, now))
        store.store_results(self.engine, batch.key, answers, calls, now)
        counts = {kind: sum(1 for line in lines if line.result.type == kind)
                  for kind in ("succeeded", "errored", "expired", "canceled")}
        log.info("batch.ended", batch_id=batch.batch_id, **counts)
        if self.recorder is not None:
            for call in calls:
                self.recorder.record(call)

    def _call(self, row: Any, message: Any, latency_s: float, now: datetime) -> CallRecord:
        """The ledger row of one result: billed at the batch price, or an error with no tokens."""
        scope, ref = (row.scope, row.ref) if row is not None else (FORGOTTEN_SCOPE, "")
        operation = row.operation if row is not None else "batch"
        model = message.model if message is not None else (row.model if row is not None else "")
        usage = message.usage if message is not None else None
        tokens = {
            "input_tokens": (usage.input_tokens or 0) if usage else 0,
            "output_tokens": (usage.output_tokens or 0) if usage else 0,
            "cache_read_tokens": (usage.cache_read_input_tokens or 0) if usage else 0,
            "cache_write_tokens": (usage.cache_creation_input_tokens or 0) if usage else 0,
        }
        price = self.settings.price_for(model) if message is not None else None
        cost = price.cost(**tokens) * BATCH_DISCOUNT if price else 0.0
        return CallRecord(operation=operation, scope=scope, ref=ref, model=model, **tokens, latency_s=latency_s,
                          outcome="ok" if message is not None else "error", cost_usd=cost, at=now)

    # --- 3. submission ---

    def submit(self) -> int:
        now = self.now()
        with reading(self.engine) as session:
            waiting = store.queued(session, now - self.settings.batch_max_wait)
        if not waiting:
            return 0
        groups = [[r] for r in waiting if r.alone]
        together = [r for r in waiting if not r.alone]
        groups += [together[i:i + MAX_REQUESTS] for i in range(0, len(together), MAX_REQUESTS)]
        submitted = 0
        for group in groups:
            requests = [{"custom_id": r.custom_id, "params": json.loads(r.params)} for r in group]
            key = store.open_batch(self.engine, [r.custom_id for r in group], now)  # recorded before the call
            try:
                created = self.api.create(requests=requests)
            except Exception as exc:  # noqa: BLE001
                self._failed_create(key, exc)
                continue
            store.batch_submitted(self.engine, key, created.id)  # and its id right after
            log.info("batch.submitted", batch_id=created.id, requests=len(group))
            submitted += 1
            self.on_progress()
        return submitted

    def _failed_create(self, key: int, exc: Exception) -> None:
        status = getattr(exc, "status_code", None)
        log.warning("batch.submit_failed", key=key, status=status, error=f"{type(exc).__name__}: {exc}"[:300])
        if status is None:
            return  # no answer: the batch may exist; the next run looks for it (resolve)
        # An HTTP error: the API made no batch. A refusal of the requests themselves (4xx but
        # 408/409/429) would be refused again: they go to direct calls, which report why.
        refused = 400 <= status < 500 and status not in (408, 409, 429)
        store.batch_never_made(self.engine, key, refused=refused)


def _total(remote: Any) -> int:
    counts = remote.request_counts
    return counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
