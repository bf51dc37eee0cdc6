"""Short references in prompts (consolidator.model.refs): what the model reads and cites, and how
a reply's references come back as stored ids, through the real SDK against the local fake."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.refs import line_span, parse_span, render_lines, resolve
from consolidator.model import schemas
from consolidator.model.recording import MemoryRecorder
from consolidator.model.settings import ModelSettings
from tests.support.fake_anthropic import FakeAnthropic

KEY = "sk-ant-refs-test"
AT = datetime(2025, 3, 2, 9, 30, tzinfo=UTC)
LONG = "scope-with-a-long-name:8f14e45f-ceea-467a-9b5e-3c1d2f0a7b61"


def lines(n: int, start: datetime = AT, step: timedelta = timedelta(minutes=1)) -> list[schemas.Line]:
    return [schemas.Line(id=f"{LONG}:{i}", at=start + i * step, role="user", speaker="Ana", text=f"line {i}")
            for i in range(n)]


def batch_request(**update: Any) -> schemas.BatchRequest:
    request = schemas.BatchRequest(
        scope="s", messages=lines(3),
        neighbours=[schemas.KnownFact(id="f_low", text="Ana likes tea", similarity=0.2),
                    schemas.KnownFact(id="f_high", text="Ana lives in Porto", similarity=0.9)],
        known_contacts=[schemas.KnownContact(name="Ana")],
        open_tasks=[schemas.KnownTask(id="t_abc", title="Send the report")],
    )
    return request.model_copy(update=update)


@pytest.fixture
def fake() -> Any:
    with FakeAnthropic(api_key=KEY) as server:
        yield server


def model_for(fake: FakeAnthropic) -> AnthropicModel:
    settings = ModelSettings(provider="anthropic", base_url=fake.url, timeout_s=5, max_call_s=10)
    return AnthropicModel(settings, MemoryRecorder(), api_key=KEY)


class TestWhatTheModelReads:
    def test_no_stored_id_reaches_the_prompt(self, fake: FakeAnthropic) -> None:
        """Lines are [1]..[n], facts F1.., tasks T1..; the long message, fact and task ids are never sent."""
        window = schemas.SummarizeRequest(scope="s", ladder="count", rung="1", window_label="interactions 4-4",
                                  inputs=[schemas.SummaryInput(id=m.id, label="", text=m.text) for m in lines(3)[1:]],
                                  budget_tokens=100, ref="count/1/4-4")
        model_for(fake).consolidate_batch(batch_request(summaries=[window]))
        user = fake.bodies[0]["messages"][0]["content"]
        assert LONG not in user and "f_high" not in user and "t_abc" not in user
        assert "[1] 09:30 Ana: line 0" in user and "\nT1 Send the report\n" in user
        assert "S1 count/1: interactions 4-4, lines 2-3, at most 100 tokens" in user and "count/1/4-4" not in user

    def test_known_facts_are_listed_most_similar_first(self, fake: FakeAnthropic) -> None:
        """The ranking survives without the similarity figure: the closest fact comes first, under its own ref."""
        model_for(fake).consolidate_batch(batch_request())
        user = fake.bodies[0]["messages"][0]["content"]
        assert user.index("\nF2 Ana lives in Porto\n") < user.index("\nF1 Ana likes tea\n")
        assert "similarity" not in user

    def test_a_day_heading_is_written_once_per_local_day_and_offset(self) -> None:
        """Lines of one local day share a heading; a new date, or a DST switch inside a day, starts another."""
        same_day = render_lines(lines(3), "UTC")
        assert same_day.count("(Sun) +00:00") == 1 and same_day.count("\n[") == 3
        dst = datetime(2025, 3, 30, 0, 30, tzinfo=UTC)  # Paris: 01:30 +01:00, then 03:30 +02:00
        text = render_lines(lines(2, start=dst, step=timedelta(hours=1)), "Europe/Paris")
        assert text.split("\n") == ["2025-03-30 (Sun) +01:00", "[1] 01:30 Ana: line 0",
                                    "2025-03-30 (Sun) +02:00", "[2] 03:30 Ana: line 1"]

    @pytest.mark.parametrize("positions, span", [([1, 2, 3, 7, 9, 10], "1-3,7,9-10"), ([4], "4"), ([], "")])
    def test_line_spans_round_trip(self, positions: list[int], span: str) -> None:
        """A window's lines are written as ranges and read back to the same positions."""
        assert line_span(positions) == span and parse_span(span) == positions


class TestWhatComesBack:
    def reply(self, **facts_tasks: Any) -> schemas.BatchReply:
        return schemas.BatchReply.model_validate({
            "facts": [{"text": "Ana lives in Lisbon", "importance": 6, "op": "UPDATE", "target_id": "F2",
                       "source_ids": ["2", "[3]", "2"]}],
            "contacts": [{"name": "Ana", "source_ids": ["1", "L3"]}],
            "tasks": [{"op": "done", "title": "Send the report", "task_id": "T1", "source_ids": ["3"]}],
            **facts_tasks,
        })

    def test_references_resolve_to_the_stored_ids(self) -> None:
        """Line numbers (bare, bracketed or L-prefixed), F and T refs map to the request's ids, duplicates once."""
        out = resolve(batch_request(), self.reply())
        m = [line.id for line in batch_request().messages]
        assert out.facts[0].source_ids == [m[1], m[2]] and out.facts[0].target_id == "f_high"
        assert out.contacts[0].source_ids == [m[0], m[2]]
        assert out.tasks[0].task_id == "t_abc" and out.tasks[0].source_ids == [m[2]]

    def test_a_window_cited_by_its_short_ref_comes_back_under_its_ref(self) -> None:
        """A summary answered as S1 is the first listed window's (count/1/4-4); an unknown S9 is kept."""
        window = schemas.SummarizeRequest(scope="s", ladder="count", rung="1", window_label="interactions 4-4",
                                  inputs=[], budget_tokens=100, ref="count/1/4-4")
        reply = self.reply(summaries=[{"ref": "S1", "text": "a"}, {"ref": "S9", "text": "b"}])
        out = resolve(batch_request(summaries=[window]), reply)
        assert [(s.ref, s.text) for s in out.summaries] == [("count/1/4-4", "a"), ("S9", "b")]

    def test_an_unknown_reference_is_kept_as_written(self) -> None:
        """A ref naming nothing (line 99, F7) stays as it is: the steps ignore ids outside their batch."""
        reply = self.reply(facts=[{"text": "x", "importance": 1, "op": "NOOP", "target_id": "F7", "source_ids": ["99"]}])
        out = resolve(batch_request(), reply)
        assert out.facts[0].target_id == "F7" and out.facts[0].source_ids == ["99"]

    def test_the_backend_hands_the_steps_stored_ids(self, fake: FakeAnthropic) -> None:
        """Through the real SDK: the model cites refs, and the reply the port returns carries stored ids."""
        fake.responder = lambda tool, body: self.reply().model_dump(mode="json")
        out = model_for(fake).consolidate_batch(batch_request())
        assert out.facts[0].target_id == "f_high" and out.tasks[0].task_id == "t_abc"
        assert all(s.startswith(LONG) for c in out.contacts for s in c.source_ids)
