"""A batch's context lines (config `batch_context_lines`): the last lines of the same interaction
before a batch go with it to the model, to read it by, and are never a source."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from consolidator.core.app import App, open_app
from consolidator.core.config import Settings
from consolidator.model.base import BatchOperations
from consolidator.model.offline import OfflineModel
from consolidator.model.prompts import _render
from consolidator.model.refs import resolve
from consolidator.model.schemas import (
    BatchReply,
    FactCandidate,
    FactExtractionReply,
    FactExtractionRequest,
    Line,
)
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.facts import all_facts
from stores.messages import NewMessage, append_messages
from tests.support.drain_kit import app_on_fake_anthropic
from tests.support.offline_kit import chat

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
# The question for names ends the first batch of three; the names alone open the second.
TURNS = [("Tomas", "We adopted two puppies last week!"), ("Ana", "That's lovely, Tomas."),
         ("Ana", "What are their names?"), ("Tomas", "Pip and Bruno! They are so playful."),
         ("Ana", "Cute names."), ("Tomas", "Thanks, Ana.")]


class Recording(BatchOperations):
    """OfflineModel's answers; keeps every request; `cite` replaces each fact's sources."""

    name = "recording"
    reflect = None

    def __init__(self, cite: Any = None) -> None:
        self.inner, self.requests, self.cite = OfflineModel(), [], cite

    def call(self, operation: str, request: Any) -> Any:
        self.requests.append((operation, request))
        reply = getattr(self.inner, operation)(request)
        if self.cite is not None and isinstance(reply, BatchReply):
            reply.facts = [f.model_copy(update={"source_ids": self.cite(request)}) for f in reply.facts]
        return reply


def log(app: App, scope: str, turns: list[tuple[str, str]], session: str | None = "d1", start: int = 0) -> None:
    append_messages(app.engine, [NewMessage(scope, T0 + timedelta(minutes=start + i), "user", text, speaker=who,
                                            session=session) for i, (who, text) in enumerate(turns)], T0)


def drained(app: App, model: Recording) -> list[Any]:
    consolidator = build_consolidator(app, model=model)
    consolidator.drain(T0 + timedelta(days=1))
    return [r for op, r in model.requests if op == "consolidate_batch"]


def story_app(tmp_path: Path, lines: int = 2) -> App:
    return open_app(Settings(state_dir=tmp_path / "s", batch_size=3, batch_context_lines=lines,
                             model={"provider": "offline"}))


def test_a_batch_carries_the_last_lines_of_its_interaction_before_it(tmp_path: Path) -> None:
    """Batch 2 of one conversation is sent with batch 1's last two lines; batch 1 with none; another
    scope's lines and an earlier conversation's lines are never context."""
    app = story_app(tmp_path)
    try:
        log(app, "other", [("Bea", "My secret is the garden key.")] * 4, start=-1)
        log(app, "maya", [("Tomas", f"An old chat, the day before ({n}).") for n in (1, 2, 3)], session="d0", start=-600)
        log(app, "maya", TURNS)
        requests = {r.messages[0].text: r for r in drained(app, Recording()) if r.scope == "maya"}
        assert len(requests) == 3  # d0's three lines, then d1's six in two batches
        third = requests["Pip and Bruno! They are so playful."]
        assert [line.text for line in third.context] == ["That's lovely, Tomas.", "What are their names?"]
        assert requests["We adopted two puppies last week!"].context == []  # d1 starts: d0 is another interaction
        every = [line.text for r in requests.values() for line in r.context]
        assert not any("garden" in t or "old chat" in t for t in every)
    finally:
        app.close()


def test_no_context_lines_when_configured_off(tmp_path: Path) -> None:
    app = story_app(tmp_path, lines=0)
    try:
        log(app, "maya", TURNS)
        assert all(r.context == [] for r in drained(app, Recording()))
    finally:
        app.close()


def test_a_fact_citing_only_a_context_line_is_refused(tmp_path: Path) -> None:
    """A context line was its own batch's: a fact resting on it alone would be written twice."""
    app = story_app(tmp_path)
    try:
        log(app, "maya", TURNS)
        drained(app, Recording(cite=lambda r: [r.context[-1].id] if r.context else [r.messages[0].id]))
        with reading(app.engine) as session:
            texts = [f.text for f in all_facts(session, "maya")]
        assert texts and not any("Pip and Bruno" in t for t in texts)  # batch 1's facts stand; batch 2's cite context
    finally:
        app.close()


def test_the_offline_model_reads_a_reply_with_the_question_before_the_batch() -> None:
    """The names alone open the batch; the question is a context line: the names become a fact
    in the question's words, and the context line itself gives no fact."""
    lines = chat(("Tomas", "I moved to Lisbon last year."), ("Ana", "What are their names?"),
                 ("Tomas", "Pip and Bruno! They are so playful."))
    ask = FactExtractionRequest(scope="s", messages=lines[2:], neighbours=[])
    without = [f.text for f in OfflineModel().extract_facts(ask).facts]
    with_context = [f.text for f in OfflineModel().extract_facts(ask.model_copy(update={"context": lines[:2]})).facts]
    assert not any("Pip and Bruno" in t for t in without)
    assert any("names are Pip and Bruno" in t for t in with_context)
    assert not any("Lisbon" in t for t in with_context)


def test_the_prompt_numbers_context_lines_before_the_batch_and_never_resolves_them() -> None:
    lines = chat(("Ana", "What are their names?"), ("Tomas", "Pip and Bruno!"), ("Ana", "Cute."))
    request = FactExtractionRequest(scope="s", messages=lines[1:], neighbours=[], context=lines[:1])
    text = _render(request)
    before, _, batch = text.partition("messages:\n")
    assert re.search(r"^before:\n.*\n\[-1\] \d\d:\d\d Ana: What are their names\?\n$", before)
    assert re.search(r"\n\[1\] \d\d:\d\d Tomas: Pip and Bruno!", batch) and "[-1]" not in batch
    reply = FactExtractionReply(facts=[FactCandidate(text="Tomas has dogs.", source_ids=["-1", "1"])])
    assert resolve(request, reply).facts[0].source_ids == ["-1", lines[1].id]  # "-1" names no batch line


def test_through_the_sdk_the_context_reaches_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real Anthropic SDK (a local fake answering as the offline model): the second
    batch's prompt shows the question under `before:`, and the names become a fact."""
    def settings(state_dir: Path, url: str) -> Settings:
        return Settings(state_dir=state_dir, batch_size=3, model={"provider": "anthropic", "base_url": url})

    with app_on_fake_anthropic(tmp_path / "state", monkeypatch, settings) as (app, fake):
        log(app, "maya", TURNS)
        consolidator = build_consolidator(app)
        try:
            consolidator.drain(T0 + timedelta(days=1))
        finally:
            consolidator.steps[0].model.close()
        prompts = [_user_text(b) for b in fake.bodies]
        assert any(re.search(r"before:\n(?:.*\n)*?\[-1\] (\d\d:\d\d )?Ana: What are their names\?\nmessages:", p)
                   for p in prompts)
        with reading(app.engine) as session:
            assert any("names are Pip and Bruno" in f.text for f in all_facts(session, "maya"))


def _user_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_context_lines_are_part_of_the_request_contract() -> None:
    """Old callers that send no context still validate; a line given as context keeps its fields."""
    line = Line(id="x", at=T0, role="user", speaker="Ana", text="Hi")
    assert FactExtractionRequest(scope="s", messages=[line], neighbours=[]).context == []
    assert FactExtractionRequest(scope="s", messages=[], neighbours=[], context=[line]).context == [line]
