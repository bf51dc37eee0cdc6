"""AnthropicModel: the real anthropic SDK against a local fake of the Messages API."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import pytest
from tests.support.fake_anthropic import FakeAnthropic, Fault, schema_responder
from pydantic import ValidationError
from structlog.testing import capture_logs

from consolidator.model.anthropic_backend import (
    AnthropicModel,
    InvalidReplyError,
    RejectedRequestError,
    TransientModelError,
)
from consolidator.model.base import Model, ModelError
from consolidator.model.prompts import without_titles
from consolidator.model.recording import MemoryRecorder
from consolidator.model.schemas import (
    BatchReply,
    ClusterReply,
    ContactsReply,
    FactExtractionReply,
    SummaryReply,
    TasksReply,
    SplitTableReply,
)
from consolidator.model.settings import ModelSettings, resolve_provider
from tests.support.anthropic_kit import KEY, REPLIES, REQUESTS, call, fake, make_model, recorder  # noqa: F401  (fixtures)

EXPECTED: dict[str, tuple[type, str]] = {
    "summarize": (SummaryReply, "SummaryReply"),
    "extract_facts": (FactExtractionReply, "FactExtractionReply"),
    "judge_cluster": (ClusterReply, "ClusterReply"),
    "update_contacts": (ContactsReply, "ContactsReply"),
    "update_tasks": (TasksReply, "TasksReply"),
    "consolidate_batch": (BatchReply, "BatchReply"),
    "split_table": (SplitTableReply, "SplitTableReply"),
}


# --- replies -------------------------------------------------------------------------------


class TestReplies:
    def test_is_a_model(self, make_model: Callable[..., AnthropicModel]) -> None:
        """AnthropicModel satisfies the Model protocol."""
        model = make_model()
        assert isinstance(model, Model) and model.name == "anthropic"

    @pytest.mark.parametrize("operation", list(REQUESTS))
    def test_each_operation_returns_the_validated_reply(
        self, operation: str, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """Every operation returns its reply model, built from the forced tool's input."""
        reply_cls, title = EXPECTED[operation]
        reply = call(make_model(), operation)
        assert isinstance(reply, reply_cls)
        assert reply == reply_cls.model_validate(REPLIES[title])
        [rec] = recorder.records
        assert (rec.operation, rec.outcome, rec.scope, rec.ref) == (
            operation, "ok", REQUESTS[operation].scope, REQUESTS[operation].ref,
        )

    def test_default_responder_gives_minimal_valid_replies(self, fake: FakeAnthropic,
                                                           make_model: Callable[..., AnthropicModel]) -> None:
        """The fake's schema-driven default responder is valid for every operation."""
        fake.responder = schema_responder
        model = make_model()
        for operation, (reply_cls, _) in EXPECTED.items():
            assert isinstance(call(model, operation), reply_cls)


class TestRequestShape:
    def test_forced_tool_with_the_reply_schema(self, fake: FakeAnthropic,
                                               make_model: Callable[..., AnthropicModel]) -> None:
        """The request forces one tool whose input schema is the reply model's JSON schema (less pydantic's titles)."""
        call(make_model(), "extract_facts")
        [body] = fake.bodies
        [tool] = body["tools"]
        assert body["tool_choice"] == {"type": "tool", "name": tool["name"]}
        assert tool["input_schema"] == without_titles(FactExtractionReply.model_json_schema())
        assert "temperature" not in body

    def test_stable_prefix_is_marked_for_prompt_caching(self, fake: FakeAnthropic,
                                                         make_model: Callable[..., AnthropicModel]) -> None:
        """The system block carries cache_control ephemeral; the batch goes in the user message."""
        call(make_model(), "extract_facts")
        [body] = fake.bodies
        [system] = body["system"]
        assert system["cache_control"] == {"type": "ephemeral"}
        assert "tool or action output" in system["text"]
        [user] = body["messages"]
        assert "[1] 09:30 Alice: " in user["content"] and "Alice lives in Paris" in user["content"]
        assert "[f1]" not in system["text"] and "Lyon" not in system["text"]

    def test_one_batch_call_carries_the_three_contexts_once(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """consolidate_batch: one request, tool record_batch, known facts, contacts, open tasks and the lines once."""
        reply = call(make_model(), "consolidate_batch")
        [body] = fake.bodies
        [tool] = body["tools"]
        assert tool["name"] == body["tool_choice"]["name"] == "record_batch"
        assert tool["input_schema"] == without_titles(BatchReply.model_json_schema())
        assert body["max_tokens"] == 4096
        [user] = body["messages"]
        headers = [h for h in user["content"].split("\n") if h.endswith(":")]
        assert headers == ["known facts:", "known contacts:", "open tasks:", "messages:"]
        assert user["content"].count("[1] ") == 1 and "Book flights" in user["content"]
        system = body["system"][0]["text"]
        for rule in ("tool or action output", "supersedes", "new or changed details only", "done or cancelled",
                     "rescheduled, with its new due date"):
            assert rule in system
        assert [r.operation for r in recorder.records] == ["consolidate_batch"]
        assert (len(reply.facts), len(reply.contacts), len(reply.tasks)) == (2, 1, 1)

    def test_second_call_reads_the_cache(self, make_model: Callable[..., AnthropicModel],
                                         recorder: MemoryRecorder) -> None:
        """The same operation twice: the first writes the prompt cache, the second reads it."""
        model = make_model()
        call(model, "summarize")
        call(model, "summarize")
        first, second = recorder.records
        assert first.cache_write_tokens > 0 and first.cache_read_tokens == 0
        assert second.cache_read_tokens == first.cache_write_tokens and second.cache_write_tokens == 0

    def test_model_and_max_tokens_come_from_settings(self, fake: FakeAnthropic,
                                                     make_model: Callable[..., AnthropicModel]) -> None:
        """A per-operation model override and max_tokens reach the request; auth headers are sent."""
        model = make_model(models={"judge_cluster": "claude-test-large"}, max_tokens={"judge_cluster": 300})
        call(model, "judge_cluster")
        call(model, "update_tasks")
        judge, tasks = fake.bodies
        assert (judge["model"], judge["max_tokens"]) == ("claude-test-large", 300)
        assert (tasks["model"], tasks["max_tokens"]) == ("claude-haiku-4-5", 1024)
        assert all(h.get("anthropic-version") for h in fake.headers)

    def test_summary_max_tokens_leave_room_for_the_budget(self, fake: FakeAnthropic,
                                                          make_model: Callable[..., AnthropicModel]) -> None:
        """A summary budget above the configured max_tokens raises max_tokens to twice the budget."""
        request = REQUESTS["summarize"].model_copy(update={"budget_tokens": 3000})
        make_model().summarize(request)
        assert fake.bodies[0]["max_tokens"] == 6000


# --- invalid replies -----------------------------------------------------------------------


class TestInvalidReplies:
    def test_malformed_then_good_succeeds_with_two_answered_calls(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A reply that fails validation is shown its error once; the corrected reply is returned."""
        fake.plan(Fault("malformed"), None)
        reply = call(make_model(), "judge_cluster")
        assert reply == ClusterReply.model_validate(REPLIES["ClusterReply"])
        assert [r.outcome for r in recorder.records] == ["invalid", "ok"]
        assert recorder.calls == fake.counters.answered == 2
        repair = fake.bodies[1]["messages"]
        assert [turn["role"] for turn in repair] == ["user", "assistant", "user"]
        [result] = repair[2]["content"]
        assert result["type"] == "tool_result" and result["is_error"] is True
        assert result["tool_use_id"] == repair[1]["content"][0]["id"]
        assert "merge" in result["content"] and "valid boolean" in result["content"]

    def test_two_malformed_replies_raise_and_return_nothing(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """Two invalid replies raise InvalidReplyError (a ModelError), not a transient error."""
        fake.plan(Fault("malformed"), Fault("malformed"))
        with pytest.raises(InvalidReplyError) as caught:
            call(make_model(), "extract_facts")
        assert isinstance(caught.value, ModelError) and not isinstance(caught.value, TransientModelError)
        assert [r.outcome for r in recorder.records] == ["invalid", "invalid"]
        assert fake.counters.received == 2

    def test_max_tokens_stop_is_retried_once(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A reply cut off at max_tokens counts as invalid and is asked again, once."""
        fake.plan(Fault("max_tokens"), None)
        reply = call(make_model(), "summarize")
        assert reply.text == REPLIES["SummaryReply"]["text"]
        assert [r.outcome for r in recorder.records] == ["invalid", "ok"]
        assert recorder.records[0].output_tokens == fake.bodies[0]["max_tokens"]
        assert "max_tokens" in fake.bodies[1]["messages"][2]["content"][0]["content"]


# --- transport failures and the time bound -----------------------------------------------


class TestRetriesAndDeadline:
    @pytest.mark.slow
    def test_429_with_retry_after_is_retried_by_the_sdk(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A 429 with retry-after: 1 is waited out by the SDK; one answered call is recorded."""
        fake.plan(Fault.rate_limit(retry_after=1), None)
        started = time.monotonic()
        assert isinstance(call(make_model(), "update_tasks"), TasksReply)
        assert time.monotonic() - started >= 0.9
        assert (fake.counters.received, fake.counters.answered) == (2, 1)
        assert [r.outcome for r in recorder.records] == ["ok"]

    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["server_error", "overloaded"])
    def test_500_and_529_are_retried_by_the_sdk(
        self, kind: str, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """500 and 529 without retry-after are retried after the SDK's backoff."""
        fake.plan(Fault(kind), None)
        assert isinstance(call(make_model(), "summarize"), SummaryReply)
        assert (fake.counters.received, fake.counters.answered) == (2, 1)
        assert recorder.calls == 1

    def test_retry_after_beyond_the_deadline_fails_fast(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A retry-after longer than the time left is not waited for: TransientModelError at once."""
        fake.plan(Fault.rate_limit(retry_after=30))
        started = time.monotonic()
        with pytest.raises(TransientModelError) as caught:
            call(make_model(max_call_s=2), "summarize")
        assert time.monotonic() - started < 0.5
        assert caught.value.status == 429 and "max_call_s=2" in str(caught.value)
        assert fake.counters.received == 1
        [rec] = recorder.records
        assert (rec.outcome, rec.input_tokens, rec.output_tokens, rec.cost_usd) == ("error", 0, 0, 0.0)

    def test_retries_exhausted_is_transient(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel]
    ) -> None:
        """With the SDK's retries spent, a 429 surfaces as TransientModelError with its status."""
        fake.plan(Fault.rate_limit(retry_after=1))
        with pytest.raises(TransientModelError) as caught:
            call(make_model(max_retries=0), "summarize")
        assert (caught.value.status, caught.value.error_type) == (429, "rate_limit_error")
        assert caught.value.request_id == "req_fake_1"

    @pytest.mark.slow
    def test_timeouts_end_within_max_call_s(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """Attempts that time out end the call as TransientModelError within max_call_s."""
        fake.plan(*[Fault.timeout(3)] * 3)
        started = time.monotonic()
        with pytest.raises(TransientModelError):
            call(make_model(timeout_s=0.5, max_call_s=1.5), "judge_cluster")
        elapsed = time.monotonic() - started
        assert 0.9 < elapsed < 1.5 + 0.2
        assert fake.counters.received == 2 and fake.counters.answered == 0
        assert [r.outcome for r in recorder.records] == ["error"]

    @pytest.mark.slow
    def test_a_timeout_then_success_within_budget(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A timed-out attempt is retried by the SDK when the budget allows."""
        fake.plan(Fault.timeout(3), None)
        assert isinstance(call(make_model(timeout_s=0.5, max_call_s=3), "judge_cluster"), ClusterReply)
        assert [r.outcome for r in recorder.records] == ["ok"]

    def test_bad_request_is_rejected_without_retry(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """A 400 is a RejectedRequestError (not transient) and is not retried."""
        fake.plan(Fault("bad_request", message="prompt is too long"))
        with pytest.raises(RejectedRequestError) as caught:
            call(make_model(), "update_contacts")
        assert caught.value.status == 400 and "prompt is too long" in str(caught.value)
        assert fake.counters.received == 1
        assert [r.outcome for r in recorder.records] == ["error"]


# --- accounting and secrecy ------------------------------------------------------------------


class TestLedger:
    def test_recorded_calls_and_tokens_equal_the_servers_count(
        self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel], recorder: MemoryRecorder
    ) -> None:
        """Over a mix of outcomes, answered records and their tokens match the server's counters."""
        model = make_model()
        fake.plan(None, Fault("malformed"), None, Fault("max_tokens"), None,
                  Fault.rate_limit(retry_after=0.1), None, None, None, None, Fault("bad_request"))
        for operation in REQUESTS:
            call(model, operation)
        with pytest.raises(RejectedRequestError):
            call(model, "summarize")
        c = fake.counters
        assert (c.received, c.answered, recorder.calls) == (11, 9, 9)
        assert [r.outcome for r in recorder.records].count("error") == 1
        assert recorder.input_tokens == c.input_tokens and recorder.output_tokens == c.output_tokens
        assert sum(r.cache_read_tokens for r in recorder.records) == c.cache_read_tokens
        assert sum(r.cache_write_tokens for r in recorder.records) == c.cache_write_tokens

    def test_cost_uses_the_configured_prices(self, make_model: Callable[..., AnthropicModel],
                                             recorder: MemoryRecorder) -> None:
        """cost_usd = tokens x the model's per-million prices (cache reads and writes included)."""
        call(make_model(), "summarize")
        [rec] = recorder.records
        expected = (rec.input_tokens * 1.0 + rec.output_tokens * 5.0 + rec.cache_read_tokens * 0.10
                    + rec.cache_write_tokens * 1.25) / 1_000_000
        assert rec.cost_usd == pytest.approx(expected) and rec.cost_usd > 0
        assert rec.model == "claude-haiku-4-5" and rec.latency_s > 0 and rec.at.tzinfo is not None


class TestSecrecy:
    @pytest.mark.slow
    def test_api_key_never_leaks(self, fake: FakeAnthropic, make_model: Callable[..., AnthropicModel],
                                 recorder: MemoryRecorder, caplog: pytest.LogCaptureFixture) -> None:
        """The key appears in no record, exception (with its chain) or structlog/SDK log line."""
        model = make_model(max_retries=0, timeout_s=0.3, max_call_s=1)
        fake.plan(Fault("malformed"), Fault("malformed"), Fault.rate_limit(retry_after=1), Fault("overloaded"),
                  Fault("bad_request", message=f"echoed credential {KEY}"), Fault.timeout(1), None)
        errors: list[BaseException] = []
        caplog.set_level(logging.DEBUG)
        with capture_logs() as logs:
            for _ in range(6):
                try:
                    call(model, "extract_facts")
                except ModelError as err:
                    errors.append(err)
            call(model, "extract_facts")
        assert len(errors) == 5
        assert fake.headers[0]["authorization"] == f"Bearer {KEY}"  # the key did reach the server
        chains = [e for err in errors for e in (err, err.__cause__, err.__context__) if e is not None]
        for text in [*map(str, chains), *map(repr, chains), repr(recorder.records), repr(logs), caplog.text,
                     repr(model)]:
            assert KEY not in text
        assert any(e.get("event") == "model.call_failed" for e in logs)

    def test_missing_key_is_refused_up_front(self, monkeypatch: pytest.MonkeyPatch, recorder: MemoryRecorder) -> None:
        """Without ANTHROPIC_API_KEY (or an explicit key) the backend is not built."""
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
            AnthropicModel(ModelSettings(), recorder)


# --- settings --------------------------------------------------------------------------------


class TestSettings:
    @pytest.mark.parametrize(
        ("provider", "env", "expected"),
        [
            ("auto", {}, "offline"),
            ("auto", {"ANTHROPIC_API_KEY": ""}, "offline"),
            ("auto", {"ANTHROPIC_API_KEY": "  "}, "offline"),
            ("auto", {"ANTHROPIC_API_KEY": "sk-x"}, "anthropic"),
            ("offline", {"ANTHROPIC_API_KEY": "sk-x"}, "offline"),
            ("anthropic", {}, "anthropic"),
        ],
    )
    def test_resolve_provider(self, provider: str, env: dict[str, str], expected: str) -> None:
        """auto picks anthropic iff a non-empty ANTHROPIC_API_KEY is set; explicit choices stand."""
        assert resolve_provider(ModelSettings(provider=provider), env) == expected

    def test_unknown_operation_and_keys_are_rejected(self) -> None:
        """Overrides for unknown operations and unknown keys fail validation."""
        with pytest.raises(ValidationError):
            ModelSettings(models={"summarise": "claude-x"})
        with pytest.raises(ValidationError):
            ModelSettings(max_tokens={"nope": 10})
        with pytest.raises(ValidationError):
            ModelSettings(temperature=0.2)

    def test_partial_tables_extend_the_defaults(self) -> None:
        """A partial max_tokens or prices table keeps the defaults for what it leaves out."""
        s = ModelSettings(max_tokens={"summarize": 4000}, prices={"claude-x": {
            "input_per_mtok": 3, "output_per_mtok": 15, "cache_read_per_mtok": 0.3, "cache_write_per_mtok": 3.75}})
        assert s.max_tokens_for("summarize") == 4000 and s.max_tokens_for("judge_cluster") == 512
        assert {"claude-haiku-4-5", "claude-x"} <= s.prices.keys()

    def test_usd_budget_needs_prices_for_every_model_used(self) -> None:
        """daily_budget_usd with an unpriced model in use is a configuration error."""
        with pytest.raises(ValidationError, match="claude-unpriced"):
            ModelSettings(daily_budget_usd=1.0, models={"summarize": "claude-unpriced"})
        assert ModelSettings(daily_budget_usd=1.0).daily_budget_usd == 1.0
