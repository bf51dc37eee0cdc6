"""The Message Batches endpoints of FakeAnthropic (`fake.batches`), as the real SDK calls them.

    POST /v1/messages/batches                  create: {"requests": [{custom_id, params}, ...]}
    GET  /v1/messages/batches                  list (newest first, one page)
    GET  /v1/messages/batches/{id}             retrieve: a MessageBatch
    GET  /v1/messages/batches/{id}/results     JSON lines of MessageBatchIndividualResponse
    POST /v1/messages/batches/{id}/cancel      cancel: unprocessed requests end "canceled"

A batch ends after `polls_to_end` retrieves (0: it has ended by the first retrieve; a large
number: a batch that ends late). When it ends each request is answered as `POST /v1/messages`
would answer it (same responder, same token counts and counters), unless `outcome(custom_id,
params)` says "errored" or "expired"; those get no message and cost nothing. The server
counts batches created, requests submitted (`submitted`: every custom_id, in order, so a
test sees a duplicate submission) and results served. `on_event(event, batch_id)` is called
before answering a create ("created", the batch already made) and a results request
("results"): a test may kill its client there.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tests.support.fake_anthropic import FakeAnthropic

Outcome = Literal["errored", "expired"] | None
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass
class _Batch:
    id: str
    requests: list[dict[str, Any]]
    created_at: datetime
    polls_left: int
    results: dict[str, dict[str, Any]] | None = None  # custom_id -> result, once ended
    canceled: bool = False
    ended_at: datetime | None = None


@dataclass
class FakeBatches:
    """The batch half of the fake; `fake.batches` (FakeAnthropic makes one)."""

    fake: "FakeAnthropic"
    polls_to_end: int = 0
    outcome: Callable[[str, dict[str, Any]], Outcome] | None = None
    created: int = 0
    submitted: list[str] = field(default_factory=list)  # custom_ids in submission order
    retrieves: int = 0
    results_served: int = 0
    by_id: dict[str, _Batch] = field(default_factory=dict)
    on_event: Callable[[str, str], None] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.RLock()

    # --- endpoints: (status, payload) or (status, jsonl bytes) ---

    def create(self, body: dict[str, Any]) -> tuple[int, Any]:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            return 400, _error("requests: at least one request is required")
        ids = [r.get("custom_id", "") for r in requests]
        if len(set(ids)) != len(ids) or not all(_CUSTOM_ID.match(i) for i in ids):
            return 400, _error("custom_id: must be unique within the batch and match ^[a-zA-Z0-9_-]{1,64}$")
        for r in requests:
            from tests.support.fake_anthropic import _problem

            if (problem := _problem(r.get("params", {}))) is not None:
                return 400, _error(f"requests[{r['custom_id']}].params: {problem}")
        with self._lock:
            self.created += 1
            self.submitted.extend(ids)
            batch = _Batch(f"msgbatch_fake_{self.created}", requests, datetime.now(UTC), self.polls_to_end)
            self.by_id[batch.id] = batch
            view = self._view(batch)
        if self.on_event is not None:
            self.on_event("created", batch.id)
        return 200, view

    def list(self) -> tuple[int, Any]:
        with self._lock:
            data = [self._view(b) for b in sorted(self.by_id.values(), key=lambda b: b.created_at, reverse=True)]
        return 200, {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
                     "last_id": data[-1]["id"] if data else None}

    def retrieve(self, batch_id: str) -> tuple[int, Any]:
        with self._lock:
            batch = self.by_id.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id}", "not_found_error")
            self.retrieves += 1
            if batch.results is None:
                if batch.polls_left <= 0:
                    self._end(batch)
                else:
                    batch.polls_left -= 1
            return 200, self._view(batch)

    def results(self, batch_id: str) -> tuple[int, Any]:
        import json

        with self._lock:
            batch = self.by_id.get(batch_id)
            if batch is None or batch.results is None:
                return 404 if batch is None else 400, _error(f"batch {batch_id} has not ended")
            lines = [{"custom_id": cid, "result": result} for cid, result in batch.results.items()]
            self.results_served += len(lines)
        if self.on_event is not None:
            self.on_event("results", batch_id)
        return 200, "".join(json.dumps(line) + "\n" for line in reversed(lines)).encode()  # any order

    def cancel(self, batch_id: str) -> tuple[int, Any]:
        with self._lock:
            batch = self.by_id.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id}", "not_found_error")
            if batch.results is None:
                batch.canceled = True
                self._end(batch)
            return 200, self._view(batch)

    # --- internals ---

    def _end(self, batch: _Batch) -> None:
        import json

        results: dict[str, dict[str, Any]] = {}
        for request in batch.requests:
            cid, params = request["custom_id"], request["params"]
            kind = "canceled" if batch.canceled else (self.outcome(cid, params) if self.outcome else None)
            if kind == "errored":
                results[cid] = {"type": "errored", "error": {"type": "error", "request_id": None,
                                                              "error": {"type": "api_error", "message": "Internal"}}}
            elif kind in ("expired", "canceled"):
                results[cid] = {"type": kind}
            else:
                message = self.fake._message(params, len(json.dumps(params).encode()), None)
                results[cid] = {"type": "succeeded", "message": message}
        batch.results = results
        batch.ended_at = datetime.now(UTC)

    def _view(self, batch: _Batch) -> dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.results is None:
            counts["processing"] = len(batch.requests)
        else:
            for result in batch.results.values():
                counts[result["type"]] += 1
        ended = batch.results is not None
        return {
            "id": batch.id, "type": "message_batch",
            "processing_status": "ended" if ended else ("canceling" if batch.canceled else "in_progress"),
            "request_counts": counts,
            "created_at": _iso(batch.created_at), "expires_at": _iso(batch.created_at + timedelta(hours=24)),
            "ended_at": _iso(batch.ended_at) if batch.ended_at else None,
            "cancel_initiated_at": _iso(batch.ended_at) if batch.canceled and batch.ended_at else None,
            "archived_at": None,
            "results_url": f"{self.fake.url}/v1/messages/batches/{batch.id}/results" if ended else None,
        }


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def route(batches: FakeBatches, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any] | None:
    """The endpoint for `method path`, or None when the path is not a batch endpoint."""
    parts = path.split("?")[0].rstrip("/").split("/")
    if parts[:4] != ["", "v1", "messages", "batches"]:
        return None
    rest = parts[4:]
    if method == "POST" and not rest:
        return batches.create(body or {})
    if method == "GET" and not rest:
        return batches.list()
    if method == "GET" and len(rest) == 1:
        return batches.retrieve(rest[0])
    if method == "GET" and len(rest) == 2 and rest[1] == "results":
        return batches.results(rest[0])
    if method == "POST" and len(rest) == 2 and rest[1] == "cancel":
        return batches.cancel(rest[0])
    return 404, _error(f"no route {method} {path}", "not_found_error")
