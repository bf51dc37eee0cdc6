"""context.md: the block a planner pastes into its instructions every turn, and its reader.

Sections, in this order: a status line (how far behind the stores are), people (name, aliases
and current details), top facts (from facts.json, as ranked there, each with its id so the
planner can report it used), open tasks (soonest due first), the newest summary of each
ladder rung (from the ladder snapshot files), and what the stores do not hold yet: the newest
messages not consolidated (at most `[context] pending_messages`, newest last, each dated in
the scope's time zone and ending with its stored id), then, past that bound, one line saying
how many earlier ones there are and since when. With nothing pending that section is left out.

The size is capped in estimated tokens (`[context] context_tokens`), whatever the store size:
the status comes first, then the messages not yet consolidated take at most `pending_share` of
the rest, and each other section gets its share of what they leave (`*_share`); a section
that needs less leaves its remainder to the truncated ones. Inside a section whole items are
kept in order while they fit, the first one that does not is cut at a word boundary, and the
rest are dropped. Each line is costed with its newline, and because the estimate rounds up per
piece, the sum of the pieces bounds the whole file; the final size is asserted.

The reader (`read_context`) lives in `consolidator.snapshots.reader`, apart from this
composer, so a planner that only reads the file imports none of what writes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

import structlog
from consolidator.core.app import App
from consolidator.snapshots.reader import CONTEXT_FILE
from consolidator.core.config import ContextSettings, Settings
from consolidator.domain import detail_sentences, estimate_tokens
from stores.contacts import contacts_of, current_details
from stores.interactions import max_number
from stores.engine import reading
from consolidator.model.attachments import decode, with_attachments
from stores.schema.log import Message
from stores.messages import newest_after, newest_at, newest_seq, span_after
from stores.ledger import consolidated_seq
from stores.files.snapshots import publish_text
from stores.summaries import interactions_after, newest_summaries
from stores.tasks import open_tasks

__all__ = ["compose", "publish_context"]

log = structlog.get_logger()

PER_ITEM = {"contacts": 60, "facts": 60, "tasks": 40}
MIN_PARTIAL = 8  # a cut item shorter than this many tokens is dropped instead
CONTACTS_READ = 500  # contacts considered (most recently updated first)
SPEAKER_CHARS = 40  # a pending message's speaker, cut to this
PENDING_TITLE = "Not yet consolidated"


def cost(line: str) -> int:
    return estimate_tokens(line + "\n")


def cut_words(text: str, max_chars: int) -> str:
    """The longest prefix ending at a word boundary, plus an ellipsis, within `max_chars`."""
    if len(text) <= max_chars:
        return text
    if max_chars < 2:
        return ""
    head = text[: max_chars - 1]
    space = head.rfind(" ")
    head = head[:space] if space > 0 else ""
    head = head.rstrip(" ,;:-")
    return f"{head}…" if head else ""


def fit(items: list[str], budget: int, per_item: int | None = None) -> tuple[list[str], bool]:
    """Lines of `items` within `budget` tokens; True when any item was cut or dropped.

    Each item is first cut to `per_item` tokens. Items are kept whole, in order, while they
    fit; the first that does not is cut at a word boundary to the room left (kept only if at
    least MIN_PARTIAL tokens remain for it), and the rest are dropped.
    """
    out: list[str] = []
    left = budget
    for i, item in enumerate(items):
        line = " ".join(item.split())
        if per_item and cost(line) > per_item:
            line = cut_words(line, 4 * per_item - 1)
            if not line:
                continue
        if cost(line) <= left:
            out.append(line)
            left -= cost(line)
            continue
        if left >= MIN_PARTIAL:
            partial = cut_words(line, 4 * left - 1)
            if partial:
                out.append(partial)
        return out, True
    return out, len(out) < len(items)


@dataclass
class Section:
    key: str
    title: str
    items: list[str]
    per_item: int | None = None
    empty: str = "- none"

    def render(self, budget: int) -> tuple[list[str], bool]:
        head = f"## {self.title}"
        if cost(head) > budget:
            return [], bool(self.items)
        body = self.items or [self.empty]
        per_item = self.per_item
        if per_item is None and self.items:  # an equal slice each, grown by any leftover
            per_item = max(MIN_PARTIAL * 3, (budget - cost(head)) // len(self.items))
            if any(cost(" ".join(i.split())) > per_item for i in self.items):
                return [head, *fit(body, budget - cost(head), per_item)[0]], True
        lines, cut = fit(body, budget - cost(head), per_item)
        return [head, *lines], cut


@dataclass
class GroupedSection(Section):
    """A section whose items belong to groups (the facts' tables, `groups` beside `items`): items
    are chosen in order while they fit, as a Section's are, each group's heading costed with its
    first item; they are shown under their group's heading, groups in order of their first item."""

    groups: list[str] = field(default_factory=list)

    def render(self, budget: int) -> tuple[list[str], bool]:
        if not self.items or len(self.groups) != len(self.items):
            return super().render(budget)
        head = f"## {self.title}"
        if cost(head) > budget:
            return [], True
        left, chosen = budget - cost(head), {}
        for item, group in zip(self.items, self.groups):
            line = "  " + " ".join(item.split())
            if self.per_item and cost(line) > self.per_item:
                line = "  " + cut_words(line.strip(), 4 * self.per_item - 3)
            need = cost(line) + (0 if group in chosen else cost(f"- {group or 'other'}:"))
            if line.strip() and need <= left:
                chosen.setdefault(group, []).append(line)
                left -= need
            elif line.strip():
                break
        lines = [head]
        for group, items in chosen.items():
            lines += [f"- {group or 'other'}:", *items]
        return lines, sum(map(len, chosen.values())) < len(self.items)


@dataclass
class PendingMessages:
    """The messages not yet consolidated: the newest (head, text, tail) lines, newest last, how
    many there are in all, and the oldest one's time."""

    lines: list[tuple[str, str, str]]
    total: int = 0
    since: str = ""

    key = "pending"

    def overflow(self, shown: int) -> str:
        count = self.total - shown
        if shown:
            return f"- … and {count} earlier message{'s' * (count != 1)} since {self.since}"
        return f"- {count} message{'s' * (count != 1)} since {self.since}"

    def render(self, budget: int) -> tuple[list[str], bool]:
        """The newest lines that fit, each cut in its text (its date, speaker and id kept), the
        oldest dropped first; a line for those not shown comes before them."""
        if not self.total:
            return [], False
        head = f"## {PENDING_TITLE}"
        room = budget - cost(head)
        whole = [f"{h}{t}{tail}" for h, t, tail in self.lines]
        if len(self.lines) == self.total and room >= sum(cost(line) for line in whole):
            return [head, *whole], False
        left = room - cost(self.overflow(min(1, len(self.lines))))  # the count only gets shorter
        if left < 0:
            short = self.overflow(0)
            return ([head, short] if room >= cost(short) else []), True
        kept: list[str] = []
        for remaining, (h, text, tail) in zip(range(len(self.lines), 0, -1), reversed(self.lines)):
            slice_ = min(left, max(MIN_PARTIAL * 3, left // remaining))
            line = f"{h}{text}{tail}"
            if cost(line) > slice_:
                cut = cut_words(text, 4 * slice_ - 1 - len(h) - len(tail))
                line = f"{h}{cut}{tail}" if cut else ""
            if not line or cost(line) > left:
                break
            kept.insert(0, line)
            left -= cost(line)
        lines = [self.overflow(len(kept))] if len(kept) < self.total else []
        return [head, *lines, *kept], True


def pending_line(message: Message, tz: tzinfo) -> tuple[str, str, str]:
    """(head, text, tail) of one message: `- 2025-05-07 14:03 Maya: ` + text + ` [id]`."""
    who = " ".join((message.speaker or message.role).split())[:SPEAKER_CHARS]
    text = with_attachments(" ".join(message.text.split()), decode(message.attachments))
    return (f"- {message.at.astimezone(tz):%Y-%m-%d %H:%M} {who}: ", text,
            f" [{message.id}]")


@dataclass
class ContextData:
    status: str
    contacts: list[str]
    facts: list[str]
    tasks: list[str]
    summaries: list[str]
    pending: PendingMessages | None = None
    fact_tables: list[str] = field(default_factory=list)  # each fact's table, beside `facts` (none: not grouped)


def compose(settings: Settings, scope: str, now: datetime, data: ContextData) -> str:
    """The text of context.md for `data`, within `settings.context.context_tokens`."""
    cfg: ContextSettings = settings.context
    cap = cfg.context_tokens
    status, _ = fit([f"# Memory: {scope}", f"_updated {now.isoformat(timespec='seconds')}_", data.status], cap)
    rest = cap - sum(cost(line) for line in status)
    pending = data.pending or PendingMessages([])
    first = pending.render(int(rest * cfg.pending_share))  # its share first, the others share the rest
    after_pending = rest - sum(cost(line) for line in first[0])
    sections = [
        Section("contacts", "People", data.contacts, PER_ITEM["contacts"]),
        GroupedSection("facts", "Facts", data.facts, PER_ITEM["facts"], groups=data.fact_tables),
        Section("tasks", "Open tasks", data.tasks, PER_ITEM["tasks"]),
        Section("summaries", "Summaries", data.summaries, None, "- none yet"),
    ]
    shares = {"contacts": cfg.contacts_share, "facts": cfg.facts_share, "tasks": cfg.tasks_share,
              "summaries": cfg.summaries_share}
    budgets = {s.key: int(after_pending * shares[s.key]) for s in sections}
    rendered = {s.key: s.render(budgets[s.key]) for s in sections}
    rendered[pending.key] = first
    used = {k: sum(cost(line) for line in lines) for k, (lines, _) in rendered.items()}
    left = rest - sum(used.values())
    by_key: dict[str, Section | PendingMessages] = {s.key: s for s in sections}
    by_key[pending.key] = pending
    for s in (by_key[k] for k in ("facts", "contacts", "summaries", "tasks", "pending")):  # leftover, by priority
        lines, cut = rendered[s.key]
        if cut and left > 0:
            again = s.render(used[s.key] + left)
            new_used = sum(cost(line) for line in again[0])
            if new_used > used[s.key]:
                left -= new_used - used[s.key]
                rendered[s.key], used[s.key] = again, new_used
    lines = list(status)
    for s in (*sections, pending):
        lines += rendered[s.key][0]
    text = "".join(f"{line}\n" for line in lines)
    assert estimate_tokens(text) <= cap, (estimate_tokens(text), cap)
    return text


def gather(app: App, scope: str) -> ContextData:
    root = app.settings.snapshot_dir / scope
    with reading(app.engine) as session:
        contacts = contacts_of(session, scope)[:CONTACTS_READ]
        details = current_details(session, scope, [c.id for c in contacts])
        tasks = open_tasks(session, scope)
        newest, newest_time = newest_seq(session, scope), newest_at(session, scope)
        consolidated = consolidated_seq(session, scope)
        total, oldest = span_after(session, scope, consolidated)
        newest_pending = newest_after(session, scope, consolidated, app.settings.context.pending_messages)
        interactions = max_number(session, scope)
        recent = recent_interactions(session, scope, app.settings)
    tasks.sort(key=lambda t: (t.due is None, t.due or t.opened_at.date(), t.opened_at, t.id))
    summaries, watermark = ladder_lines(app.settings, root, interactions, recent)
    facts = fact_lines(root / "facts.json")
    tz = app.settings.timezone_of(scope)
    since = f"{oldest.astimezone(tz):%Y-%m-%d %H:%M}" if oldest else ""
    pending = PendingMessages([pending_line(m, tz) for m in newest_pending], total, since)
    return ContextData(
        status=status_line(newest, newest_time, consolidated, watermark),
        contacts=[contact_line(c.name, c.aliases, details.get(c.id, {})) for c in contacts],
        facts=[line for line, _ in facts],
        fact_tables=[table for _, table in facts] if any(table for _, table in facts) else [],
        tasks=[f"- {t.title}" + (f" (due {t.due.isoformat()})" if t.due else "") + f" [#{t.id}]" for t in tasks],
        summaries=summaries,
        pending=pending,
    )


def status_line(newest: int, newest_at: datetime | None, consolidated: int, watermark: int | None) -> str:
    if not newest:
        return "Status: no messages logged yet."
    behind = max(0, newest - consolidated)
    parts = [f"Status: {newest} message{'s' * (newest != 1)} logged, newest at {newest_at.isoformat(timespec='minutes')}",
             f"{behind} message{'s' * (behind != 1)} not yet consolidated"]
    if watermark is None:
        parts.append("no summaries yet")
    else:
        parts.append(f"summaries cover messages through #{watermark} ({max(0, newest - watermark)} behind)")
    return "; ".join(parts) + "."


def contact_line(name: str, aliases: list[str], details: dict[str, str]) -> str:
    line = f"- {name}"
    if aliases:
        line += f" (aka {', '.join(aliases)})"
    facts = detail_sentences(details)
    return f"{line}: {facts}" if facts else line


def fact_lines(path: Path) -> list[tuple[str, str]]:
    """facts.json's facts as (context line, the fact's table or ''), ranked as there."""
    try:
        facts = json.loads(path.read_text(encoding="utf-8")).get("facts", [])
    except (FileNotFoundError, ValueError, AttributeError):
        return []
    return [(f"- {fact['text']} [{fact.get('id', '?')}]", str(fact.get("table") or ""))
            for fact in facts if isinstance(fact, dict) and str(fact.get("text", "")).strip()]


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ladder_lines(settings: Settings, root: Path, newest_interaction: int = 0,
                 recent: list[tuple[int, str, str]] | None = None) -> tuple[list[str], int | None]:
    """One line per rung with a summary (duplicates of a shorter rung's text skipped), and the
    newest watermark among them.

    Count summaries say which interactions they cover ("count/10 (interactions 31-40 of 48)"), and the
    interactions newer than every block above the base (`recent`: (number, label, text) of
    their count/1 summaries, newest first) come first, one line each, so "the last N" is never
    read as interactions that are not the last ones."""
    lines: list[str] = []
    seen: set[str] = set()
    watermark: int | None = None

    def add(line_head: str, text: str) -> None:
        if text and text not in seen:
            seen.add(text)
            lines.append(f"{line_head}: {text}")

    of = f" of {newest_interaction}" if newest_interaction else ""
    count_blocks: list[tuple[str, str]] = []
    for ladder, rung in [("time", r) for r in settings.ladders.time] + [("count", str(n)) for n in settings.ladders.count]:
        data = _read_json(root / ladder / f"{rung}.json")
        if not data:
            continue
        seq = (data.get("watermark") or {}).get("seq")
        if isinstance(seq, int):
            watermark = max(watermark or 0, seq)
        text = " ".join(str(data.get("text", "")).split())
        if ladder == "time":
            add(f"- {rung} ({data.get('label', '')})", text)
        elif rung != "1" or not recent:
            count_blocks.append((f"- count/{rung} ({data.get('label', '')}{of})", text))
    for number, _, text in recent or []:
        add(f"- count/1 (interaction {number}{of})", " ".join(text.split()))
    for head, text in count_blocks:
        add(head, text)
    return lines, watermark


def recent_interactions(session, scope: str, settings: Settings) -> list[tuple[int, str, str]]:
    """The count/1 summaries of the interactions that no block above the base holds yet."""
    counts = sorted(settings.ladders.count)
    above = [n for n in counts if n > 1]
    if not counts or counts[0] != 1:
        return []
    blocks = newest_summaries(session, scope, "count", [str(n) for n in above])
    covered = max((block.last_number or 0 for block in blocks.values()), default=0)
    limit = (above[0] - 1) if above else 1
    return [(row.first_number, row.label, row.text) for row in interactions_after(session, scope, covered, limit)]


def publish_context(app: App, scope: str, now: datetime) -> None:
    """Write <snapshots>/<scope>/context.md (called for every scope with a changed view)."""
    text = compose(app.settings, scope, now, gather(app, scope))
    publish_text(app.settings.snapshot_dir, scope, CONTEXT_FILE, text)
    log.debug("context.published", scope=scope, tokens=estimate_tokens(text))
