"""A realistic responder for FakeAnthropic: answers each forced tool as OfflineModel would.

    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake: ...

It reads the request back from the first user message, which AnthropicModel renders in a
fixed, lossless-enough form (consolidator.model.prompts._render): message lines
`[n] HH:MM role/speaker: "json text"` under local day headings (`2025-03-04 (Tue) +01:00`,
under a `time zone:` line), known items as one compact JSON object a line, summary inputs
`[n] label: "json text"`. Ids come back as the short references the prompt shows (line
numbers, F1, T1), which is what a real model cites; AnthropicModel maps them back. Times come back to the minute, which the offline rules never look
below, and the zone comes back as the request's `timezone`. The rebuilt pydantic request goes
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
from consolidator.model.refs import parse_span
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import (
    BatchRequest,
    ClusterRequest,
    ContactsRequest,
    FactExtractionRequest,
    KnownContact,
    KnownFact,
    KnownTask,
    Line,
    SummarizeRequest,
    SummaryInput,
    TasksRequest,
)

_OPERATION_OF_TOOL = {spec.tool: op for op, spec in _SPECS.items()}
_DAY = re.compile(r"^(?P<date>\d{4}-\d\d-\d\d) \((?P<weekday>\w{3})\) (?P<offset>[+-]\d\d:\d\d)$")
_LINE = re.compile(r'^\[(?P<id>[^\]]*)\] (?P<time>\d\d:\d\d) (?P<who>[^:]*?): (?P<text>".*")$')
_ZONE = re.compile(r"^time zone: (?P<zone>\S+)$")
_INPUT = re.compile(r'^\[(?P<id>[^\]]*)\] (?P<label>.*?): (?P<text>".*")$')
_WINDOW = re.compile(r"^window: (?P<label>.*) \((?P<ladder>\w+) ladder, rung (?P<rung>.+)\)$")
_BUDGET = re.compile(r"^budget: at most (?P<n>\d+) tokens$")
_HEADERS = ("known facts:", "messages:", "facts:", "known contacts:", "open tasks:", "inputs:", "summaries:")


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


def parse_lines(raws: list[str]) -> list[Line]:
    """The message section: day headings, each followed by its `[n] HH:MM who: "text"` lines."""
    lines, day = [], None
    for raw in raws:
        if (heading := _DAY.match(raw)) is not None:
            day = heading
            continue
        m = _LINE.match(raw)
        if m is None or day is None:
            raise ValueError(f"not a message line: {raw!r}")
        role, _, speaker = m["who"].partition("/")
        at = datetime.strptime(f"{day['date']} {m['time']} {day['offset']}", "%Y-%m-%d %H:%M %z")
        if ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[at.weekday()] != day["weekday"]:
            raise ValueError(f"weekday {day['weekday']} is not the day of {day['date']}")
        lines.append(Line(id=m["id"], at=at, role=role, speaker=speaker or None, text=json.loads(m["text"])))
    return lines


def zone_of(parts: dict[str, list[str]]) -> str:
    """The `time zone:` line of the rendered request (UTC when there is none)."""
    found = [m["zone"] for m in map(_ZONE.match, parts.get("head", [])) if m]
    return found[0] if found else "UTC"


def parse_request(operation: str, text: str) -> Any:
    """The request AnthropicModel rendered as `text` (scope and ref are not sent: 'fake', '')."""
    parts = sections(text)
    lines = parse_lines(parts.get("messages", []))
    zone = zone_of(parts)
    items = lambda key, cls: [cls.model_validate(json.loads(raw)) for raw in parts.get(key, [])]  # noqa: E731
    match operation:
        case "summarize":
            head = parts["head"]
            window, budget = _WINDOW.match(head[0]), _BUDGET.match(head[1])
            inputs = []
            for raw in parts.get("inputs", []):
                m = _INPUT.match(raw)
                inputs.append(SummaryInput(id=m["id"], label=m["label"], text=json.loads(m["text"])))
            return SummarizeRequest(scope="fake", ladder=window["ladder"], rung=window["rung"],
                                    window_label=window["label"], inputs=inputs, budget_tokens=int(budget["n"]),
                                    timezone=zone)
        case "extract_facts":
            return FactExtractionRequest(scope="fake", messages=lines, neighbours=items("known facts", KnownFact),
                                         timezone=zone)
        case "judge_cluster":
            return ClusterRequest(scope="fake", facts=items("facts", KnownFact))
        case "update_contacts":
            return ContactsRequest(scope="fake", messages=lines, known=items("known contacts", KnownContact),
                                   timezone=zone)
        case "update_tasks":
            return TasksRequest(scope="fake", messages=lines, open_tasks=items("open tasks", KnownTask),
                                timezone=zone)
        case "consolidate_batch":
            return BatchRequest(scope="fake", messages=lines, neighbours=items("known facts", KnownFact),
                                known_contacts=items("known contacts", KnownContact),
                                open_tasks=items("open tasks", KnownTask), timezone=zone,
                                summaries=[window_request(json.loads(raw), lines, zone)
                                           for raw in parts.get("summaries", [])])
    raise ValueError(f"unknown operation {operation!r}")


def window_request(window: dict[str, Any], lines: list[Line], zone: str) -> SummarizeRequest:
    """A summary asked with a batch, as the ladder asked it: its inputs are the named lines
    rendered as consolidator.ladders.inputs.render renders a message."""
    tz = ZoneInfo(zone)
    inputs = []
    for position in parse_span(window["lines"]):
        line = lines[position - 1]
        who = line.speaker or line.role
        if line.role in ("action", "tool") and line.speaker is None:
            who = f"[{line.role}]"
        inputs.append(SummaryInput(id=line.id, label="", text=f"{line.at.astimezone(tz):%Y-%m-%d %H:%M} {who}: {line.text}"))
    return SummarizeRequest(scope="fake", ladder=window["ladder"], rung=window["rung"], window_label=window["window"],
                            inputs=inputs, budget_tokens=window["budget_tokens"], ref=window["ref"], timezone=zone)


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
        # The prompts ask to leave out fields at their default, and this model does.
        return reply.model_dump(mode="json", exclude_defaults=True)
