"""A realistic responder for FakeAnthropic: answers each forced tool as OfflineModel would.

    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake: ...

It reads the request back from the first user message, which AnthropicModel renders in a
fixed, lossless-enough form (consolidator.model.prompts._render): message lines
`[n] HH:MM who: text` (no time when it is the line before's; the context lines before the batch
under `before:`, numbered up to [-1]; who: a user line's speaker alone,
else role or role/speaker; the text a JSON string when it holds a line break) under local day headings (`2025-03-04 (Tue) +01:00`,
under a `time zone:` line), known facts `F1 text` and open tasks `T1 title (due 2025-03-07)`
one a line, known contacts `name | aliases: A, B | key: value | biography: text`, summary inputs
`[n] label: "json text"`, summaries asked with a batch `S1 count/1: label, lines 1-22, at most
400 tokens`. Ids come back as the short references the prompt shows (line numbers, F1, T1), which
is what a real model cites; AnthropicModel maps them back. Times come back to the minute, which
the offline rules never look below, and the zone comes back as the request's `timezone`. The rebuilt pydantic request goes
to an OfflineModel, and its reply is the tool input. So a drain through the real SDK writes
the same summaries, facts, contacts and tasks as an offline drain of the same history.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime
from zoneinfo import ZoneInfo
from typing import Any

from consolidator.model.prompts import _SPECS
from consolidator.model.refs import ROLES, parse_span
from consolidator.model.offline import OfflineModel
from consolidator.model import schemas

_OPERATION_OF_TOOL = {spec.tool: op for op, spec in _SPECS.items()}
_DAY = re.compile(r"^(?P<date>\d{4}-\d\d-\d\d) \((?P<weekday>\w{3})\) (?P<offset>[+-]\d\d:\d\d)$")
_LINE = re.compile(r'^\[(?P<id>[^\]]*)\] (?:(?P<time>\d\d:\d\d) )?(?P<who>[^:]*?): (?P<text>.*)$')
_ZONE = re.compile(r"^time zone: (?P<zone>\S+)$")
_INPUT = re.compile(r'^\[(?P<id>[^\]]*)\] (?P<label>.*?): (?P<text>".*")$')
_WINDOW = re.compile(r"^window: (?P<label>.*) \((?P<ladder>\w+) ladder, rung (?P<rung>.+)\)$")
_BUDGET = re.compile(r"^budget: at most (?P<n>\d+) tokens$")
_FACT = re.compile(r"^(?P<id>F\d+) (?P<text>.*)$")
_TASK = re.compile(r"^(?P<id>T\d+) (?P<title>.*?)(?: \(due (?P<due>\d{4}-\d\d-\d\d)\))?$")
_WINDOW_ROW = re.compile(
    r"^(?P<ref>S\d+) (?P<ladder>[^/ ]+)/(?P<rung>[^:]+): (?P<label>.*), lines (?P<lines>[\d,-]+), at most (?P<budget>\d+) tokens$")
_TABLE = re.compile(r"^table: (?P<name>.*?): (?P<description>.*)$")
_LIMITS = re.compile(r"^tables: (?P<parts>\d+), each of (?P<min>\d+) to (?P<max>\d+) facts$")
_HEADERS = ("known facts:", "before:", "messages:", "facts:", "known contacts:", "open tasks:", "inputs:", "summaries:")


def sections(text: str) -> dict[str, list[str]]:
    """The rendered prompt's sections: header -> its lines ("(none)" dropped)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.split("\n"):
        if raw in _HEADERS:
            current = out.setdefault(raw[:-1], [])
        elif current is not None and raw != "(none)":
            current.append(raw)
        else:
            out.setdefault("head", []).append(raw)
    return out


def parse_lines(raws: list[str]) -> list[schemas.Line]:
    """The message section: day headings, each followed by its `[n] HH:MM who: text` lines (the
    time left out when it is the line before's)."""
    lines, day, time = [], None, None
    for raw in raws:
        if (heading := _DAY.match(raw)) is not None:
            day, time = heading, None
            continue
        m = _LINE.match(raw)
        if m is None or day is None or (m["time"] or time) is None:
            raise ValueError(f"not a message line: {raw!r}")
        time = m["time"] or time
        who = m["who"]
        role, _, speaker = who.partition("/") if "/" in who or who in ROLES else ("user", "", who)
        at = datetime.strptime(f"{day['date']} {time} {day['offset']}", "%Y-%m-%d %H:%M %z")
        if ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[at.weekday()] != day["weekday"]:
            raise ValueError(f"weekday {day['weekday']} is not the day of {day['date']}")
        lines.append(schemas.Line(id=m["id"], at=at, role=role, speaker=speaker or None, text=line_text(m["text"])))
    return lines


def parse_contacts(raws: list[str]) -> list[schemas.KnownContact]:
    """The known contacts section: `name | aliases: A, B | key: value | biography: text` lines."""
    contacts = []
    for raw in raws:
        name, *fields = raw.split(" | ")
        contact = schemas.KnownContact(name=name)
        for field in fields:
            key, _, value = field.partition(": ")
            if key == "aliases":
                contact.aliases = value.split(", ")
            elif key == "biography":
                contact.biography = value
            else:
                contact.details[key] = value
        contacts.append(contact)
    return contacts


def parse_facts(raws: list[str]) -> list[schemas.KnownFact]:
    """The known facts section: `F1 text` lines, in their rendered (ranked) order."""
    return [schemas.KnownFact(id=m["id"], text=m["text"]) for m in map(_must(_FACT), raws)]


def parse_tasks(raws: list[str]) -> list[schemas.KnownTask]:
    """The open tasks section: `T1 title` lines, ` (due YYYY-MM-DD)` when the task has a due date."""
    return [schemas.KnownTask(id=m["id"], title=m["title"], due=m["due"]) for m in map(_must(_TASK), raws)]


def _must(pattern: re.Pattern[str]) -> Any:
    def match(raw: str) -> re.Match[str]:
        if (m := pattern.match(raw)) is None:
            raise ValueError(f"not a known item: {raw!r}")
        return m
    return match


def line_text(shown: str) -> str:
    """A message's text back from its line: a JSON string when it starts with a quote, else as shown."""
    return json.loads(shown) if shown.startswith('"') else shown


def zone_of(parts: dict[str, list[str]]) -> str:
    """The `time zone:` line of the rendered request (UTC when there is none)."""
    found = [m["zone"] for m in map(_ZONE.match, parts.get("head", [])) if m]
    return found[0] if found else "UTC"


def parse_request(operation: str, text: str) -> Any:
    """The request AnthropicModel rendered as `text` (scope and ref are not sent: 'fake', '')."""
    parts = sections(text)
    lines = parse_lines(parts.get("messages", []))
    before = parse_lines(parts.get("before", []))  # the context lines, numbered up to [-1]
    zone = zone_of(parts)
    match operation:
        case "summarize":
            head = parts["head"]
            window, budget = _WINDOW.match(head[0]), _BUDGET.match(head[1])
            inputs = []
            for raw in parts.get("inputs", []):
                m = _INPUT.match(raw)
                inputs.append(schemas.SummaryInput(id=m["id"], label=m["label"], text=json.loads(m["text"])))
            return schemas.SummarizeRequest(scope="fake", ladder=window["ladder"], rung=window["rung"],
                                    window_label=window["label"], inputs=inputs, budget_tokens=int(budget["n"]),
                                    timezone=zone)
        case "extract_facts":
            return schemas.FactExtractionRequest(scope="fake", messages=lines, neighbours=parse_facts(parts.get("known facts", [])),
                                         timezone=zone, context=before)
        case "judge_cluster":
            return schemas.ClusterRequest(scope="fake", facts=parse_facts(parts.get("facts", [])))
        case "update_contacts":
            return schemas.ContactsRequest(scope="fake", messages=lines, known=parse_contacts(parts.get("known contacts", [])),
                                   timezone=zone, context=before)
        case "update_tasks":
            return schemas.TasksRequest(scope="fake", messages=lines, open_tasks=parse_tasks(parts.get("open tasks", [])),
                                timezone=zone, context=before)
        case "consolidate_batch":
            return schemas.BatchRequest(scope="fake", messages=lines, neighbours=parse_facts(parts.get("known facts", [])),
                                known_contacts=parse_contacts(parts.get("known contacts", [])),
                                open_tasks=parse_tasks(parts.get("open tasks", [])), timezone=zone, context=before,
                                summaries=[window_request(raw, lines, zone)
                                           for raw in parts.get("summaries", [])])
        case "split_table":
            table, limits = _TABLE.match(parts["head"][0]), _LIMITS.match(parts["head"][1])
            return schemas.SplitTableRequest(scope="fake", table=table["name"], description=table["description"],
                                             facts=parse_facts(parts.get("facts", [])), parts=int(limits["parts"]),
                                             min_facts=int(limits["min"]), max_facts=int(limits["max"]))
        case "reflect":
            head = dict(row.split(": ", 1) for row in parts.get("head", []) if ": " in row)
            return schemas.ReflectRequest(scope="fake", subject=head["subject"], max_items=int(head["max_items"]),
                                          facts=parse_facts(parts.get("facts", [])), topic=head.get("topic", ""))
    raise ValueError(f"unknown operation {operation!r}")


def window_request(row: str, lines: list[schemas.Line], zone: str) -> schemas.SummarizeRequest:
    """A summary asked with a batch (`S1 count/1: label, lines 1-22, at most 400 tokens`), as the
    ladder asked it, under its short ref (S1): its inputs are the named lines rendered as
    consolidator.ladders.inputs.render renders a message."""
    window = _WINDOW_ROW.match(row)
    if window is None:
        raise ValueError(f"not a summary window: {row!r}")
    ladder, rung = window["ladder"], window["rung"]
    tz = ZoneInfo(zone)
    inputs = []
    for position in parse_span(window["lines"]):
        line = lines[position - 1]
        who = line.speaker or line.role
        if line.role in ("action", "tool") and line.speaker is None:
            who = f"[{line.role}]"
        inputs.append(schemas.SummaryInput(id=line.id, label="", text=f"{line.at.astimezone(tz):%Y-%m-%d %H:%M} {who}: {line.text}"))
    return schemas.SummarizeRequest(scope="fake", ladder=ladder, rung=rung, window_label=window["label"],
                            inputs=inputs, budget_tokens=int(window["budget"]), ref=window["ref"], timezone=zone)


class OfflineResponder:
    """`responder(tool_name, body)` for FakeAnthropic; counts the operations it answered."""

    def __init__(self) -> None:
        self.model = OfflineModel()
        self.operations: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, tool_name: str, body: dict[str, Any]) -> dict[str, Any]:
        operation = _OPERATION_OF_TOOL[tool_name]
        first = body["messages"][0]["content"]
        text = first if isinstance(first, str) else "".join(b.get("text", "") for b in first)
        request = parse_request(operation, text)
        reply = getattr(self.model, operation)(request)
        with self._lock:
            self.operations[operation] = self.operations.get(operation, 0) + 1
        # The prompts ask to leave out fields at their default, and this model does; it writes the
        # tool's schema, whose names are the wire aliases (`lines` for `source_ids`).
        return reply.model_dump(mode="json", exclude_defaults=True, by_alias=True)
