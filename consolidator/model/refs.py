"""Short references in prompts: line numbers for messages, F1/T1 for known facts and tasks.

Why: a stored message id is long ("conv-26:D7:12" inside its scope, often a UUID) and a model
cites it many times (every fact's and contact's `source_ids`, every listed window), so ids were
about a fifth of the tokens of a batch call, in and out. The prompt shows each message as `[n]`
(its position in the request), each known fact as `F<n>` and each open task as `T<n>`, and
`resolve` maps what the model cites back to the stored ids before any step sees the reply.
The map is a pure function of the request, so a reply that comes back hours later through a
Message Batch resolves exactly like a direct one.

Message lines are grouped under a local day heading (`2023-07-12 (Wed) +02:00`), each line
showing only its local time: the date, weekday and offset are written once per day instead of
once per line, and a new heading starts whenever the local date or the UTC offset changes (a
DST switch inside a day), so every line's instant stays exact.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from consolidator.model.schemas import (
    BatchReply,
    BatchRequest,
    ContactsReply,
    ContactsRequest,
    ContactUpdate,
    FactCandidate,
    FactExtractionReply,
    FactExtractionRequest,
    KnownFact,
    KnownTask,
    Line,
    TaskChange,
    TasksReply,
    TasksRequest,
)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def localise(at: datetime, zone: ZoneInfo) -> tuple[str, str]:
    """`at` as the scope lived it: its day heading (`2023-07-12 (Wed) +02:00`) and its local time
    (`16:33`), so that the model resolves "yesterday" from the right day; the offset keeps the
    instant exact. A naive time is taken as UTC (the stores' convention)."""
    local = (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).astimezone(zone)
    minutes = int((local.utcoffset() or timedelta(0)).total_seconds() // 60)
    sign, (hours, mins) = ("-" if minutes < 0 else "+"), divmod(abs(minutes), 60)
    return f"{local:%Y-%m-%d} ({_WEEKDAYS[local.weekday()]}) {sign}{hours:02d}:{mins:02d}", f"{local:%H:%M}"


def render_lines(lines: Sequence[Line], timezone: str) -> str:
    """`2023-07-12 (Wed) +00:00` headings, then `[n] 16:33 user/Caroline: "text"` lines."""
    zone = ZoneInfo(timezone)
    out: list[str] = []
    heading = None
    for n, line in enumerate(lines, start=1):
        day, time = localise(line.at, zone)
        if day != heading:
            out.append(day)
            heading = day
        who = f"{line.role}/{line.speaker}" if line.speaker else line.role
        out.append(f"[{n}] {time} {who}: {compact(line.text)}")
    return "\n".join(out) or "(none)"


def line_span(positions: Iterable[int]) -> str:
    """1-based positions as ranges: [1, 2, 3, 7, 9, 10] -> "1-3,7,9-10"."""
    spans: list[list[int]] = []
    for p in sorted(set(positions)):
        if spans and p == spans[-1][1] + 1:
            spans[-1][1] = p
        else:
            spans.append([p, p])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def parse_span(span: str) -> list[int]:
    """The inverse of `line_span`."""
    out: list[int] = []
    for part in filter(None, span.split(",")):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def render_facts(facts: Sequence[KnownFact]) -> str:
    """Known facts as `{"id":"F1","text":...}`, the most similar first (the order is the ranking)."""
    ranked = sorted(range(len(facts)), key=lambda i: -facts[i].similarity)
    return "\n".join(compact({"id": f"F{i + 1}", "text": facts[i].text}) for i in ranked) or "(none)"


def render_tasks(tasks: Sequence[KnownTask]) -> str:
    rows = [{**t.model_dump(mode="json", exclude_defaults=True), "id": f"T{i}"} for i, t in enumerate(tasks, 1)]
    return "\n".join(compact(r) for r in rows) or "(none)"


class _Refs:
    """What each short reference of one request stands for."""

    def __init__(self, lines: Sequence[Line] = (), facts: Sequence[KnownFact] = (),
                 tasks: Sequence[KnownTask] = ()) -> None:
        self.lines = {str(n): line.id for n, line in enumerate(lines, start=1)}
        self.facts = {f"F{n}": fact.id for n, fact in enumerate(facts, start=1)}
        self.tasks = {f"T{n}": task.id for n, task in enumerate(tasks, start=1)}

    @staticmethod
    def _key(ref: str) -> str:
        return ref.strip().strip("[]").strip().upper()

    def line(self, ref: str) -> str:
        key = self._key(ref)
        return self.lines.get(key.removeprefix("L"), ref) if key else ref

    def fact(self, ref: str | None) -> str | None:
        return None if ref is None else self.facts.get(self._key(ref), ref)

    def task(self, ref: str | None) -> str | None:
        return None if ref is None else self.tasks.get(self._key(ref), ref)

    def sources(self, refs: list[str]) -> list[str]:
        out: list[str] = []
        for ref in refs:
            if (resolved := self.line(ref)) not in out:
                out.append(resolved)
        return out

    def fact_candidate(self, c: FactCandidate) -> FactCandidate:
        return c.model_copy(update={"source_ids": self.sources(c.source_ids), "target_id": self.fact(c.target_id)})

    def contact(self, c: ContactUpdate) -> ContactUpdate:
        return c.model_copy(update={"source_ids": self.sources(c.source_ids)})

    def task_change(self, c: TaskChange) -> TaskChange:
        return c.model_copy(update={"source_ids": self.sources(c.source_ids), "task_id": self.task(c.task_id)})


def resolve(request: BaseModel, reply: BaseModel) -> BaseModel:
    """`reply` with every short reference replaced by the id it stands for in `request`.

    A reference that names nothing in the request is kept as written: the steps already ignore
    a source id outside their batch and a target that is not a known fact."""
    match request, reply:
        case BatchRequest(), BatchReply():
            refs = _Refs(request.messages, request.neighbours, request.open_tasks)
            return reply.model_copy(update={
                "facts": [refs.fact_candidate(c) for c in reply.facts],
                "contacts": [refs.contact(c) for c in reply.contacts],
                "tasks": [refs.task_change(c) for c in reply.tasks],
            })
        case FactExtractionRequest(), FactExtractionReply():
            refs = _Refs(request.messages, request.neighbours)
            return reply.model_copy(update={"facts": [refs.fact_candidate(c) for c in reply.facts]})
        case ContactsRequest(), ContactsReply():
            refs = _Refs(request.messages)
            return reply.model_copy(update={"contacts": [refs.contact(c) for c in reply.contacts]})
        case TasksRequest(), TasksReply():
            refs = _Refs(request.messages, tasks=request.open_tasks)
            return reply.model_copy(update={"changes": [refs.task_change(c) for c in reply.changes]})
    return reply
