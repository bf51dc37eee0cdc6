"""The Messages API fake behind AnthropicModel, for test_anthropic_backend and the modules that
reuse its sample requests: the key, one request per operation, the scripted replies, and the
`fake`, `recorder` and `make_model` fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest

from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.prompts import _SPECS
from consolidator.model.recording import MemoryRecorder
from consolidator.model import schemas
from consolidator.model.settings import ModelSettings
from tests.support.fake_anthropic import FakeAnthropic, schema_responder

KEY = "sk-ant-api03-TEST-never-leak-7f3a9c"
AT = datetime(2025, 3, 2, 9, 30, tzinfo=UTC)
LINES = [
    schemas.Line(id="m1", at=AT, role="user", speaker="Alice", text="I'm allergic to peanuts.\nAlso, I moved to Lyon."),
    schemas.Line(id="m2", at=AT, role="tool", text='{"weather": "sunny"}'),
]

REQUESTS: dict[str, Any] = {
    "summarize": schemas.SummarizeRequest(
        scope="agent-1", ladder="time", rung="day", window_label="2025-03-02", budget_tokens=200, ref="day-1",
        inputs=[schemas.SummaryInput(id="m1", label="09:30", text="Alice moved to Lyon.")],
    ),
    "extract_facts": schemas.FactExtractionRequest(
        scope="agent-1", messages=LINES, neighbours=[schemas.KnownFact(id="f1", text="Alice lives in Paris", similarity=0.8)],
        ref="batch-7",
    ),
    "judge_cluster": schemas.ClusterRequest(
        scope="agent-1", facts=[schemas.KnownFact(id="f1", text="Likes tea"), schemas.KnownFact(id="f2", text="Enjoys tea")]
    ),
    "update_contacts": schemas.ContactsRequest(scope="agent-1", messages=LINES, known=[schemas.KnownContact(name="Alice")]),
    "update_tasks": schemas.TasksRequest(
        scope="agent-1", messages=LINES, open_tasks=[schemas.KnownTask(id="t1", title="Book flights", due=date(2025, 3, 9))]
    ),
    "consolidate_batch": schemas.BatchRequest(
        scope="agent-1", messages=LINES, neighbours=[schemas.KnownFact(id="f1", text="Alice lives in Paris", similarity=0.8)],
        known_contacts=[schemas.KnownContact(name="Alice")],
        open_tasks=[schemas.KnownTask(id="t1", title="Book flights", due=date(2025, 3, 9))], ref="batch-7",
    ),
    "split_table": schemas.SplitTableRequest(
        scope="agent-1", table="hobbies", description="pastimes",
        facts=[schemas.KnownFact(id="f1", text="Alice paints"), schemas.KnownFact(id="f2", text="Alice runs")],
    ),
}

# Replies the fake gives, keyed by the name of the forced tool's reply model.
REPLIES: dict[str, dict[str, Any]] = {
    "SummaryReply": {"text": "Alice moved to Lyon."},
    "FactExtractionReply": {"facts": [
        {"text": "Alice lives in Lyon", "importance": 6, "topic": "home", "op": "UPDATE", "target_id": "f1",
         "source_ids": ["m1"]},
        {"text": "Alice is allergic to peanuts", "importance": 10, "topic": "health", "critical": True,
         "source_ids": ["m1"]},
    ]},
    "ClusterReply": {"merge": True, "text": "Likes tea", "reason": "same preference"},
    "ContactsReply": {"contacts": [{"name": "Alice", "details": {"city": "Lyon"}, "source_ids": ["m1"]}]},
    "TasksReply": {"changes": [{"op": "done", "title": "Book flights", "task_id": "t1", "source_ids": ["m1"]}]},
    "SplitTableReply": {"tables": [{"name": "art", "facts": ["f1"]}, {"name": "sport", "facts": ["f2"]}]},
}
REPLIES["BatchReply"] = {
    "facts": REPLIES["FactExtractionReply"]["facts"],
    "contacts": REPLIES["ContactsReply"]["contacts"],
    "tasks": REPLIES["TasksReply"]["changes"],
}


def scripted(tool_name: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = next(spec.reply for spec in _SPECS.values() if spec.tool == tool_name)
    return REPLIES.get(reply.__name__) or schema_responder(tool_name, body)


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY, responder=scripted) as server:
        yield server


@pytest.fixture
def recorder() -> MemoryRecorder:
    return MemoryRecorder()


@pytest.fixture
def make_model(fake: FakeAnthropic, recorder: MemoryRecorder) -> Iterator[Callable[..., AnthropicModel]]:
    made: list[AnthropicModel] = []

    def make(**overrides: Any) -> AnthropicModel:
        values: dict[str, Any] = {"provider": "anthropic", "base_url": fake.url, "timeout_s": 5, "max_call_s": 10}
        model = AnthropicModel(ModelSettings(**{**values, **overrides}), recorder, api_key=KEY)
        made.append(model)
        return model

    yield make
    for model in made:
        model.close()


def call(model: AnthropicModel, operation: str) -> Any:
    return getattr(model, operation)(REQUESTS[operation])
