"""Requests and replies of every model operation, as pydantic models.

Why one module: these classes are the contract between the consolidation steps and any
model backend. The offline backend builds replies in Python; the Anthropic backend sends
the reply classes' JSON schemas as forced tools and validates what comes back with the
same classes, so nothing a model says reaches a store without passing through here.

Requests carry `scope` and `ref` (a batch id or a rung window) so a backend can account
for each call; replies carry only what the stores need. The batch operations' requests also
carry the scope's `timezone`: a line's `at` is UTC, and the day it was said on (a fact's date,
"tomorrow" in a reminder) is its local day there. `BatchRequest`/`BatchReply` carry
the three batch operations (facts, contacts, tasks) in one call; their parts are exactly
the single operations' requests and replies.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from consolidator.model.attachments import Attachment


class _Strict(BaseModel):
    # A field with a wire alias (`lines` for `source_ids`) is read under either name, and Python
    # code builds and reads it under its own name.
    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True)


def _cited_lines(description: str) -> Any:
    """`source_ids`, which a model writes as `lines` (the line numbers it cites, "3"): the key is
    repeated in every fact, contact and task of a reply, and the short name saves output tokens
    (which cost five times input ones) without changing what the steps read."""
    return Field(default_factory=list, alias="lines", description=description)


# --- shared pieces -----------------------------------------------------------------------


class Line(_Strict):
    """One logged message as a model sees it."""

    id: str
    at: datetime
    role: Literal["user", "assistant", "action", "tool", "system"]
    speaker: str | None = None
    text: str
    attachments: list[Attachment] = Field(default_factory=list)  # shown after the text (model/attachments.py)


class _LinesRequest(_Strict):
    """A request about some logged lines: the scope, the lines, the work unit asking (`ref`), the
    scope's time zone, in which the lines' local dates are read, and `context`: the lines of the
    same interaction just before them, to read them by (the question a first reply answers), never
    to take anything from or cite (they were their own batch's)."""

    scope: str
    messages: list[Line]
    ref: str = ""
    timezone: str = Field(default="UTC", description="The scope's IANA time zone: local dates of `at`.")
    context: list[Line] = Field(default_factory=list)


# --- summaries (ladders) -----------------------------------------------------------------


class SummaryInput(_Strict):
    """One input of a summary: a raw line rendered as text, or a lower rung's summary."""

    id: str
    label: str  # e.g. "2025-03-02" or "interactions 11-20"
    text: str


class SummarizeRequest(_Strict):
    scope: str
    ladder: Literal["time", "count"]
    rung: str
    window_label: str
    inputs: list[SummaryInput]
    budget_tokens: int = Field(gt=0)
    ref: str = ""
    timezone: str = Field(default="UTC", description="The scope's IANA time zone: the inputs' labels are local.")


class SummaryReply(_Strict):
    text: str = Field(description="The summary, within the token budget, inventing nothing.")


# --- facts -------------------------------------------------------------------------------


class KnownFact(_Strict):
    """A stored fact shown to the model as a neighbour of the batch."""

    id: str
    text: str
    similarity: float = 0.0


FactOp = Literal["ADD", "UPDATE", "DELETE", "NOOP"]


class FactCandidate(_Strict):
    text: str = Field(description="Short, self-contained statement about a person or the world.")
    # Defaults are the values most facts take (an ordinary, dated event): a model leaves a field
    # at its default out of its reply, so the common case costs no output tokens.
    importance: int = Field(default=5, ge=1, le=10, description="1 (trivial) to 10 (vital); 5 for an ordinary fact.")
    topic: str = Field(default="events", description=(
        "events (something that happened or was said), or e.g. preferences, plans, work, home, diet, health, pets"))
    op: FactOp = "ADD"
    target_id: str | None = Field(
        default=None, description="For UPDATE, DELETE and NOOP: the id of the known fact concerned."
    )
    source_ids: list[str] = _cited_lines("The lines it comes from.")
    critical: bool = Field(default=False, description="True for facts that must never be forgotten (allergies).")


class FactExtractionRequest(_LinesRequest):
    neighbours: list[KnownFact]


class FactExtractionReply(_Strict):
    facts: list[FactCandidate]


class ClusterRequest(_Strict):
    """Offline pass: may these near-duplicate facts be merged into one?"""

    scope: str
    facts: list[KnownFact]
    ref: str = ""


class ClusterReply(_Strict):
    merge: bool
    text: str | None = Field(default=None, description="The merged fact when merge is true.")
    reason: str = ""


# --- contacts ----------------------------------------------------------------------------


class KnownContact(_Strict):
    name: str
    aliases: list[str] = Field(default_factory=list)
    details: dict[str, str] = Field(default_factory=dict)
    biography: str = ""


class ContactUpdate(_Strict):
    name: str
    aliases: list[str] = Field(default_factory=list)
    details: dict[str, str] = Field(
        default_factory=dict, description="New or changed details only (key -> current value)."
    )
    biography: str | None = Field(default=None, description="Refreshed biography, or null to keep it.")
    summary: str = Field(default="", description="What this batch says about the person.")
    source_ids: list[str] = _cited_lines("The lines it rests on.")


class ContactsRequest(_LinesRequest):
    known: list[KnownContact]


class ContactsReply(_Strict):
    contacts: list[ContactUpdate]


# --- tasks -------------------------------------------------------------------------------


class KnownTask(_Strict):
    id: str
    title: str
    due: date | None = None


class TaskChange(_Strict):
    op: Literal["open", "done", "cancelled", "rescheduled"]
    title: str
    task_id: str | None = Field(default=None, description="For done/cancelled/rescheduled: the open task's id.")
    due: date | None = Field(default=None, description="For open: when it is due; for rescheduled: the new day.")
    source_ids: list[str] = _cited_lines("The lines it comes from.")


class TasksRequest(_LinesRequest):
    open_tasks: list[KnownTask]


class TasksReply(_Strict):
    changes: list[TaskChange]


# --- one call per batch: facts, contacts and tasks together ------------------------------


class BatchRequest(_LinesRequest):
    """The three batch operations' contexts and the batch's lines, sent once.

    `summaries`: the base-window summaries (an interaction's count-ladder summary) whose inputs
    are exactly some of these lines, asked in the same call so that the ladder need not read
    the same messages again (consolidator.ladders.interaction_summaries). Each is the very
    request the ladder would send; the reply's `summaries` answer them by `ref`.
    """

    neighbours: list[KnownFact]
    known_contacts: list[KnownContact]
    open_tasks: list[KnownTask]
    summaries: list[SummarizeRequest] = Field(default_factory=list)

    def facts_request(self) -> FactExtractionRequest:
        return FactExtractionRequest(scope=self.scope, messages=self.messages, neighbours=self.neighbours, ref=self.ref,
                                     timezone=self.timezone, context=self.context)

    def contacts_request(self) -> ContactsRequest:
        return ContactsRequest(scope=self.scope, messages=self.messages, known=self.known_contacts, ref=self.ref,
                               timezone=self.timezone, context=self.context)

    def tasks_request(self) -> TasksRequest:
        return TasksRequest(scope=self.scope, messages=self.messages, open_tasks=self.open_tasks, ref=self.ref,
                            timezone=self.timezone, context=self.context)


class WindowSummary(_Strict):
    ref: str = Field(description="The window's ref, as listed under summaries (S1).")
    text: str = Field(description="The summary of the window's messages, within its budget, inventing nothing.")


class BatchReply(_Strict):
    facts: list[FactCandidate] = Field(description="One entry per candidate fact, with its operation.")
    contacts: list[ContactUpdate] = Field(description="People the batch says something new about.")
    tasks: list[TaskChange] = Field(default_factory=list, description="Tasks opened, done, cancelled or rescheduled in the batch.")
    summaries: list[WindowSummary] = Field(
        default_factory=list, description="One summary per window listed under summaries (none when none is listed).")


# --- topic tables (the offline pass: docs/tables.md) ---------------------------------------


class SplitTableRequest(_Strict):
    """Offline pass: split one topic table of facts, grown past its limit, into narrower ones."""

    scope: str
    table: str
    description: str = ""
    facts: list[KnownFact]
    parts: int = Field(default=2, ge=2, description="How many tables to aim for.")
    min_facts: int = Field(default=1, ge=1)
    max_facts: int = Field(default=40, ge=1)
    ref: str = ""


class TablePart(_Strict):
    name: str = Field(description="A short topic name (one to four words), lower case.")
    description: str = Field(default="", description="One line: what facts belong here.")
    facts: list[str] = Field(description="The facts of this table (F1, F2, ...), each fact in exactly one table.")


class SplitTableReply(_Strict):
    tables: list[TablePart]


# --- reflections (the offline pass) ----------------------------------------------------------


class ReflectRequest(_Strict):
    """Offline pass: one subject's related current facts, from several sessions. What do they share?"""

    scope: str
    subject: str = Field(description="The person or named thing the facts are about.")
    facts: list[KnownFact]
    max_items: int = 8
    ref: str = ""
    topic: str = Field(default="", description=(
        "What most of the facts are about, where their extraction said (pets, work, health...); empty otherwise."))


class ReflectReply(_Strict):
    text: str = Field(default="", description="One higher-level fact listing what the facts share, naming the "
                      "subject: \"Ana's pastimes: chess (since 2019), sailing, baking bread with her son\". "
                      "Empty when the facts share nothing worth stating.")
    rests_on: list[str] = Field(default_factory=list, description="The facts (F1, ...) each listed item comes from.")
