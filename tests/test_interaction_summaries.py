"""One call per interaction: the batch call also writes the summary of each interaction it completes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from consolidator.model.offline import OfflineModel
from consolidator.core.app import App, open_app
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.model import ModelCall
from stores.schema.ladders import Summary
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder
from tests.support.drain_kit import KEY, settings_for

START = datetime(2025, 3, 3, 14, 0, tzinfo=UTC)
LINES = ["I met Ana Lopez at the museum; she now works there as a curator of modern art.",
         "Ana said her brother Tom moved to Lisbon last week for a job at a bank.",
         "Remind me to send Ana the photos from the trip to Porto tomorrow morning.",
         "I started reading Dune again; Ana recommended the second book too.",
         "Tom's birthday is on 2025-04-02 and he likes jazz records and old cameras."]


def one_session(app: App, start: datetime = START) -> datetime:
    messages = [NewMessage("maya", start + timedelta(minutes=i), "user", text, "Maya") for i, text in enumerate(LINES)]
    append_messages(app.engine, messages, start)
    return messages[-1].at


def count_summaries(app: App) -> dict[str, tuple[str, str]]:
    with reading(app.engine) as session:
        rows = session.execute(select(Summary).where(Summary.ladder == "count", Summary.rung == "1")).scalars()
        return {s.key: (s.kind, s.text) for s in rows}


@pytest.fixture
def sdk_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[App, FakeAnthropic]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        settings = settings_for(tmp_path / "state", fake.url)
        # No fault is injected: a loaded machine must not make the client give up on an answer.
        model = settings.model.model_copy(update={"timeout_s": 10.0, "max_call_s": 30.0})
        app = open_app(settings.model_copy(update={"model": model}))
        try:
            yield app, fake
        finally:
            app.close()


def offline_count_summaries(tmp_path: Path) -> dict[str, tuple[str, str]]:
    app = open_app(settings_for(tmp_path / "offline"))
    try:
        end = one_session(app)
        build_consolidator(app, model=OfflineModel()).drain(end + timedelta(minutes=31))
        return count_summaries(app)
    finally:
        app.close()


@pytest.mark.slow
def test_a_finished_session_costs_one_call_and_its_summary_is_the_ladder_s(
    sdk_app: tuple[App, FakeAnthropic], tmp_path: Path
) -> None:
    """Session over, batch flushed, interaction complete: one consolidate_batch call and no summarize call;
    the interaction's summary is written as the ladder writes it and equals an offline drain's."""
    app, fake = sdk_app
    end = one_session(app)
    consolidator = build_consolidator(app)
    consolidator.drain(end + timedelta(minutes=31))
    consolidator.steps[0].model.close()
    assert fake.responder.operations == {"consolidate_batch": 1}
    with reading(app.engine) as session:
        assert [c.operation for c in session.execute(select(ModelCall)).scalars()] == ["consolidate_batch"]
    written = count_summaries(app)
    assert written == offline_count_summaries(tmp_path) and len(written) == 1
    assert next(iter(written.values()))[0] == "summarized"


@pytest.mark.slow
def test_a_reply_without_the_summary_leaves_the_ladder_to_call_for_it(
    sdk_app: tuple[App, FakeAnthropic], tmp_path: Path
) -> None:
    """If the batch call does not answer the summary it was asked, the promise is withdrawn and the
    ladder makes its own call in the same tick: the window is written all the same."""
    app, fake = sdk_app
    responder = fake.responder

    def forgetful(tool: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = responder(tool, body)
        reply.pop("summaries", None)
        return reply

    fake.responder = forgetful
    end = one_session(app)
    consolidator = build_consolidator(app)
    consolidator.drain(end + timedelta(minutes=31))
    consolidator.steps[0].model.close()
    assert responder.operations == {"consolidate_batch": 1, "summarize": 1}
    assert count_summaries(app) == offline_count_summaries(tmp_path)
