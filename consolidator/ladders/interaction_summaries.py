"""One call per interaction: the batch call also writes the summaries of the interactions it completes.

Why: in live use a session ends, its batch flushes on idle, and the interaction completes at
about the same time; the batch call (facts, contacts, tasks) and the interaction's count-ladder
summary then read the same messages in two calls. Here the batch call also answers that
summary, and the ladder, when it writes the window, gets exactly that text instead of making
its own call: it writes the summary itself, as always (same announcement, same version
rules, and the content-hash reuse serves a day that is exactly that one interaction).

Promises are keyed by the ladders' content hash (model name, budget, inputs), so the time
ladder's day that holds only that interaction is answered by the same text.

`InteractionSummaries.asks(work)` builds, for each interaction that is complete at the tick and
whose every message is in the batch, the very `SummarizeRequest` the ladder's drafter would send
(consolidator.ladders.drafting: same inputs, label, budget, ref, time zone); windows that fit the
budget (passed through, no call) are not asked. They are promised (stores.promised_summaries)
before the call and fulfilled after it. `PromisedSummaryModel` wraps the ladder stage's model:
a summary request whose key holds a text is answered from it; one still promised waits
(`BatchPending`, a deferral: the ladder holds the window for `batch_poll`) until the batch call
is answered or `batch_max_wait` has passed; anything else goes to the model.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from consolidator.domain import estimate_tokens
from consolidator.ladders.blocks import Target
from consolidator.ladders.drafting import message_inputs
from consolidator.ladders.inputs import content_hash
from consolidator.ladders.publish import ladder_specs
from consolidator.model.base import BatchPending, Layer, Model
from consolidator.model.settings import Operation
from consolidator.model.schemas import BatchReply, SummarizeRequest, SummaryReply
from consolidator.pipeline.steps import BatchWork
from consolidator.core.app import App
from hierarchy.planning import complete_interactions
from hierarchy.tiling import Block
from stores import promised_summaries as promises
from stores.engine import reading
from stores.interactions import last_times, max_number
from stores.message_windows import messages_of_interactions

# Every arrival: an interaction's messages, wherever the ladder's cursor is. The largest seq an
# INTEGER column holds on every engine (PostgreSQL refuses a bigger bound: integer out of range).
_ALL = 2**31 - 1


def summary_key(model_name: str, request: SummarizeRequest) -> str:
    """The ladders' content hash (same model, prompt, budget and inputs): a day that is exactly
    one interaction has the same key as that interaction, as it shares its summary anyway),
    within the request's scope (a forgotten scope's texts never answer another's)."""
    digest = content_hash(model_name, request.budget_tokens, request.inputs)
    return hashlib.sha256(f"{request.scope}\n{digest}".encode()).hexdigest()


class InteractionSummaries:
    """The count-ladder summaries a batch's call can answer, promised and kept in the store."""

    def __init__(self, app: App, model_name: str) -> None:
        self.app = app
        self.model_name = model_name  # the ladder's model's name: part of the content hash

    def asks(self, work: BatchWork) -> list[SummarizeRequest]:
        in_batch: dict[int, set[str]] = defaultdict(set)
        for m in work.messages:
            if m.interaction is not None:
                in_batch[m.interaction].add(m.id)
        if not in_batch:
            return []
        settings = self.app.settings
        spec = ladder_specs(self.app)["count"]
        tz = settings.timezone_of(work.scope)
        budget = settings.ladders.budget_tokens
        asks = []
        with reading(self.app.engine) as session:
            newest = max_number(session, work.scope)
            last_at = last_times(session, work.scope, in_batch)
            complete = complete_interactions(last_at, newest, settings.interaction_gap, work.now)
            # one range read for them all (the batch's interactions are adjacent numbers)
            read = messages_of_interactions(session, work.scope, _ALL, min(complete), max(complete)) if complete else {}
            for number in complete:
                messages = read.get(number, [])
                if {m.id for m in messages} != in_batch[number]:
                    continue  # part of it is in another batch: the ladder asks for it itself
                inputs = message_inputs(messages, tz)
                if sum(estimate_tokens(i.text) for i in inputs) <= budget:
                    continue  # passed through as it is: no call to save
                target = Target(work.scope, spec, Block(0, number - 1), tz)
                asks.append(SummarizeRequest(
                    scope=target.scope, ladder=target.ladder, rung=target.rung, window_label=target.label,
                    inputs=inputs, budget_tokens=budget, ref=f"{target.ladder}/{target.rung}/{target.key}",
                    timezone=tz.key))
        return asks

    def promise(self, asks: list[SummarizeRequest]) -> None:
        promises.promise(self.app.engine, [(summary_key(self.model_name, a), a.scope, a.ref) for a in asks],
                         datetime.now(UTC))

    def settle(self, asks: list[SummarizeRequest], reply: BatchReply | None) -> None:
        """Keep the texts the reply gave; withdraw the promises it did not keep (or all, on None)."""
        given = {s.ref: s.text for s in reply.summaries} if reply is not None else {}
        kept = {summary_key(self.model_name, a): given[a.ref] for a in asks if a.ref in given}
        promises.fulfil(self.app.engine, kept)
        promises.withdraw(self.app.engine, [summary_key(self.model_name, a) for a in asks if a.ref not in given])


class PromisedSummaryModel(Layer):
    """The ladder stage's model: promised summaries come from the store, the rest from `inner`."""

    def __init__(self, inner: Model, app: App) -> None:
        super().__init__(inner)
        self.app = app

    def call(self, operation: Operation, request: Any) -> Any:
        if operation == "summarize":
            key = summary_key(self.name, request)
            found = promises.lookup(self.app.engine, key)
            if found is not None and found.text is not None:
                return SummaryReply(text=found.text)
            settings = self.app.settings.model
            if found is not None and datetime.now(UTC) - found.created_at < settings.batch_max_wait:
                raise BatchPending(f"summary {request.ref}: promised by its batch's call", wait=settings.batch_poll)
        return super().call(operation, request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
