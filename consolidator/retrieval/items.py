"""Store rows as recall items: what each kind shows, what the search reads, its time and sources.

Item ids are the kind and the store's own id (`fact:f_…`, `msg:<stored id>`, `sum:time/day/2024-05-07`,
`contact:3`, `task:12`), so a newer version of a summary window or a changed fact replaces the
row it had. Messages of the `tool` and `system` roles are not indexed (machine output, not
what anybody said).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from consolidator.domain import detail_sentences
from consolidator.model.attachments import decode, with_attachments
from stores.files.archive_files import COLUMNS
from stores.files.recall_index import IndexItem

SKIPPED_ROLES = frozenset({"tool", "system"})
SOURCES_KEPT = 100
HISTORY_REASONS = frozenset({"updated", "deleted"})  # closed, but true once: kept as history


def _ts(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


CONTEXT_TURNS = 2  # turns before a message that are searched with it


def message_item(message: Any, before: list[Any] | None = None, gap_s: float = 1800.0) -> IndexItem | None:
    """A logged message (any object with the message columns), None for a skipped role.

    `before` are the messages logged just before it (oldest first): those of the same
    conversation (the same session, or each within `gap_s` seconds of the next without one) are
    the item's context, searched at a lower weight and never shown, so a reply is found by the
    words of what it answers ("Who played at the party?" / "A band called the Larks, so good!").
    Its attachments' captions are searched and shown with its text ("(photo: ...)")."""
    if message.role in SKIPPED_ROLES or not str(message.text).strip():
        return None
    who = message.speaker or message.role
    text = f"{who}: {with_attachments(message.text, decode(getattr(message, 'attachments', None)))}"
    said: list[str] = []
    later = message
    for turn in reversed((before or [])[-CONTEXT_TURNS:]):
        if not _same_talk(turn, later, gap_s):
            break
        if turn.role not in SKIPPED_ROLES:
            said.append(str(turn.text))
        later = turn
    context = "\n".join(reversed(said))
    return IndexItem(id=f"msg:{message.id}", kind="message", text=text, body=text, speaker=who,
                     at=_ts(message.at), context=context)


def _same_talk(before: Any, message: Any, gap_s: float) -> bool:
    if before.session and message.session:
        return before.session == message.session
    return abs((message.at - before.at).total_seconds()) <= gap_s


def fact_item(fact: Any) -> IndexItem | None:
    """A current fact, or a superseded/deleted one as history; None for merged or dropped ones. Its
    topic table's name is searched with it, as a reply's question is ("health" finds the allergies)."""
    if fact.valid_to is not None and (fact.end_reason not in HISTORY_REASONS or fact.tombstoned_at is not None):
        return None
    status = "current" if fact.valid_to is None else "history"
    return IndexItem(id=f"fact:{fact.id}", kind="fact", text=fact.text, body=fact.text, status=status,
                     at=_ts(fact.valid_from), until=_ts(fact.valid_to), importance=float(fact.importance),
                     label=fact.topic, sources=tuple(fact.sources[-SOURCES_KEPT:]),
                     context=fact.fact_table or "")


def summary_item(summary: Any) -> IndexItem | None:
    if not str(summary.text).strip():
        return None
    at = _ts(summary.window_start) if summary.window_start is not None else None
    until = _ts(summary.window_end) if summary.window_end is not None else _ts(summary.watermark_at)
    return IndexItem(id=f"sum:{summary.ladder}/{summary.rung}/{summary.key}", kind="summary", text=summary.text,
                     body=f"{summary.label}\n{summary.text}", ladder=summary.ladder, rung=summary.rung,
                     label=summary.label, at=at, until=until, sources=tuple(summary.sources[:SOURCES_KEPT]))


def contact_item(contact: Any, details: dict[str, str]) -> IndexItem:
    """A contact as its current details and biography. Not its running summary: a dated line per
    batch of what the facts already hold, which would make the card a copy of the fact it repeats
    (the fact, with the id a planner marks used, is the item to show)."""
    head = contact.name + (f" (aka {', '.join(contact.aliases)})" if contact.aliases else "")
    # One sentence per detail (domain.detail_sentences), so a card cut to the budget shows the
    # details a query asks about (render.excerpt), not the first ones in key order.
    body = " ".join(p for p in (detail_sentences(details), (contact.biography or "").strip()) if p)
    text = f"{head}: {body}" if body else head
    return IndexItem(id=f"contact:{contact.id}", kind="contact", text=text, body=text, label=contact.name,
                     at=_ts(contact.updated_at), sources=tuple(contact.sources[-SOURCES_KEPT:]))


def task_item(task: Any) -> IndexItem:
    return IndexItem(id=f"task:{task.id}", kind="task", text=task.title, body=task.title, status=task.status,
                     at=_ts(task.opened_at), until=_ts(task.closed_at),
                     label=task.due.isoformat() if task.due else None,
                     sources=tuple([*task.opened_by, *task.closed_by][-SOURCES_KEPT:]))


class LoggedRow:
    """A history reader's COLUMNS tuple as an object with the message's attributes (times aware)."""

    def __init__(self, row: tuple) -> None:
        self.__dict__.update(zip(COLUMNS, row))
        if self.at is not None and self.at.tzinfo is None:
            self.at = self.at.replace(tzinfo=timezone.utc)
