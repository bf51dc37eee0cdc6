"""Batch mode of the Anthropic backend (`model.batch_api`): a layer under the model port.

Why here: the steps, ladders and the offline pass keep asking the model port as before; only
the backend learns that an answer may come later. The first time a request is seen it is
queued in `stores.batch_requests` under its `custom_id` (a hash of the request and the work
unit that asked for it) and `BatchPending` is raised: every caller already treats a deferral
as "not now, no attempt used" (the step runner reschedules the run, the ladders hold the
window, the offline pass skips the scope) and goes on with other work. The courier
(consolidator.batches.courier) sends queued requests as one Message Batch and stores the
answers. When the same work is prepared again, its request hashes to the same custom_id, and
the stored answer is returned: the step then applies it through its exactly-once ledger.

A request still unanswered after `batch_max_wait` is given up on the batch and answered by a
direct call (`answer` returns None); a late batch answer is still billed, never applied twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from consolidator.model.base import BatchPending
from consolidator.model.settings import ModelSettings
from stores import batch_requests as store
from stores.engine import Engine


def custom_id(operation: str, request: Any, params: dict[str, Any]) -> str:
    """The request's key: the same work asking the same thing gets the same id (64 hex digits).

    A summary is keyed by what the ladders' content hash keys it by (model, budget, inputs),
    not by its window: a day that is exactly one interaction shares that interaction's
    summary, as it does with direct calls, instead of a second request in the same batch.
    """
    if operation == "summarize":
        identity: Any = {"op": operation, "scope": request.scope, "model": params.get("model"),
                         "budget": request.budget_tokens, "inputs": [(i.label, i.text) for i in request.inputs]}
    else:
        identity = {"op": operation, "scope": request.scope, "ref": request.ref, "params": params}
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


class BatchBook:
    """Where the backend looks for a request's batch answer, queueing the request when new."""

    def __init__(self, engine: Engine, settings: ModelSettings, now: Callable[[], datetime] = lambda: datetime.now(UTC)):
        self.engine = engine
        self.settings = settings
        self.now = now

    def answer(self, operation: str, request: Any, model: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """The stored Message (a dict) that answers `request` (sent as `params`), or None: call
        directly. Raises BatchPending while the batch has not answered (the request is queued if new)."""
        scope, ref = request.scope, request.ref
        key = custom_id(operation, request, params)
        now = self.now()
        seen = store.ask(self.engine, key, scope=scope, operation=operation, ref=ref, model=model,
                         params=json.dumps(params, default=str), now=now)
        if seen.state == store.ANSWERED and seen.result is not None:
            return json.loads(seen.result)
        if seen.state == store.DIRECT:
            return None
        if now - seen.created_at >= self.settings.batch_max_wait:
            store.go_direct(self.engine, key)
            return None
        raise BatchPending(f"{operation} for {scope}: waiting for its message batch", wait=self.settings.batch_poll)
