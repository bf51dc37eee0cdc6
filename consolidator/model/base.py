"""The model port: every operation the consolidation steps may ask of a language model.

Only `consolidator.model.anthropic_backend` imports `anthropic`; everything else sees this
protocol. Implementations: `OfflineModel` (deterministic, the default when no API key is set)
and `AnthropicModel`. Tests may pass any object with these methods.

`BatchModel` is an optional capability on top of `Model`: `consolidate_batch` answers the
facts, contacts and tasks operations of one batch in a single call. Both backends have it;
a model without it is used one operation at a time (see consolidator.pipeline.batch_extraction).

One call path. `Operations` answers every operation through one method, `call(operation,
request)`: a backend is that method plus its wire format (the Anthropic backend), and a
`Layer` wraps another model by overriding `call` alone, as an httpx transport wraps another
(the budget gate, promised interaction summaries). A layer offers `consolidate_batch` exactly
when the model it wraps does.

Errors: a backend raises `ModelError` (or a subclass) when it cannot produce a valid reply;
the caller treats that as a failed step and lets the ledger retry it later.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, Protocol, runtime_checkable

from consolidator.model import schemas
from consolidator.model.settings import Operation


class ModelError(RuntimeError):
    """The model could not give a valid reply (after the backend's own retries)."""


class Deferred(ModelError):
    """The call cannot be answered now, but will be later: the work waits, it has not failed
    (no attempt is used). `until(now)` is when to try again."""

    reason = "deferred"

    def __init__(self, message: str, *, reopens_at: datetime | None = None, wait: timedelta | None = None) -> None:
        super().__init__(message)
        self.reopens_at = reopens_at
        self.wait = wait

    def until(self, now: datetime) -> datetime:
        """When to try again: `reopens_at`, else `now + wait`, else the next UTC midnight."""
        if self.reopens_at is not None:
            return self.reopens_at
        if self.wait is not None:
            return now + self.wait
        return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


class BudgetExceeded(Deferred):
    """Today's model budget is spent; the work is deferred, not failed.

    `tier` names the work tier that is closed; `reopens_at` (aware, UTC) is when the budget
    opens again (the next UTC midnight), or None when unknown.
    """

    reason = "deferred: daily budget"

    def __init__(self, message: str = "daily model budget spent", *, tier: str | None = None,
                 reopens_at: datetime | None = None) -> None:
        super().__init__(message, reopens_at=reopens_at)
        self.tier = tier


class BatchPending(Deferred):
    """The request was sent as part of a Message Batch (model.batch_api) and has no answer yet:
    try the same work again after `wait` (the poll interval); the answer is kept until then."""

    reason = "deferred: awaiting its message batch"
    tier = None


@runtime_checkable
class Model(Protocol):
    name: str

    def summarize(self, request: schemas.SummarizeRequest) -> schemas.SummaryReply: ...

    def extract_facts(self, request: schemas.FactExtractionRequest) -> schemas.FactExtractionReply: ...

    def judge_cluster(self, request: schemas.ClusterRequest) -> schemas.ClusterReply: ...

    def update_contacts(self, request: schemas.ContactsRequest) -> schemas.ContactsReply: ...

    def update_tasks(self, request: schemas.TasksRequest) -> schemas.TasksReply: ...

    def split_table(self, request: schemas.SplitTableRequest) -> schemas.SplitTableReply: ...


@runtime_checkable
class BatchModel(Model, Protocol):
    def consolidate_batch(self, request: schemas.BatchRequest) -> schemas.BatchReply:
        """Facts, contacts and tasks of one batch in one call: the reply's parts mean what
        `extract_facts`, `update_contacts` and `update_tasks` answer to the request's parts
        (`request.facts_request()`, ...). Raises as they do."""
        ...


class Operations:
    """The `Model` operations, each answered by `call(operation, request)`: the one method a
    backend or a layer implements."""

    name: str

    def call(self, operation: Operation, request: Any) -> Any:
        raise NotImplementedError

    def summarize(self, request: schemas.SummarizeRequest) -> schemas.SummaryReply:
        return self.call("summarize", request)

    def extract_facts(self, request: schemas.FactExtractionRequest) -> schemas.FactExtractionReply:
        return self.call("extract_facts", request)

    def judge_cluster(self, request: schemas.ClusterRequest) -> schemas.ClusterReply:
        return self.call("judge_cluster", request)

    def update_contacts(self, request: schemas.ContactsRequest) -> schemas.ContactsReply:
        return self.call("update_contacts", request)

    def update_tasks(self, request: schemas.TasksRequest) -> schemas.TasksReply:
        return self.call("update_tasks", request)

    def split_table(self, request: schemas.SplitTableRequest) -> schemas.SplitTableReply:
        return self.call("split_table", request)


class BatchOperations(Operations):
    """`Operations` with the batch capability (`BatchModel`)."""

    def consolidate_batch(self, request: schemas.BatchRequest) -> schemas.BatchReply:
        return self.call("consolidate_batch", request)


class Layer(Operations):
    """A model around `inner`: every operation passes through `call`, which by default hands it
    to `inner`; a subclass overrides `call` to act before or after. Built over a `BatchModel`, a
    layer is one too (the class gains `consolidate_batch`); over a plain `Model`, it is not, so
    the steps see the same capability through any number of layers."""

    def __new__(cls, inner: Model, *args: Any, **kwargs: Any) -> Layer:
        if isinstance(inner, BatchModel) and not issubclass(cls, BatchOperations):
            cls = _with_batch(cls)
        return super().__new__(cls)

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name  # summaries are reused by content hash, which includes this name

    def call(self, operation: Operation, request: Any) -> Any:
        return getattr(self.inner, operation)(request)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


@cache
def _with_batch(cls: type[Layer]) -> type[Layer]:
    """`cls` with the batch capability: one subclass per layer class, made once."""
    return type(cls.__name__, (cls, BatchOperations), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
