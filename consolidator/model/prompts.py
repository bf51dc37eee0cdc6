"""What the model is asked for each operation: tool, system prompt, reply schema, rendering.

Kept apart from the transport (`anthropic_backend`) so the prompts can be read, reviewed
and tested on their own; nothing here imports `anthropic`.

The prompts ask for what the offline model aims at: named details kept, relative dates
resolved to absolute ones from the local date of the message that says them, events
recorded as dated third-person facts, no greetings or thanks, contacts for people only,
tasks for commitments only. Message lines are shown in the request's `timezone`, under a
local day heading with its weekday and UTC offset ("2023-05-08 (Mon) +02:00", then
"[3] 13:56 Ana: ..."; consolidator.model.refs): a line stored at 23:30 UTC may have
been said the next day where the user lives. Every request is plain text that says each thing
once (known items one a line, no JSON keys or ids), and every reply's common values are its
defaults, which the prompts ask to leave out: output tokens cost five times input ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ValidationError

from consolidator.model.refs import (
    compact,
    line_span,
    localise,
    render_contacts,
    render_facts,
    render_lines,
    render_tasks,
)
from consolidator.model.schemas import (
    BatchReply,
    BatchRequest,
    ClusterReply,
    ClusterRequest,
    ContactsReply,
    ContactsRequest,
    FactExtractionReply,
    FactExtractionRequest,
    Line,
    ReflectReply,
    ReflectRequest,
    SummarizeRequest,
    SummaryReply,
    TasksReply,
    TasksRequest,
    SplitTableReply,
    SplitTableRequest,
)
from consolidator.model.settings import Operation

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class _Spec(Generic[R]):
    tool: str
    description: str
    reply: type[R]
    system: str

    @cached_property
    def tool_param(self) -> dict[str, Any]:
        return {"name": self.tool, "description": self.description,
                "input_schema": without_titles(self.reply.model_json_schema())}


def without_titles(schema: Any) -> Any:
    """The JSON schema without pydantic's `title` keywords ("Source Ids" for `source_ids`): they
    repeat the field names, say nothing to the model and were an eighth of the tool's tokens. A
    property *named* title (a task's) is a schema, not a string, and stays."""
    if isinstance(schema, dict):
        return {k: without_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [without_titles(v) for v in schema]
    return schema


# Rules shared by several prompts, written once so the operations ask for the same things.
# Every system prompt is a constant (a cached prefix): nothing per request goes into one.
_PEOPLE_ONLY = (
    "Use only what people state themselves (user lines or named speakers), never tool or action "
    "output, system lines or the assistant's guesses. "
)
_DATES = (
    "Message lines are numbered [n] and grouped under their local date in the scope's time zone "
    "(weekday and UTC offset in the heading); each shows its local time (unless the same as the line "
    "before), who speaks (a person's name; else a role: user, assistant, tool, action, system, with "
    "any speaker after a slash) and the text to the end of the line (a JSON string if it has line "
    "breaks). Resolve relative dates (\"yesterday\", \"last week\", \"next month\", \"on Friday\") "
    "against the local date of the message that says them and write absolute dates (2023-05-07; "
    "\"May 2023\" or \"the week of 2023-05-01\" when vaguer). Lines under \"before:\", numbered "
    "[-2], [-1], come just before the messages and were consolidated already: read them only to "
    "understand the messages (the question a reply answers, who \"they\" are); take nothing from "
    "them and never cite them. "
)
_CITE = (
    "Cite lines by number (\"3\"), a known fact by its id (\"F2\") and an open task by its id "
    "(\"T1\"). Leave out every field whose value would be its default. "
)
_DETAILS = "Keep named details exactly: titles, genres, names, numbers, places. "
_NO_PHATIC = "Leave out greetings, thanks, acknowledgements and small talk. "
_FACT_STYLE = (
    "A fact is one short, self-contained third-person sentence about a person or a named thing "
    "(pet, place, work, project), naming it; events and experiences are facts too, dated with when "
    "they happened: \"Ana went to a choir rehearsal (2023-05-07).\" A correction (\"the budget is "
    "150, not 120\") or a change of plan updates the fact it corrects. A standing wish about how the "
    "agent should work (\"keep your answers short\") is a fact about the person. "
)
_FACT_OPS = (
    "Check each candidate against the known facts shown: ADD a new fact; UPDATE (target_id) when it "
    "changes a known fact, writing the full new statement, which supersedes the old; NOOP (target_id) "
    "when a known fact already says it; DELETE (target_id) only when a person retracts a known fact: "
    "prefer UPDATE. Mark critical only what must never be forgotten (allergies, medical conditions). "
)
_CONTACTS = (
    "people only (never pets, places, organisations, products or the agent itself): "
    "each person the messages say something new about, named as in the known contacts (or their "
    "aliases), with new aliases, new or changed details only, a refreshed biography only when it "
    "changes (else null) and a one-line summary of what this batch says about them; leave out "
    "people with nothing new. "
)
_TASKS = (
    "commitments or requests with an action to do (\"I'll send the report\", \"remind me to call "
    "Mom\"), not wishes, standing rules (\"always reply in Portuguese\"), opinions or finished "
    "events: open one per new commitment, with its "
    "due date as an absolute date if one is stated; mark an open task done or cancelled, by its "
    "task_id, when the messages say so, or rescheduled, with its new due date, when they move it. "
    "A task opened and finished within these messages is opened, then marked done by its title; "
    "an errand the agent reports having carried out right after it was asked (\"Done, I booked "
    "it\") is done, citing both lines; a reminder the agent sets is not the errand done. "
)

_SPECS: dict[Operation, _Spec[Any]] = {
    "summarize": _Spec(
        tool="record_summary",
        description="Record the summary of the inputs.",
        reply=SummaryReply,
        system=(
            "You condense an AI agent's memory log. Summarise the inputs of the given window "
            "within the token budget. Use only what the inputs say and invent nothing; keep "
            "dates, decisions, commitments and open questions. " + _DETAILS
            + "Input labels are local dates and times in the scope's time zone: resolve relative "
            "dates (\"yesterday\", \"last week\", \"next month\") against the date of the input that "
            "says them and write absolute dates. " + _NO_PHATIC
            + "Answer only by calling record_summary."
        ),
    ),
    "extract_facts": _Spec(
        tool="record_facts",
        description="Record the dated, third-person facts of this batch of messages and their operations.",
        reply=FactExtractionReply,
        system=(
            "You keep the long-term facts an AI agent knows about people. " + _PEOPLE_ONLY + _FACT_STYLE
            + _DETAILS + _DATES + _NO_PHATIC + "Give one entry per candidate fact. " + _FACT_OPS
            + _CITE + "An empty list is fine. Answer only by calling record_facts."
        ),
    ),
    "judge_cluster": _Spec(
        tool="record_cluster_verdict",
        description="Record whether the facts may be merged, and the merged fact.",
        reply=ClusterReply,
        system=(
            "You tidy an AI agent's fact store. Decide whether these near-duplicate facts may be "
            "merged into one. Merge only when they agree and no detail is lost (names, titles, "
            "numbers, places, dates); then give the merged statement as one third-person sentence, "
            "dates kept absolute. Give a short reason. Answer only by calling record_cluster_verdict."
        ),
    ),
    "update_contacts": _Spec(
        tool="record_contacts",
        description="Record what the messages say that is new about people (people only).",
        reply=ContactsReply,
        system=(
            "You keep an AI agent's contact book. " + _PEOPLE_ONLY + "Contacts are " + _CONTACTS + _DETAILS + _DATES
            + _NO_PHATIC + _CITE + "Answer only by calling record_contacts."
        ),
    ),
    "update_tasks": _Spec(
        tool="record_tasks",
        description="Record the commitments opened, done, cancelled or rescheduled in the messages.",
        reply=TasksReply,
        system=(
            "You track an AI agent's open tasks. " + _PEOPLE_ONLY + "Tasks are " + _TASKS + _DETAILS + _DATES
            + _NO_PHATIC + _CITE
            + "Only what the messages state; an empty list is fine. Answer only by calling record_tasks."
        ),
    ),
    "consolidate_batch": _Spec(
        tool="record_batch",
        description="Record the facts, contact updates and task changes of this batch of messages.",
        reply=BatchReply,
        system=(
            "You keep an AI agent's memory of people: facts, contacts and tasks. " + _PEOPLE_ONLY
            + _DETAILS + _DATES + _NO_PHATIC + _CITE + "Cite them everywhere; empty lists are fine. "
            "facts: one entry per candidate fact. " + _FACT_STYLE + _FACT_OPS
            + "contacts: " + _CONTACTS + "tasks: " + _TASKS
            + "summaries: for each window listed under summaries (if any) as \"S1 ladder/rung: label, lines "
            "1-12,15, at most N tokens\", summarise exactly the message lines it names, within its budget, "
            "under its ref (S1): use only what those messages say and invent nothing; keep dates, "
            "decisions, commitments and open questions (named details and absolute dates as above). "
            "Answer only by calling record_batch."
        ),
    ),
    "split_table": _Spec(
        tool="record_tables",
        description="Record how the facts of one topic table are divided into narrower tables.",
        reply=SplitTableReply,
        system=(
            "You organise an AI agent's fact store into topic tables. One table has grown too large: "
            "divide its facts into the number of narrower tables asked for, each holding related facts "
            "(one subject, activity or area of life), within the size limits given. Put every fact (F1, "
            "F2, ...) in exactly one table. Name each table in one to four lower-case words and describe "
            "it in one line. Answer only by calling record_tables."
        ),
    ),
    "reflect": _Spec(
        tool="record_reflection",
        description="Record one higher-level fact over the subject's facts, and the facts it rests on.",
        reply=ReflectReply,
        system=(
            "You organise an AI agent's fact store. The facts shown are about one subject and were said "
            "in different conversations. Write one short third-person statement that names the subject "
            "and lists what the facts share (\"Ana's pastimes: chess (since 2019), sailing, baking bread "
            "with her son, choir singing\"; \"Ana has run three half-marathons since 2022\"), at most "
            "max_items items, each taken from the facts' own words: add nothing they do not say. A topic "
            "line, when shown, says what most of the facts are about. "
            + _DETAILS + "Cite in rests_on every fact (F1, ...) an item comes from. Leave text empty when "
            "the facts share nothing worth stating. Answer only by calling record_reflection."
        ),
    ),
}


def local_time(at: datetime, zone: ZoneInfo) -> str:
    """`2023-05-08 13:56 +02:00 (Mon)`: one instant as a prompt's day heading and line time say it
    together (consolidator.model.refs.localise)."""
    heading, time = localise(at, zone)
    day, weekday, offset = heading.split(" ")
    return f"{day} {time} {offset} {weekday}"


def _render(request: BaseModel) -> str:
    """The request as the model reads it, with short references (consolidator.model.refs)."""
    match request:
        case SummarizeRequest():
            inputs = "\n".join(f"[{n}] {i.label}: {compact(i.text)}" for n, i in enumerate(request.inputs, 1))
            return (
                f"window: {request.window_label} ({request.ladder} ladder, rung {request.rung})\n"
                f"budget: at most {request.budget_tokens} tokens\n{_zone(request.timezone)}inputs:\n"
                f"{inputs or '(none)'}"
            )
        case FactExtractionRequest():
            return (_zone(request.timezone) + _known("known facts", request.neighbours, render_facts)
                    + _messages(request))
        case ClusterRequest():
            # `F1 text` in the order given: the stored ids and similarity scores said nothing to the judge.
            return f"facts:\n{render_facts(request.facts, ranked=False)}"
        case ReflectRequest():
            topic = " ".join(request.topic.split())  # one line, whatever a model wrote
            return (f"subject: {request.subject}\n" + (f"topic: {topic}\n" if topic else "")
                    + f"max_items: {request.max_items}\nfacts:\n{render_facts(request.facts, ranked=False)}")
        case ContactsRequest():
            return (_zone(request.timezone) + _known("known contacts", request.known, render_contacts)
                    + _messages(request))
        case TasksRequest():
            return (_zone(request.timezone) + _known("open tasks", request.open_tasks, render_tasks)
                    + _messages(request))
        case SplitTableRequest():
            return (f"table: {request.table}: {request.description}\n"
                    f"tables: {request.parts}, each of {request.min_facts} to {request.max_facts} facts\n"
                    f"facts:\n{render_facts(request.facts, ranked=False)}")
        case BatchRequest():
            return (
                _zone(request.timezone)
                + _known("known facts", request.neighbours, render_facts)
                + _known("known contacts", request.known_contacts, render_contacts)
                + _known("open tasks", request.open_tasks, render_tasks)
                + _messages(request)
                + _render_windows(request)
            )
    raise TypeError(f"no rendering for {type(request).__name__}")


def _zone(timezone: str) -> str:
    """The `time zone:` line; the default (UTC), which every day heading's +00:00 says already, is not stated."""
    return f"time zone: {timezone}\n" if timezone != "UTC" else ""


def _known(title: str, items: Sequence[Any], render: Callable[[Any], str]) -> str:
    """A section of known items; none at all when there are none (the model reads none as none)."""
    return f"{title}:\n{render(items)}\n" if items else ""


def _messages(request: Any) -> str:
    """The context lines before the batch, numbered up to [-1], if any; then the batch's lines from [1]."""
    before = request.context
    head = f"before:\n{render_lines(before, request.timezone, start=-len(before))}\n" if before else ""
    return f"{head}messages:\n{render_lines(request.messages, request.timezone)}"


def _render_windows(request: BatchRequest) -> str:
    """The summaries asked with a batch, one a line: `S1 count/1: interactions 18-18, lines 1-22, at
    most 400 tokens` (its short ref, which the reply cites and `refs.resolve` maps back to the
    window's ref; its ladder and rung; its label; the numbers of its lines, which are above and not
    repeated; its budget). Nothing at all when none is asked."""
    if not request.summaries:
        return ""
    position = {line.id: n for n, line in enumerate(request.messages, start=1)}
    rows = [f"S{n} {w.ladder}/{w.rung}: {w.window_label}, lines {line_span(position[i.id] for i in w.inputs)}, "
            f"at most {w.budget_tokens} tokens" for n, w in enumerate(request.summaries, start=1)]
    return "\nsummaries:\n" + "\n".join(rows)


def _describe(error: ValidationError) -> str:
    parts = [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors(include_url=False)]
    return f"{error.error_count()} validation error(s): " + "; ".join(parts)
