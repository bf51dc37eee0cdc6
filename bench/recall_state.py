"""The recall bench's drain of one conversation, and its reading of what the drain left.

Only public entry points: settings (`load_settings`) and wiring (`build_consolidator`) for
the drain; for the reading, the snapshot files under <state_dir>/snapshots/<scope>/
(context.md, facts.json, contacts.json, tasks.json), the summaries as `consolidator
summaries --json` lists them (`History.newest_versions` + `summary_payload`), and
the message log (`stores.messages`) for the interaction each message landed in.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo


from bench.locomo import Conversation
from consolidator.model.attachments import decode, with_attachments
from consolidator.ladders.publish import summary_payload
from consolidator.model.base import Model
from consolidator.model.settings import resolve_provider
from consolidator.core.app import open_app
from consolidator.core.config import Settings, load_settings
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.files.archive_files import COLUMNS
from stores.history import History
from stores.messages import append_messages
from stores.model_calls import CallTotals, totals

# Snapshot fields that describe an item rather than say something (ids, times, ranks, labels).
META_KEYS = frozenset({"id", "scope", "generated_at", "sources", "score", "importance", "strength", "pinned",
                       "status", "topic", "valid_from", "valid_to", "last_used", "opened_at", "closed_at",
                       "updated_at", "end_reason", "superseded_by", "table"})
STORE_FILES = {"facts": "facts.json", "contacts": "contacts.json", "tasks": "tasks.json"}


def bench_settings(state_dir: Path, config: Path | None = None) -> Settings:
    """The user's settings (config file, environment) with the state in `state_dir`."""
    return load_settings(config).model_copy(update={"state_dir": state_dir, "database_url": ""})


def provider_of(settings: Settings) -> str:
    return resolve_provider(settings.model, os.environ)


@dataclass
class DrainStats:
    import_s: float = 0.0
    drain_s: float = 0.0
    ticks_failed_steps: int = 0
    model: CallTotals = field(default_factory=CallTotals)  # the model-call ledger's totals after the drain
    settled_at: datetime | None = None
    index_updates: int = 0  # recall stage runs that wrote to the index
    index_update_s: float = 0.0


def drain_conversation(conv: Conversation, settings: Settings, model: Model | None = None,
                       settle: timedelta = timedelta(days=8)) -> DrainStats:
    """Import every message, then drain at `settle` after the last one, as a `run --once` would.

    `settle` (default 8 days) lets the last day and week close. A drain that left failed
    steps (a flaky API) is repeated at later times, each retry.max_delay apart, up to
    retry.max_attempts times, so the retries run.
    """
    stats = DrainStats()
    app = open_app(settings)
    try:
        consolidator = build_consolidator(app, model=model)
        started = time.perf_counter()
        messages = conv.messages
        last = max(m.at for m in messages)
        append_messages(app.engine, messages, last)
        stats.import_s = time.perf_counter() - started
        now = last + settle
        report = consolidator.drain(now)
        for attempt in range(settings.retry.max_attempts):
            if not report.steps_failed:
                break
            stats.ticks_failed_steps += report.steps_failed
            now += settings.retry.max_delay
            report = consolidator.drain(now)
        stats.drain_s = time.perf_counter() - started - stats.import_s
        stats.settled_at = now
        for stage in consolidator.stages:
            if stage.name == "recall":
                stats.index_updates, stats.index_update_s = stage.updates, stage.spent_s
        _close_models(consolidator)
        with reading(app.engine) as session:
            stats.model = totals(session)
    finally:
        app.close()
    return stats


def _close_models(consolidator: Any) -> None:
    seen: set[int] = set()
    for step in consolidator.steps:
        model = getattr(step, "model", None)
        close = getattr(model, "close", None)
        if close is not None and id(model) not in seen:
            seen.add(id(model))
            close()


@dataclass(frozen=True)
class Logged:
    """One message as the log holds it."""

    at: datetime
    interaction: int | None
    line: str  # the raw line: "HH:MM Speaker: text" in the scope's time zone


@dataclass(frozen=True)
class SummaryView:
    """One summary as `consolidator summaries --json` shows it (newest version of its window)."""

    id: str
    ladder: str
    rung: str
    label: str
    kind: str
    text: str
    sources: tuple[str, ...]
    start: datetime | None = None
    end: datetime | None = None
    first: int | None = None
    last: int | None = None

    def covers(self, message: Logged) -> bool:
        if self.start is not None and self.end is not None:
            return self.start <= message.at < self.end
        if self.first is not None and self.last is not None and message.interaction is not None:
            return self.first <= message.interaction <= self.last
        return False


@dataclass
class ScopeState:
    context: str = ""
    store_payloads: dict[str, dict] = field(default_factory=dict)  # facts/contacts/tasks snapshot JSON
    summaries: dict[tuple[str, str], list[SummaryView]] = field(default_factory=dict)
    messages: dict[str, Logged] = field(default_factory=dict)  # by loader id and stored id
    log: list[Logged] = field(default_factory=list)  # every message once, in log order
    summary_texts: dict[str, str] = field(default_factory=dict)  # every summary row's text, by id

    @property
    def stores_text(self) -> str:
        """The content strings of the three store snapshots (no ids, times or scores)."""
        return "\n".join(content_strings(self.store_payloads.get(name, {})) for name in STORE_FILES)

    def items(self, store: str) -> list[dict]:
        return list(self.store_payloads.get(store, {}).get(store, []))


def content_strings(value: Any) -> str:
    """Every string of a snapshot payload minus META_KEYS fields; the keys of a `details` map too.

    A contact's details map says something with its keys ("likes": "hiking"), so they count.
    """
    out: list[str] = []

    def walk(node: Any, free_form: bool = False) -> None:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, item in node.items():
                if free_form:
                    out.append(str(key))
                elif key in META_KEYS:
                    continue
                walk(item, free_form=key == "details")

    walk(value)
    return "\n".join(out)


def raw_line(at: datetime, who: str, text: str, tz: ZoneInfo) -> str:
    return f"{at.astimezone(tz):%H:%M} {who}: {text}"


def read_state(settings: Settings, scope: str) -> ScopeState:
    """What the drain left for `scope`, through the snapshot files, summaries and message log."""
    state = ScopeState()
    folder = settings.snapshot_dir / scope
    context = folder / "context.md"
    state.context = context.read_text(encoding="utf-8") if context.is_file() else ""
    for name, file in STORE_FILES.items():
        path = folder / file
        state.store_payloads[name] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    tz = settings.timezone_of(scope)
    rungs = [("time", r) for r in settings.ladders.time] + [("count", str(n)) for n in settings.ladders.count]
    app = open_app(settings)
    try:
        with reading(app.engine, snapshot=True) as session:  # History.rows streams
            # The whole log through the one history reader: the daemon may have archived the
            # older months (archive.after) by the time the bench reads.
            for row in History(settings.archive_dir).rows(session, scope):
                m = dict(zip(COLUMNS, row))
                at = m["at"] if m["at"].tzinfo else m["at"].replace(tzinfo=timezone.utc)
                logged = Logged(at, m["interaction"], raw_line(at, m["speaker"] or m["role"],
                                                                 with_attachments(m["text"], decode(m["attachments"])), tz))
                state.log.append(logged)
                state.messages[m["id"]] = logged
                state.messages.setdefault(m["id"].removeprefix(f"{scope}:"), logged)
            history = History(settings.archive_dir)  # old windows' summaries may be archived too
            for ladder, rung in rungs:
                rows = history.newest_versions(session, scope, ladder, rung)
                state.summaries[(ladder, rung)] = [_view(summary_payload(s)) for s in rows if s.kind != "empty"]
            for row in history.summary_versions(session, scope):
                state.summary_texts[row.id] = row.text
    finally:
        app.close()
    return state


def _view(payload: dict[str, Any]) -> SummaryView:
    window = payload["window"]
    parse = datetime.fromisoformat
    return SummaryView(
        id=payload["id"], ladder=payload["ladder"], rung=payload["rung"], label=payload["label"],
        kind=payload["kind"], text=payload["text"] or "", sources=tuple(payload["sources"]),
        start=parse(window["start"]) if "start" in window else None,
        end=parse(window["end"]) if "end" in window else None,
        first=window.get("first"), last=window.get("last"),
    )
