"""model.batch_api: the daemon's model work as Message Batches through the real SDK and the fake."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from consolidator.model.offline import OfflineModel
from consolidator.messages.ingest import validate
from consolidator.core.app import App, open_app
from consolidator.core.config import Settings
from consolidator.runtime.wiring import build_consolidator
from stores.schema.model import BatchRequest, MessageBatch
from stores.engine import reading
from stores.messages import append_messages
from stores.model_calls import totals
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder
from tests.support.drain_kit import END, KEY, START, app_on_fake_anthropic, assert_ledger_matches_server, outcome, records, settings_for

# Ticks two minutes apart (the poll interval is one): each round trip through a batch takes a tick or two.
SCHEDULE = [END + timedelta(days=1, minutes=2 * k) for k in range(40)] + [
    END + timedelta(days=4, minutes=2 * k) for k in range(40)]


def batch_settings(state_dir: Path, url: str) -> Settings:
    settings = settings_for(state_dir, url)
    model = settings.model.model_copy(update={"batch_api": True, "batch_poll": timedelta(minutes=1),
                                              "timeout_s": 10.0, "max_call_s": 30.0})
    return settings.model_copy(update={"model": model})


@pytest.fixture(scope="module")
def direct_outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same history drained by direct calls answered alike (OfflineModel is what the responder answers)."""
    app = open_app(settings_for(tmp_path_factory.mktemp("direct")))
    try:
        consolidator = build_consolidator(app, model=OfflineModel())
        append_messages(app.engine, [validate(r, now=lambda: START) for r in records()], START)
        for now in SCHEDULE:
            consolidator.drain(now)
        return outcome(app)
    finally:
        app.close()


@pytest.fixture
def batch_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[App, FakeAnthropic]]:
    with app_on_fake_anthropic(tmp_path / "state", monkeypatch, batch_settings) as made:
        yield made


def batch_drain(app: App) -> dict[str, Any]:
    consolidator = build_consolidator(app)
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records()], START)
    try:
        for now in SCHEDULE:
            consolidator.drain(now)
    finally:
        consolidator.steps[0].model.close()
    return outcome(app)


@pytest.mark.slow
def test_batch_drain_equals_direct_calls_and_every_call_went_by_batch(
    batch_app: tuple[App, FakeAnthropic], direct_outcome: dict[str, Any]
) -> None:
    """Summaries, facts, contacts, tasks and step runs equal a direct drain; no direct call; ledger = server at half price."""
    app, fake = batch_app
    result = batch_drain(app)
    assert result == direct_outcome
    assert set(result["runs"]) == {"done"}
    assert fake.counters.received == 0 and fake.counters.answered > 0  # no POST /v1/messages: all by batch
    assert len(fake.batches.submitted) == len(set(fake.batches.submitted))  # nothing submitted twice
    assert_ledger_matches_server(app, fake)
    with reading(app.engine) as session:
        t = totals(session)
        states = {r.state for r in session.execute(select(BatchRequest)).scalars()}
        batch_states = {b.state for b in session.execute(select(MessageBatch)).scalars()}
    c = fake.counters
    full_price = (c.input_tokens * 1.0 + c.output_tokens * 5.0 + c.cache_read_tokens * 0.1
                  + c.cache_write_tokens * 1.25) / 1e6
    assert t.cost_usd == pytest.approx(full_price / 2)
    assert states == {"answered"} and batch_states == {"ended"}


@pytest.mark.slow
def test_a_fifth_of_requests_errored_or_expired_still_ends_consolidated(
    batch_app: tuple[App, FakeAnthropic], direct_outcome: dict[str, Any]
) -> None:
    """A fifth of the first submissions error or expire, and some batches end late: every window and step ends
    consolidated, each failed request resubmitted alone, no request submitted twice in one batch."""
    app, fake = batch_app
    tries: dict[str, int] = {}

    def outcome_of(custom_id: str, params: dict[str, Any]) -> str | None:
        tries[custom_id] = tries.get(custom_id, 0) + 1
        chooser = random.Random(custom_id)
        if tries[custom_id] == 1 and chooser.random() < 0.2:
            return "errored" if chooser.random() < 0.5 else "expired"
        return None

    fake.batches.outcome = outcome_of
    fake.batches.polls_to_end = 1  # every batch is still in progress at its first poll
    result = batch_drain(app)
    failed_once = [cid for cid, n in tries.items() if n > 1]
    assert failed_once, "the fault injection chose no request"
    assert result == direct_outcome
    assert set(result["runs"]) == {"done"}
    assert_ledger_matches_server(app, fake)
    with reading(app.engine) as session:
        rows = {r.custom_id: r for r in session.execute(select(BatchRequest)).scalars()}
    assert all(rows[cid].alone and rows[cid].tries == 2 for cid in failed_once)
    assert {r.state for r in rows.values()} == {"answered"}


@pytest.mark.slow
def test_status_shows_pending_batches_their_age_and_request_counts(
    batch_app: tuple[App, FakeAnthropic], run_cli: Any
) -> None:
    """While a batch has not ended, status --json lists it (id, requests, age) and the text status says so."""
    import json

    app, fake = batch_app
    fake.batches.polls_to_end = 10**6  # never ends during this test
    consolidator = build_consolidator(app)
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records()], START)
    consolidator.drain(SCHEDULE[0])
    consolidator.steps[0].model.close()
    model = json.loads(run_cli("status", "--json").output)["model"]
    pending = model["batches"]["pending"]
    assert [(p["id"], p["state"], p["requests"]) for p in pending] == [
        ("msgbatch_fake_1", "in_progress", len(fake.batches.submitted))]
    assert 0 <= pending[0]["age_s"] < 600 and model["batches"]["queued_requests"] == 0
    assert "batches: 1 pending (msgbatch_fake_1" in run_cli("status").output


def test_work_unanswered_after_batch_max_wait_falls_back_to_a_direct_call(tmp_path: Path) -> None:
    """Past batch_max_wait the same request is answered by a direct call; its batch is canceled, and the
    canceled request is neither billed nor applied; the ledger equals the server."""
    from datetime import UTC, datetime

    from consolidator.model.anthropic_backend import AnthropicModel
    from consolidator.model.base import BatchPending
    from consolidator.batches.courier import BatchCourier
    from consolidator.batches.book import BatchBook
    from consolidator.model.schemas import SummarizeRequest, SummaryInput
    from consolidator.model.settings import ModelSettings
    from stores.model_calls import DbRecorder

    clock = [datetime(2026, 1, 5, 9, 0, tzinfo=UTC)]
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        app = open_app(Settings(state_dir=tmp_path / "state"))
        settings = ModelSettings(base_url=fake.url, batch_api=True, batch_max_wait=timedelta(hours=1))
        book = BatchBook(app.engine, settings, now=lambda: clock[0])
        fake.batches.polls_to_end = 10**6
        with AnthropicModel(settings, DbRecorder(app.engine), api_key=KEY, batch_book=book) as model:
            courier = BatchCourier(app.engine, settings, model.batches, now=lambda: clock[0])
            request = SummarizeRequest(scope="maya", ladder="time", rung="day", window_label="2025-03-02",
                                       budget_tokens=50, inputs=[SummaryInput(id="m1", label="", text="I met Ana.")])
            with pytest.raises(BatchPending):
                model.summarize(request)
            assert courier.run() == 1 and fake.batches.created == 1
            clock[0] += timedelta(minutes=30)
            with pytest.raises(BatchPending):  # still waiting, not yet past batch_max_wait
                model.summarize(request)
            clock[0] += timedelta(hours=1)
            reply = model.summarize(request)
            assert reply.text and fake.counters.received == 1
            courier.run()  # cancels the overdue batch
            courier.run()  # and stores its (canceled) results
        with reading(app.engine) as session:
            t = totals(session)
            rows = list(session.execute(select(BatchRequest)).scalars())
            batch_states = [b.state for b in session.execute(select(MessageBatch)).scalars()]
        assert [r.state for r in rows] == ["direct"] and batch_states == ["ended"] and fake.batches.created == 1
        c = fake.counters
        assert (t.calls, t.input_tokens, t.output_tokens) == (c.answered, c.input_tokens, c.output_tokens) == (
            1, c.input_tokens, c.output_tokens)
        app.close()
