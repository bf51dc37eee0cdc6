"""Short references in prompts: line numbers for messages, F1/T1/S1 for known facts, tasks and windows.

Why: a stored message id is long ("conv-26:D7:12" inside its scope, often a UUID) and a model
cites it many times (every fact's and contact's `source_ids`, every listed window), so ids were
about a fifth of the tokens of a batch call, in and out. The prompt shows each message as `[n]`
(its position in the request), each known fact as `F<n>`, each open task as `T<n>` and each
summary window asked with a batch as `S<n>` (its ref, `count/1/18-18`, was written out in the
reply as well), and `resolve` maps what the model cites back to the stored ids and refs before
any step sees the reply.
The map is a pure function of the request, so a reply that comes back hours later through a
Message Batch resolves exactly like a direct one.

Message lines are grouped under a local day heading (`2023-07-12 (Wed) +02:00`), each line
showing only its local time: the date, weekday and offset are written once per day instead of
once per line, and a new heading starts whenever the local date or the UTC offset changes (a
DST switch inside a day), so every line's instant stays exact. Known facts and open tasks are
plain lines (`F1 text`, `T1 title (due 2025-03-07)`), and so are known contacts (`Ana | aliases:
Annie | job: nurse | biography: ...`), not JSON objects: same content, fewer tokens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, get_args
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from consolidator.model.attachments import render as render_attachments
from consolidator.model.schemas import (
    BatchReply,
    BatchRequest,
    ContactsReply,
    ContactsRequest,
    ContactUpdate,
    FactCandidate,
    FactExtractionReply,
    FactExtractionRequest,
    KnownContact,
    KnownFact,
    KnownTask,
    Line,
    ReflectReply,
    ReflectRequest,
    TaskChange,
    TasksReply,
    TasksRequest,
    SplitTableReply,
    SplitTableRequest,
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


def render_lines(lines: Sequence[Line], timezone: str, start: int = 1) -> str:
    """`2023-07-12 (Wed) +00:00` headings, then `[n] 16:33 Ana: text` lines; a line said in
    the same minute as the line before it leaves its time out (`[n+1] Marina: text`), as a line
    leaves out the date its heading gives (a quarter of the LoCoMo bench's lines, 30-60 s apart)."""
    zone = ZoneInfo(timezone)
    out: list[str] = []
    heading = shown = None
    for n, line in enumerate(lines, start=start):
        day, time = localise(line.at, zone)
        if day != heading:
            out.append(day)
            heading, shown = day, None
        stamp = "" if time == shown else f"{time} "
        shown = time
        out.append(f"[{n}] {stamp}{line_who(line)}: {line_text(line.text)}{render_attachments(line.attachments)}")
    return "\n".join(out) or "(none)"


ROLES: tuple[str, ...] = get_args(Line.model_fields["role"].annotation)  # user, assistant, action, tool, system


def line_who(line: Line) -> str:
    """Who speaks: a user line with a speaker shows the name alone (`Ana`); any other line
    its role, and its speaker after a slash (`assistant/Max`, `user` with no speaker). A name that
    could read as a role or holds a slash keeps the `user/` prefix. Most lines are a named
    person's, and `user/` on each cost five bytes a line."""
    if not line.speaker:
        return line.role
    if line.role == "user" and line.speaker not in ROLES and "/" not in line.speaker:
        return line.speaker
    return f"{line.role}/{line.speaker}"


def line_text(text: str) -> str:
    """A message's text as its line shows it: as it is, to the end of the line, or as a JSON string
    when it holds a line break (or starts with a quote, which would read as one). Quoting every
    text cost four bytes a line and escaped every quote inside it."""
    if text.startswith('"') or len((text + ".").splitlines()) > 1:
        return compact(text)
    return text


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


def one_line(text: str) -> str:
    """`text` with its line breaks turned into spaces: a known item is one line of the prompt."""
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def render_facts(facts: Sequence[KnownFact], ranked: bool = True) -> str:
    """Known facts as `F1 text`, one a line, the most similar first (the order is the ranking;
    `ranked=False` keeps the given order).

    Plain text, not `{"id":"F1","text":...}`: the known facts are the largest part of a batch
    call's input, and the JSON keys, quotes and escapes were about a fifth of it."""
    order = sorted(range(len(facts)), key=lambda i: -facts[i].similarity) if ranked else range(len(facts))
    return "\n".join(f"F{i + 1} {one_line(facts[i].text)}" for i in order) or "(none)"


def render_tasks(tasks: Sequence[KnownTask]) -> str:
    """Open tasks as `T1 title`, with ` (due 2025-03-07)` when the task has a due date."""
    rows = [f"T{i} {one_line(t.title)}" + (f" (due {t.due.isoformat()})" if t.due else "")
            for i, t in enumerate(tasks, 1)]
    return "\n".join(rows) or "(none)"


def render_contacts(contacts: Sequence[KnownContact]) -> str:
    """Known contacts one a line, fields after ` | `:
    `Marina | aliases: Mari, Marri | likes: hiking; painting | biography: Marina paints.`
    (empty fields left out). Plain text, not a JSON object: its keys and quotes were a quarter of
    the section."""
    rows = []
    for c in contacts:
        fields = [one_line(c.name)]
        if c.aliases:
            fields.append("aliases: " + ", ".join(map(one_line, c.aliases)))
        fields += [f"{one_line(key)}: {one_line(value)}" for key, value in c.details.items()]
        if c.biography:
            fields.append(f"biography: {one_line(c.biography)}")
        rows.append(" | ".join(fields))
    return "\n".join(rows) or "(none)"


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
            windows = {f"S{n}": w.ref for n, w in enumerate(request.summaries, start=1)}
            return reply.model_copy(update={
                "facts": [refs.fact_candidate(c) for c in reply.facts],
                "contacts": [refs.contact(c) for c in reply.contacts],
                "tasks": [refs.task_change(c) for c in reply.tasks],
                "summaries": [s.model_copy(update={"ref": windows.get(_Refs._key(s.ref), s.ref)})
                              for s in reply.summaries],
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
        case SplitTableRequest(), SplitTableReply():
            ids = {f"F{n}": f.id for n, f in enumerate(request.facts, start=1)}
            return reply.model_copy(update={"tables": [
                t.model_copy(update={"facts": [ids.get(_Refs._key(r), r) for r in t.facts]}) for t in reply.tables]})
        case ReflectRequest(), ReflectReply():
            refs = _Refs(facts=request.facts)
            return reply.model_copy(update={"rests_on": [refs.fact(r) for r in reply.rests_on]})
    return reply
