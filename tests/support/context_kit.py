"""A huge store for the context.md tests: snapshot files on every rung, 10,000 facts, hundreds of
contacts and tasks (`fill_huge_store`); an app with another token cap; the published text."""

from __future__ import annotations

import json
from datetime import date, timedelta

from consolidator.core.app import App
from consolidator.core.config import ContextSettings
from stores.schema.memory import Contact, ContactDetail
from stores.engine import transaction
from stores.messages import NewMessage, append_messages
from stores.schema.memory import Task
from stores.tasks import normalise_title
from tests.support.memory_kit import START

LONG_TEXT = " ".join(f"sentence{i} about the week." for i in range(400))
RUNGS = [("time", r) for r in ("day", "week", "4w", "12w", "52w")] + [("count", str(n)) for n in (1, 10, 40, 120, 520)]


def write_json(app: App, scope: str, view: str, payload: dict) -> None:
    path = app.settings.snapshot_dir / scope / view
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))


def fill_huge_store(app: App, scope: str = "maya") -> None:
    """10,000 facts, 300 contacts with details, 400 open tasks, long summaries on every rung, 20 unconsolidated messages."""
    facts = [{"id": f"f{i}", "text": f"Fact number {i}: " + "remembered detail " * (i % 7 + 1),
              "score": 10_000 - i, "importance": 5, "valid_from": START.isoformat()} for i in range(10_000)]
    write_json(app, scope, "facts.json", {"scope": scope, "facts": facts})
    for ladder, rung in RUNGS:
        write_json(app, scope, f"{ladder}/{rung}.json", {
            "label": f"{ladder}-{rung}", "text": f"{ladder} {rung}: {LONG_TEXT}", "watermark": {"seq": 12}})
    with transaction(app.engine) as session:
        for i in range(300):
            contact = Contact(scope=scope, name=f"Person {i}", aliases=[f"P{i}", f"Pers{i}"],
                              created_at=START, updated_at=START + timedelta(minutes=i))
            session.add(contact)
            session.flush()
            for key in ("home", "job", "employer", "diet"):
                session.add(ContactDetail(contact_id=contact.id, scope=scope, key=key, value=f"{key} value {i} " * 5,
                                          valid_from=START))
        for i in range(400):
            title = f"Task {i} " + "with a long description " * 4
            session.add(Task(scope=scope, title=title, norm_title=normalise_title(title), due=date(2025, 4, 1 + i % 28),
                             opened_at=START, opened_by=[]))
    append_messages(app.engine, [NewMessage(scope, START + timedelta(minutes=i), "user", f"hello {i}") for i in range(20)],
                    START)


def with_cap(app: App, tokens: int) -> App:
    settings = app.settings.model_copy(update={"context": ContextSettings(context_tokens=tokens)})
    return App(settings=settings, engine=app.engine)


def context_text(app: App, scope: str = "maya") -> str:
    return (app.settings.snapshot_dir / scope / "context.md").read_text(encoding="utf-8")
