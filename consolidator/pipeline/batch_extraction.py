"""One model call per batch, shared by the facts, contacts and tasks steps.

The three steps stay three registered batch steps, each with its own transaction and ledger
entry; only the model call is shared. The first step of a batch to ask (`reply_for`) builds
one `BatchRequest` from the three steps' own context builders (`context_for`: the facts
nearest the batch's people's lines, the known contacts the batch is about, the scope's open
tasks), makes one `consolidate_batch` call, and every step of that batch's round gets the
same reply and contexts; each then takes its slice and decides as it would alone.

A round is one runner pass over a batch: the runner loads one `BatchWork` and prepares the
batch's due steps concurrently with that same object. The memo is keyed by (batch id, hash
of its message ids) and an entry serves only the `BatchWork` it was made for (identity), so
every round makes its own call: steps that retry later, or a step held back by an earlier
batch of its own that runs in a later round of the same tick, ask again with fresh contexts
(a round of fewer than three steps still makes the whole call). A failed call fails every
step of the round that asked (each goes back to the ledger's backoff). A batch without a
person's line makes no call at all: none of the three steps accepts anything not grounded
in a person's line.

Memo bound: an entry is dropped once all three steps have taken it, and at most
`MEMO_SIZE` entries are kept (the oldest dropped first) for rounds where some step did not
ask (e.g. it had already committed, or the batch has no person's line for facts).

Interaction summaries: with `summaries` (consolidator.ladders.interaction_summaries), the call
also answers the count-ladder summary of each interaction the batch completes, promised before
the call and kept after it; a call that fails withdraws its promises (the ladder then calls for
them itself), a deferred one (budget, pending batch) keeps them open.

`share_one_call` turns sharing on when config allows (`model.combine_batch_steps`) and the
model has `consolidate_batch`; otherwise each step calls its own operation.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import structlog

from consolidator.model.base import BatchModel, Deferred, Model
from consolidator.domain import is_person_line
from consolidator.model.schemas import BatchReply, BatchRequest, KnownContact, KnownFact, KnownTask
from consolidator.pipeline.steps import BatchWork

log = structlog.get_logger()

MEMO_SIZE = 16
PARTS = frozenset({"facts", "contacts", "tasks"})


class FactsContextLike(Protocol):
    neighbours: list[KnownFact]


class FactsPart(Protocol):
    shared: SharedExtraction | None

    def context_for(self, work: BatchWork) -> FactsContextLike: ...


class ContactsPart(Protocol):
    shared: SharedExtraction | None

    def context_for(self, work: BatchWork) -> list[KnownContact]: ...


class TasksPart(Protocol):
    shared: SharedExtraction | None

    def context_for(self, work: BatchWork) -> list[KnownTask]: ...


@dataclass(frozen=True)
class BatchParts:
    facts: FactsPart
    contacts: ContactsPart
    tasks: TasksPart


@dataclass(frozen=True)
class SharedReply:
    """The batch's one reply and the contexts it was asked with (each step decides against its own)."""

    reply: BatchReply
    facts: FactsContextLike
    contacts: list[KnownContact]
    tasks: list[KnownTask]


_Key = tuple[int, str]


@dataclass
class _Entry:
    work: BatchWork  # the round's own object: an equal BatchWork of another round is not served
    future: Future[SharedReply]
    takers: set[str]


def batch_key(work: BatchWork) -> _Key:
    ids = hashlib.blake2b("\n".join(m.id for m in work.messages).encode(), digest_size=16).hexdigest()
    return work.batch_id, ids


class SharedExtraction:
    """The one `consolidate_batch` call of each batch round, memoised for the round; thread-safe."""

    def __init__(self, model: BatchModel, parts: BatchParts, memo_size: int = MEMO_SIZE,
                 timezone_of: Callable[[str], str] | None = None, summaries: Any = None) -> None:
        self.model = model
        self.summaries = summaries  # an InteractionSummaries, or None: the call asks for no summary
        self.parts = parts
        self.timezone_of = timezone_of or _utc  # scope -> IANA zone name, sent with the request
        self._memo_size = memo_size
        self._lock = threading.Lock()
        self._memo: OrderedDict[_Key, _Entry] = OrderedDict()

    def reply_for(self, work: BatchWork, part: str) -> SharedReply:
        """The round's shared reply: the first caller makes the call, the others wait for it.
        Raises what the call raised, in every caller."""
        key = batch_key(work)
        with self._lock:
            entry = self._memo.get(key)
            owner = entry is None or entry.work is not work
            if owner:
                self._memo.pop(key, None)
                entry = self._memo[key] = _Entry(work, Future(), set())
                while len(self._memo) > self._memo_size:
                    self._memo.popitem(last=False)
            entry.takers.add(part)
            if entry.takers >= PARTS:
                self._memo.pop(key, None)
        if owner:
            try:
                entry.future.set_result(self._extract(work))
            except BaseException as exc:  # every step of the round fails with it
                entry.future.set_exception(exc)
        return entry.future.result()

    def pending(self) -> int:
        """Rounds held in the memo (for tests and logs)."""
        with self._lock:
            return len(self._memo)

    def _extract(self, work: BatchWork) -> SharedReply:
        facts = self.parts.facts.context_for(work)
        contacts = self.parts.contacts.context_for(work)
        tasks = self.parts.tasks.context_for(work)
        asked = work.asked(self.timezone_of(work.scope))
        if not any(is_person_line(line) for line in asked["messages"]):
            log.info("batch.no_people", scope=work.scope, batch=work.number)
            return SharedReply(BatchReply(facts=[], contacts=[], tasks=[]), facts, contacts, tasks)
        asks = self.summaries.asks(work) if self.summaries is not None else []
        request = BatchRequest(**asked, neighbours=facts.neighbours, known_contacts=contacts, open_tasks=tasks,
                               summaries=asks)
        if asks:
            self.summaries.promise(asks)
        try:
            reply = self.model.consolidate_batch(request)
        except Deferred:
            raise  # answered later: the promises stand
        except BaseException:
            if asks:
                self.summaries.settle(asks, None)
            raise
        if asks:
            self.summaries.settle(asks, reply)
        log.info("batch.extracted", scope=work.scope, batch=work.number, facts=len(reply.facts),
                 contacts=len(reply.contacts), tasks=len(reply.tasks), summaries=len(reply.summaries))
        return SharedReply(reply, facts, contacts, tasks)


def _utc(scope: str) -> str:
    return "UTC"


def share_one_call(
    model: Model, *, facts: FactsPart, contacts: ContactsPart, tasks: TasksPart, enabled: bool = True,
    timezone_of: Callable[[str], str] | None = None, summaries: Any = None,
) -> SharedExtraction | None:
    """Make the three steps share one call per batch when `enabled` and the model can; returns
    the extractor, or None when each step keeps calling its own operation. `timezone_of` names a
    scope's time zone (UTC when not given)."""
    if not enabled or not isinstance(model, BatchModel):
        return None
    shared = SharedExtraction(model, BatchParts(facts=facts, contacts=contacts, tasks=tasks), timezone_of=timezone_of,
                              summaries=summaries)
    for step in (facts, contacts, tasks):
        step.shared = shared
    return shared
