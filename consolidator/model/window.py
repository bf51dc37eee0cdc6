"""Every request within the server's context window: prompt plus max_tokens <= `context_tokens`.

`plan(op, request, measure, window, max_tokens)` is pure: `measure(op, request)` is the prompt
a request costs on the wire (the backend's estimate of its whole body), and the answer is
either one `Ask` (the request, perhaps with fewer items shown, and the max_tokens it may use)
or a `Split` (several asks whose replies `merge` joins into the one reply the caller wanted).

What gives way, in order, when a request does not fit:

- batch operations: the known facts, contacts and open tasks shown are cut to a third of the
  room the operation's own prompt (and least output) leaves, lowest ranked first (facts come
  ranked by similarity); then the lines are split into as few parts as fit, each as long as
  fits, cut where no summary asked with the batch straddles (else anywhere: a summary whose
  lines straddle a cut is left out, and its ladder asks for it on its own). Each part sees the
  same known items; the step gets one merged reply, so it applies once. A `consolidate_batch`
  whose fixed part (its longer prompt and schema) leaves less than a third of the room its
  three operations would have for lines is asked as those three: fewer calls;
- `summarize`: inputs are dropped lowest rank first (`rank`: the fewest distinct content
  words, which the extractive summariser would drop first), never cut mid-line; a last input
  too long alone loses whole lines from its end;
- `judge_cluster` and `reflect`: the last facts of the cluster or group (at least two stay);
- a single line too long for any window is cut at a word, as a last resort;
- any other operation is asked whole when it fits, else refused (`WindowTooSmall`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from consolidator.model import schemas
from consolidator.model.settings import Operation

Measure = Callable[[str, Any], int]
_WORD = re.compile(r"\w+")
# Output room below which a request is not worth sending.
MIN_OUTPUT = 256
KNOWN_SHARE = 3  # known items take at most 1/KNOWN_SHARE of the room the fixed prompt leaves


@dataclass(frozen=True)
class Ask:
    operation: Operation
    request: Any
    max_tokens: int


@dataclass(frozen=True)
class Split:
    parts: list[tuple[Operation, Any]]
    merge: Callable[[list[Any]], Any]


class WindowTooSmall(ValueError):
    """Not even the operation's fixed prompt fits the window (context_tokens too small)."""


def output_floor(op: str, request: Any, max_tokens: int) -> int:
    """The least output room a request is sent with."""
    if op == "summarize":
        need = 2 * request.budget_tokens + 64
    elif op in _KNOWN:
        need = max(MIN_OUTPUT, 128 + 24 * len(request.messages))
    else:
        need = MIN_OUTPUT
    return min(need, max_tokens)


def _no_topic(request: Any) -> dict:
    """A reflect group cut to fit: the topic its facts shared was counted over the whole group, so
    it is left out (the judge_cluster request has none)."""
    return {"topic": ""} if getattr(request, "topic", "") else {}


def plan(op: Operation, request: Any, measure: Measure, window: int, max_tokens: int) -> Ask | Split:
    floor = output_floor(op, request, max_tokens)
    room = window - measure(op, request)
    if room >= floor:
        return Ask(op, request, min(max_tokens, room))
    if op == "summarize":
        return Ask(op, _trim_summary(request, measure, window, floor), floor)
    if op in ("judge_cluster", "reflect"):  # the last facts give way (a reflect group's last said)
        return _fit_by(op, request, measure, window, floor, max_tokens,
                       lambda r: r.model_copy(update={"facts": r.facts[:-1], **_no_topic(r)})
                       if len(r.facts) > 2 else None)
    if op in _KNOWN:
        return _fit_batch(op, request, measure, window, max_tokens)
    raise WindowTooSmall(f"{op}: the request does not fit context_tokens, and it has no way to be cut")


# --- batch operations -----------------------------------------------------------------------

_KNOWN = {"consolidate_batch": ("neighbours", "known_contacts", "open_tasks"), "extract_facts": ("neighbours",),
          "update_contacts": ("known",), "update_tasks": ("open_tasks",)}


def _without_known(request: Any, fields: tuple[str, ...]) -> Any:
    return request.model_copy(update={f: [] for f in fields})


def _cut_known(op: str, request: Any, measure: Measure, budget: int) -> Any:
    """Known items dropped from the end of the longest list until they cost at most `budget`."""
    fields = _KNOWN[op]
    bare = measure(op, _without_known(request, fields))
    while measure(op, request) - bare > budget and any(getattr(request, f) for f in fields):
        longest = max(fields, key=lambda f: len(getattr(request, f)))
        request = request.model_copy(update={longest: getattr(request, longest)[:-1]})
    return request


def _fit_batch(op: Operation, request: Any, measure: Measure, window: int, max_tokens: int) -> Ask | Split:
    fields = _KNOWN[op]
    one_line = _without_known(request, fields).model_copy(update={"messages": request.messages[:1]})
    if op == "consolidate_batch":
        one_line = one_line.model_copy(update={"summaries": []})
        if 3 * _room(op, one_line, measure, window, max_tokens) < min(
                _room(o, r, measure, window, max_tokens) for o, r in _per_operation_parts(one_line)):
            return Split(_per_operation_parts(request), _per_operation)
    request = _cut_known(op, request, measure, _room(op, one_line, measure, window, max_tokens) // KNOWN_SHARE)
    floor = output_floor(op, request, max_tokens)
    if (room := window - measure(op, request)) >= floor:
        return Ask(op, request, min(max_tokens, room))
    if len(request.messages) > 1:
        return Split([(op, part) for part in _parts(op, request, measure, window, max_tokens)],
                     lambda replies: merge(op, replies))
    request = _without_known(request, fields).model_copy(update={"context": []})  # what may go, goes first
    if (room := window - measure(op, request)) >= floor:
        return Ask(op, request, min(max_tokens, room))
    return Ask(op, _cut_line(op, request, measure, window - floor), floor)


def _room(op: str, request: Any, measure: Measure, window: int, max_tokens: int) -> int:
    """What a request's window leaves for more lines (its prompt and least output taken)."""
    return window - measure(op, request) - output_floor(op, request, max_tokens)


def _per_operation_parts(request: schemas.BatchRequest) -> list[tuple[Operation, Any]]:
    return [("extract_facts", request.facts_request()), ("update_contacts", request.contacts_request()),
            ("update_tasks", request.tasks_request())]


def _part(op: str, request: Any, lines: list[Any], before: list[Any]) -> Any:
    """The request over some of its lines, with the summaries asked whose lines are all there and
    `before` as its context lines."""
    update: dict[str, Any] = {"messages": lines, "context": before}
    if op == "consolidate_batch":
        ids = {line.id for line in lines}
        update["summaries"] = [w for w in request.summaries if {i.id for i in w.inputs} <= ids]
    return request.model_copy(update=update)


def _parts(op: str, request: Any, measure: Measure, window: int, max_tokens: int) -> list[Any]:
    """The lines in as few parts as fit, each as long as fits, cut only where no summary straddles
    (a part of one line when even that does not fit: it is planned again on its own)."""
    lines = request.messages
    position = {line.id: n for n, line in enumerate(lines)}
    spans = [(min(position[i.id] for i in w.inputs), max(position[i.id] for i in w.inputs))
             for w in getattr(request, "summaries", []) if w.inputs]
    free = {k for k in range(1, len(lines)) if not any(a < k <= b for a, b in spans)} | {len(lines)}
    parts, start, reach = [], 0, len(request.context)
    while start < len(lines):
        before = request.context  # a later part's: the lines before it, as many as the request carried
        if start:
            before = lines[max(0, start - reach):start] if reach else []
        best, fallback = None, start + 1
        for end in range(start + 1, len(lines) + 1):
            candidate = _part(op, request, lines[start:end], before)
            if window - measure(op, candidate) < output_floor(op, candidate, max_tokens):
                break
            fallback = end
            if end in free:
                best = end
        end = best or fallback
        parts.append(_part(op, request, lines[start:end], before))
        start = end
    return parts


def _cut_line(op: str, request: Any, measure: Measure, budget: int) -> Any:
    line = request.messages[0]
    words = line.text.split(" ")
    while len(words) > 1 and measure(op, request) > budget:
        words = words[: max(1, len(words) * 3 // 4)]
        request = request.model_copy(update={"messages": [line.model_copy(update={"text": " ".join(words)})]})
    if measure(op, request) > budget:
        raise WindowTooSmall(f"{op}: the fixed prompt alone does not fit context_tokens")
    return request


def merge(op: str, replies: list[Any]) -> Any:
    """One reply from the replies to the parts of a split request."""
    facts = [f for r in replies for f in getattr(r, "facts", [])]
    contacts = merge_contacts([c for r in replies for c in getattr(r, "contacts", [])])
    match op:
        case "extract_facts":
            return schemas.FactExtractionReply(facts=facts)
        case "update_contacts":
            return schemas.ContactsReply(contacts=contacts)
        case "update_tasks":
            return schemas.TasksReply(changes=[c for r in replies for c in r.changes])
        case "consolidate_batch":
            return schemas.BatchReply(facts=facts, contacts=contacts, tasks=[t for r in replies for t in r.tasks],
                                      summaries=[s for r in replies for s in r.summaries])
    raise ValueError(f"{op} is not split")


def _per_operation(replies: list[Any]) -> schemas.BatchReply:
    facts, contacts, tasks = replies
    return schemas.BatchReply(facts=facts.facts, contacts=contacts.contacts, tasks=tasks.changes)


def merge_contacts(updates: list[schemas.ContactUpdate]) -> list[schemas.ContactUpdate]:
    """Updates of one person from several parts as one: aliases and lines joined, later details win."""
    by_name: dict[str, schemas.ContactUpdate] = {}
    for u in updates:
        old = by_name.get(u.name.casefold())
        if old is None:
            by_name[u.name.casefold()] = u
            continue
        by_name[u.name.casefold()] = old.model_copy(update={
            "aliases": list(dict.fromkeys([*old.aliases, *u.aliases])), "details": {**old.details, **u.details},
            "biography": u.biography if u.biography is not None else old.biography,
            "summary": "; ".join(s for s in (old.summary, u.summary) if s),
            "source_ids": list(dict.fromkeys([*old.source_ids, *u.source_ids]))})
    return list(by_name.values())


# --- summaries and clusters --------------------------------------------------------------------


def rank(item: schemas.SummaryInput) -> int:
    """How much an input says: its distinct content words (four letters or more, or with a digit)."""
    return len({w.lower() for w in _WORD.findall(item.text) if len(w) >= 4 or any(c.isdigit() for c in w)})


def _trim_summary(request: schemas.SummarizeRequest, measure: Measure, window: int,
                  floor: int) -> schemas.SummarizeRequest:
    budget = window - floor
    inputs = list(request.inputs)
    order = sorted(range(len(inputs)), key=lambda n: (rank(inputs[n]), -n))
    dropped: set[int] = set()
    current = request
    for n in order:
        if measure("summarize", current) <= budget or len(dropped) == len(inputs) - 1:
            break
        dropped.add(n)
        current = request.model_copy(update={"inputs": [x for k, x in enumerate(inputs) if k not in dropped]})
    while measure("summarize", current) > budget:
        last = current.inputs[-1]
        rows = last.text.split("\n")
        if len(rows) > 1:
            text = "\n".join(rows[:-1])
        else:
            words = last.text.split(" ")
            if len(words) <= 1:
                raise WindowTooSmall("summarize: the fixed prompt alone does not fit context_tokens")
            text = " ".join(words[: len(words) * 3 // 4])
        current = current.model_copy(update={"inputs": [*current.inputs[:-1], last.model_copy(update={"text": text})]})
    return current


def _fit_by(op: Operation, request: Any, measure: Measure, window: int, floor: int, max_tokens: int,
            shrink: Callable[[Any], Any]) -> Ask:
    while window - measure(op, request) < floor:
        smaller = shrink(request)
        if smaller is None:
            raise WindowTooSmall(f"{op}: the fixed prompt alone does not fit context_tokens")
        request = smaller
    return Ask(op, request, min(max_tokens, window - measure(op, request)))
