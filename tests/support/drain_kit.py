"""The drain test_anthropic_drain runs through the real SDK, as the batch and summary tests reuse
it: the generated history (`records`, START to END), the settings of a drain, and `outcome`,
what a drain left in the stores."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from consolidator.messages.sample import generate
from consolidator.core.app import App, open_app
from consolidator.core.config import Settings
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder
from stores.schema.memory import Contact
from stores.engine import reading
from stores.model_calls import totals
from stores.schema.memory import Fact
from stores.schema.ledger import StepRun
from stores.schema.ladders import Summary
from stores.schema.memory import Task

UTC = timezone.utc
KEY = "sk-ant-drain-test-0000"
START = datetime(2025, 1, 6, tzinfo=UTC)  # a Monday


def records() -> list[dict[str, Any]]:
    return list(generate(scope="maya", start=START, days=20, seed=4, rate=2.0))


END = max(datetime.fromisoformat(r["at"]) for r in records())


def settings_for(state_dir: Path, base_url: str | None = None, combine: bool = True) -> Settings:
    # timeout_s: the injected timeout (2.5 s) must time out, an ordinary answer on a loaded
    # 2-core machine must not (at 0.3 s one sometimes did, and the ledger then missed a call
    # the server had answered).
    model = {"provider": "anthropic", "base_url": base_url, "timeout_s": 1.0, "max_call_s": 4.0, "max_retries": 2,
             "combine_batch_steps": combine}
    return Settings(
        state_dir=state_dir, batch_size=25, ladders={"budget_tokens": 64},
        facts={"sleep_idle": "3d", "sleep_importance": 100_000, "merge_threshold": 0.6},
        retry={"base_delay": "1m", "max_delay": "5m", "max_attempts": 8},
        model=model if base_url else {"provider": "offline"},
    )


def newest_summaries(app: App) -> dict[tuple[str, str, str], Summary]:
    """The newest version of every summary window, by (ladder, rung, key)."""
    with reading(app.engine) as session:
        newest: dict[tuple[str, str, str], Summary] = {}
        for s in session.execute(select(Summary)).scalars():
            key = (s.ladder, s.rung, s.key)
            if key not in newest or s.version > newest[key].version:
                newest[key] = s
    return newest


def outcome(app: App) -> dict[str, Any]:
    """What the drain left: newest summary text per window, current facts, contacts and tasks."""
    newest = newest_summaries(app)
    with reading(app.engine) as session:
        facts = sorted(f.text for f in session.execute(select(Fact).where(Fact.valid_to.is_(None))).scalars())
        contacts = sorted(c.name for c in session.execute(select(Contact)).scalars())
        tasks = sorted((t.title, t.status) for t in session.execute(select(Task)).scalars())
        runs = [r.status for r in session.execute(select(StepRun)).scalars()]
    return {"summaries": {k: (s.kind == "empty", s.text) for k, s in newest.items()}, "facts": facts,
            "contacts": contacts, "tasks": tasks, "runs": runs}


def assert_ledger_matches_server(app: App, fake: FakeAnthropic) -> None:
    """What the ledger recorded is what the fake server answered, token for token."""
    with reading(app.engine) as session:
        t = totals(session)
    c = fake.counters
    assert (t.calls, t.input_tokens, t.output_tokens) == (c.answered, c.input_tokens, c.output_tokens)
    assert (t.cache_read_tokens, t.cache_write_tokens) == (c.cache_read_tokens, c.cache_write_tokens)


@contextmanager
def app_on_fake_anthropic(state_dir: Path, monkeypatch: pytest.MonkeyPatch,
                          settings: Callable[[Path, str], Settings]) -> Iterator[tuple[App, FakeAnthropic]]:
    """An app whose model is the real SDK against a fake Messages API answering as the offline model."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        app = open_app(settings(state_dir, fake.url))
        try:
            yield app, fake
        finally:
            app.close()
