"""What a block says: nothing, its inputs passed through, an earlier identical summary, or a model call.

A model call is the only thing here that costs money, so it is the last resort: inputs that
fit the budget together are passed through as they are, and inputs identical to those of an
earlier call (same model, prompt, budget and inputs: the content hash) reuse that call's
summary. A rebuild turns reuse off, so that every base window is written afresh.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from consolidator.domain import estimate_tokens
from consolidator.ladders.blocks import EMPTY, Draft, Target
from consolidator.ladders.holds import Guard
from consolidator.ladders.inputs import content_hash, render
from consolidator.model.base import Model
from consolidator.model.schemas import SummarizeRequest, SummaryInput
from consolidator.core.app import App
from hierarchy.planning import Action
from stores.engine import reading
from stores.history import History
from stores.schema.log import Message
from stores.schema.ladders import Summary
from stores.summaries import reusable


def message_inputs(messages: list[Message], tz: ZoneInfo, seen: dict[str, SummaryInput] | None = None) -> list[SummaryInput]:
    """A base window's raw lines as summary inputs (rendered the same way for both ladders); with
    `seen` (message id -> its input, one scope's), a line rendered once is not rendered again:
    both ladders read the same messages in a run."""
    if seen is None:
        return [SummaryInput(id=m.id, label="", text=render(m, tz)) for m in messages]
    out = []
    for m in messages:
        line = seen.get(m.id)
        if line is None:
            line = seen[m.id] = SummaryInput(id=m.id, label="", text=render(m, tz))
        out.append(line)
    return out


def summary_inputs(summaries: list[Summary]) -> list[SummaryInput]:
    """A higher block's inputs: the summaries of the blocks it reads, with their labels."""
    return [SummaryInput(id=s.id, label=s.label, text=s.text) for s in summaries]


class Drafter:
    """Drafts blocks for one model and one budget (tokens a summary may read without a call)."""

    def __init__(self, app: App, model: Model, budget: int) -> None:
        self.app = app
        self.model = model
        self.budget = budget
        self.reuse = True  # look up an earlier call with identical inputs before calling

    def base(self, target: Target, inputs: list[SummaryInput]) -> Draft:
        """A base window: empty, its raw lines as they are when they fit the budget, else summarised."""
        if not inputs:
            return EMPTY
        if sum(estimate_tokens(i.text) for i in inputs) <= self.budget:
            return Draft("passed", "\n".join(i.text for i in inputs))
        return self.summarize(target, inputs)

    def higher(self, target: Target, action: Action, inputs: list[SummaryInput]) -> Draft:
        """A higher block as hierarchy.planning decided: empty, passed through, or summarised."""
        if action is Action.EMPTY:
            return EMPTY
        if action is Action.PASS and len(inputs) == 1:
            return Draft("passed", inputs[0].text)
        if action is Action.PASS:
            return Draft("passed", "\n".join(f"{i.label}: {i.text}" for i in inputs))
        return self.summarize(target, inputs)

    def summarize(self, target: Target, inputs: list[SummaryInput]) -> Draft:
        """An earlier summary of identical inputs when reuse is on, else one model call.

        Raises what the model raises (BudgetExceeded, ModelError): the caller holds the window.
        """
        digest = content_hash(self.model.name, self.budget, inputs)
        if self.reuse:
            with reading(self.app.engine) as session:
                earlier = reusable(session, target.scope, digest)
            if earlier is not None:
                return Draft("reused", earlier.text, digest, 0, 0)
        request = SummarizeRequest(
            scope=target.scope, ladder=target.ladder, rung=target.rung, window_label=target.label, inputs=inputs,
            budget_tokens=self.budget, ref=f"{target.ladder}/{target.rung}/{target.key}", timezone=target.tz.key,
        )
        reply = self.model.summarize(request)
        return Draft("summarized", reply.text, digest, sum(estimate_tokens(i.text) for i in inputs), 1)


class RungWriter:
    """What writes a rung of every scope's ladders: the app, the drafter that asks for summaries,
    the guard that holds a window whose call failed or was deferred, and the one history reader
    (old windows and their inputs may be in the archive)."""

    def __init__(self, app: App, drafter: Drafter, guard: Guard) -> None:
        self.app = app
        self.drafter = drafter
        self.guard = guard
        self.history = History(app.settings.archive_dir)
