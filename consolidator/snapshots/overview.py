"""What the main job made, per scope: the memory a newcomer should see after `run --once`.

`gather_report` reads the stores (facts, contacts, open tasks, summaries written per rung)
and the path of context.md; `format_report` turns it into a few lines of text. The JSON
form (`consolidator report --json`) is the gathered dict itself.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from consolidator.domain import estimate_tokens
from consolidator.facts.publish import ranked_facts
from consolidator.ladders.publish import ladder_specs
from consolidator.core.app import App
from stores.contacts import contacts_of
from stores.engine import printable_url, reading
from stores.interactions import max_number
from stores.messages import newest_at, newest_seq
from stores.history import History
from stores.tasks import open_tasks

NAMES_SHOWN = 8


def gather_report(app: App, scopes: list[str], now: datetime, top: int = 3) -> dict[str, Any]:
    """Per scope: counts and the best few items of each kind of memory; `top` items per list."""
    specs = ladder_specs(app)
    out: dict[str, Any] = {}
    for scope in scopes:
        with reading(app.engine) as session:
            messages, last_at = newest_seq(session, scope), newest_at(session, scope)
            interactions = max_number(session, scope)
            contacts = contacts_of(session, scope)
            tasks = open_tasks(session, scope)
            written = History(app.settings.archive_dir).written_windows(session, scope)
        facts = ranked_facts(app, scope, now)
        tasks.sort(key=lambda t: (t.due is None, t.due or t.opened_at.date(), t.opened_at, t.id))
        context = app.settings.snapshot_dir / scope / "context.md"
        try:
            context_tokens: int | None = estimate_tokens(context.read_text(encoding="utf-8"))
        except OSError:
            context_tokens = None
        out[scope] = {
            "messages": messages,
            "interactions": interactions,
            "last_message_at": last_at.isoformat() if last_at else None,
            "facts": {"current": len(facts), "best": [f["text"] for f in facts[:top]]},
            "contacts": {"count": len(contacts), "names": [c.name for c in contacts[:NAMES_SHOWN]]},
            "tasks": {"open": len(tasks),
                      "first": [{"title": t.title, "due": t.due.isoformat() if t.due else None} for t in tasks[:top]]},
            "summaries": {ladder: {rung.name: written.get((ladder, rung.name), 0) for rung in spec.rungs}
                          for ladder, spec in specs.items()},
            "context": {"path": str(context), "tokens": context_tokens},
        }
    return {"scopes": out, "state_dir": str(app.settings.state_dir), "database": printable_url(app.settings.db_url)}


def format_report(report: dict[str, Any]) -> list[str]:
    """The report as text lines: one block per scope."""
    lines = [f"state: {report['state_dir']}"]
    if not report["scopes"]:
        lines.append("no messages logged yet")
    for scope, s in report["scopes"].items():
        newest = ""
        if s["last_message_at"]:
            at = datetime.fromisoformat(s["last_message_at"]).astimezone(timezone.utc)
            newest = f", newest {at:%Y-%m-%d %H:%M} UTC"
        lines.append(f"{scope}: {_count(s['messages'], 'message')}, {_count(s['interactions'], 'interaction')}{newest}")
        facts = s["facts"]
        lines.append(f"  facts: {facts['current']} current" + (", the best:" if facts["best"] else ""))
        lines += [f"    - {_one_line(text)}" for text in facts["best"]]
        contacts = s["contacts"]
        more = contacts["count"] - len(contacts["names"])
        names = ", ".join(contacts["names"]) + (f" and {more} more" if more > 0 else "")
        lines.append(f"  contacts: {contacts['count']}" + (f": {names}" if names else ""))
        tasks = s["tasks"]
        lines.append(f"  open tasks: {tasks['open']}")
        lines += [f"    - {_one_line(t['title'])}" + (f" (due {t['due']})" if t["due"] else "") for t in tasks["first"]]
        rungs = "; ".join(f"{ladder} " + ", ".join(f"{rung} {n}" for rung, n in counts.items())
                          for ladder, counts in s["summaries"].items())
        lines.append(f"  summaries written: {rungs}")
        context = s["context"]
        size = f" ({context['tokens']:,} tokens)" if context["tokens"] is not None else " (not written yet)"
        lines.append(f"  context.md: {context['path']}{size}")
        lines.append(f"  timeline: consolidator timeline --scope {scope}")
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
