"""What the model is asked for each operation: tool, system prompt, reply schema, rendering.

Kept apart from the transport (`anthropic_backend`) so the prompts can be read, reviewed
and tested on their own; nothing here imports `anthropic`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

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
    SummarizeRequest,
    SummaryReply,
    TasksReply,
    TasksRequest,
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
        return {"name": self.tool, "description": self.description, "input_schema": self.reply.model_json_schema()}


_SPECS: dict[Operation, _Spec[Any]] = {
    "summarize": _Spec(
        tool="record_summary",
        description="Record the summary of the inputs.",
        reply=SummaryReply,
        system=(
            "You condense an AI agent's memory log. Summarise the inputs of the given window "
            "within the token budget. Use only what the inputs say and invent nothing; keep "
            "names, dates, decisions, commitments and open questions; drop small talk. "
            "Answer only by calling record_summary."
        ),
    ),
    "extract_facts": _Spec(
        tool="record_facts",
        description="Record the fact operations for this batch of messages.",
        reply=FactExtractionReply,
        system=(
            "You keep the long-term facts an AI agent knows about people. Take facts only from "
            "what people state themselves (user lines or named speakers), never from tool or "
            "action output, system lines or the assistant's guesses. Give one entry per "
            "candidate fact, checked against the known facts shown: ADD a new fact; UPDATE "
            "(target_id) when it changes a known fact, writing the full new statement, which "
            "supersedes the old; NOOP (target_id) when a known fact already says it; DELETE "
            "(target_id) only when a person retracts a known fact: prefer UPDATE. Cite "
            "source_ids. Mark critical only what must never be forgotten (allergies, medical "
            "conditions). An empty list is fine. Answer only by calling record_facts."
        ),
    ),
    "judge_cluster": _Spec(
        tool="record_cluster_verdict",
        description="Record whether the facts may be merged, and the merged fact.",
        reply=ClusterReply,
        system=(
            "You tidy an AI agent's fact store. Decide whether these near-duplicate facts may be "
            "merged into one. Merge only when they agree and no detail is lost; then give the "
            "merged statement. Give a short reason. Answer only by calling record_cluster_verdict."
        ),
    ),
    "update_contacts": _Spec(
        tool="record_contacts",
        description="Record what the messages say that is new about people.",
        reply=ContactsReply,
        system=(
            "You keep an AI agent's contact book. For each person the messages say something new "
            "about, give their name (matching known names and aliases), new aliases, new or "
            "changed details only, a refreshed biography only when it changes (else null), a "
            "one-line summary of what this batch says about them, and source_ids. Use what "
            "people state, never tool or action output. Leave out people with nothing new. "
            "Answer only by calling record_contacts."
        ),
    ),
    "update_tasks": _Spec(
        tool="record_tasks",
        description="Record task changes stated in the messages.",
        reply=TasksReply,
        system=(
            "You track an AI agent's open tasks. Open a task for each new commitment or request "
            "(with the due date if one is stated); mark an open task done or cancelled, by its "
            "task_id, when the messages say so. Only what the messages state; an empty list is "
            "fine. Answer only by calling record_tasks."
        ),
    ),
    "consolidate_batch": _Spec(
        tool="record_batch",
        description="Record the facts, contact updates and task changes of this batch of messages.",
        reply=BatchReply,
        system=(
            "You keep an AI agent's memory of people: facts, contacts and tasks. Use only what "
            "people state themselves (user lines or named speakers), never tool or action output, "
            "system lines or the assistant's guesses. Cite source_ids everywhere; empty lists are "
            "fine. "
            "facts: one entry per candidate fact (short, self-contained), checked against the known "
            "facts shown: ADD a new fact; UPDATE (target_id) when it changes a known fact, writing "
            "the full new statement, which supersedes the old; NOOP (target_id) when a known fact "
            "already says it; DELETE (target_id) only when a person retracts a known fact: prefer "
            "UPDATE. Mark critical only what must never be forgotten (allergies, medical "
            "conditions). "
            "contacts: each person the messages say something new about, named as in the known "
            "contacts (or their aliases), with new aliases, new or changed details only, a "
            "refreshed biography only when it changes (else null) and a one-line summary of what "
            "this batch says about them; leave out people with nothing new. "
            "tasks: open a task for each new commitment or request (with the due date if one is "
            "stated); mark an open task done or cancelled, by its task_id, when the messages say "
            "so. Answer only by calling record_batch."
        ),
    ),
}


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _render_lines(lines: list[Line]) -> str:
    out = []
    for line in lines:
        who = f"{line.role}/{line.speaker}" if line.speaker else line.role
        out.append(f"[{line.id}] {line.at.isoformat(timespec='minutes')} {who}: {_compact(line.text)}")
    return "\n".join(out) or "(none)"


def _render_items(items: list[BaseModel]) -> str:
    return "\n".join(_compact(i.model_dump(mode="json", exclude_defaults=True)) for i in items) or "(none)"


def _render(request: BaseModel) -> str:
    match request:
        case SummarizeRequest():
            inputs = "\n".join(f"[{i.id}] {i.label}: {_compact(i.text)}" for i in request.inputs)
            return (
                f"window: {request.window_label} ({request.ladder} ladder, rung {request.rung})\n"
                f"budget: at most {request.budget_tokens} tokens\ninputs:\n{inputs or '(none)'}"
            )
        case FactExtractionRequest():
            return f"known facts:\n{_render_items(request.neighbours)}\nmessages:\n{_render_lines(request.messages)}"
        case ClusterRequest():
            return f"facts:\n{_render_items(request.facts)}"
        case ContactsRequest():
            return f"known contacts:\n{_render_items(request.known)}\nmessages:\n{_render_lines(request.messages)}"
        case TasksRequest():
            return f"open tasks:\n{_render_items(request.open_tasks)}\nmessages:\n{_render_lines(request.messages)}"
        case BatchRequest():
            return (
                f"known facts:\n{_render_items(request.neighbours)}\n"
                f"known contacts:\n{_render_items(request.known_contacts)}\n"
                f"open tasks:\n{_render_items(request.open_tasks)}\nmessages:\n{_render_lines(request.messages)}"
            )
    raise TypeError(f"no rendering for {type(request).__name__}")


def _describe(error: ValidationError) -> str:
    parts = [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors(include_url=False)]
    return f"{error.error_count()} validation error(s): " + "; ".join(parts)
