"""The daily model budget: tiers deferred in priority order, resumed the next UTC day."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import structlog
from click.testing import Result
from freezegun import freeze_time
from sqlalchemy import select
from structlog.testing import capture_logs

from consolidator.core.app import App, open_app
from consolidator.cost.budget import BudgetedModel, BudgetGate, Tier, budgeted
from consolidator.core.config import RetrySettings, load_settings
from consolidator.messages.ingest import validate
from consolidator.model.base import BatchModel, BudgetExceeded
from consolidator.model.offline import OfflineModel
from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.recording import CallRecord, MemoryRecorder
from consolidator.model.schemas import BatchRequest, ClusterRequest, Line, SummarizeRequest, SummaryInput
from consolidator.model.settings import ModelSettings
from consolidator.pipeline.runner import DEFERRED, StepRunner
from consolidator.pipeline.batching import cut_batches, ensure_step_runs
from consolidator.messages.sample import generate
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.schema.ledger import StepRun
from stores.messages import NewMessage, append_messages
from stores.model_calls import DbRecorder, totals, utc_day
from stores.schema.model import ModelCall
from stores.schema.ladders import Summary
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fakes import CountingModel
from tests.support.model_responder import OfflineResponder

UTC = timezone.utc
KEY = "sk-ant-budget-test-0000"
START = datetime(2025, 1, 6, tzinfo=UTC)
B = 10_000_000  # daily token budget
T1 = datetime(2025, 1, 26, 10, 0, tzinfo=UTC)  # history ended 2025-01-25 09:24
T2 = datetime(2025, 1, 26, 20, 0, tzinfo=UTC)  # maya idle for 30 h: her offline pass is due
T2B = datetime(2025, 1, 26, 21, 0, tzinfo=UTC)
T3 = datetime(2025, 1, 27, 0, 30, tzinfo=UTC)  # the next UTC day


def spend(app: App, tokens: int, at: datetime) -> None:
    """Spend recorded earlier today by other work (another scope's calls, say)."""
    DbRecorder(app.engine).record(CallRecord(
        operation="extract_facts", scope="elsewhere", ref="", model="claude-haiku-4-5", input_tokens=tokens,
        output_tokens=0, cache_read_tokens=0, cache_write_tokens=0, latency_s=0.1, outcome="ok", cost_usd=0.0, at=at,
    ))


def top_up(app: App, fraction: float, at: datetime) -> None:
    with reading(app.engine) as session:
        spent = totals(session, *utc_day(at)).tokens
    spend(app, max(0, int(fraction * B) - spent), at)


@pytest.fixture
def budget_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               run_cli: Callable[..., Result]) -> Iterator[tuple[App, Callable[[], dict[str, Any]]]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        config = tmp_path / "config.toml"
        config.write_text(
            f'state_dir = "{tmp_path / "state"}"\nbatch_size = 25\n'
            '[ladders]\nbudget_tokens = 64\n'
            '[facts]\nsleep_idle = "30h"\nsleep_importance = 100000\nmerge_threshold = 0.6\n'
            f'[model]\nprovider = "anthropic"\nbase_url = "{fake.url}"\ndaily_budget_tokens = {B}\n'
            'timeout_s = 5\nmax_call_s = 10\n'
        )
        app = open_app(load_settings(config, env={}))
        warm_sdk(fake.url)

        def status() -> dict[str, Any]:
            result = run_cli("--config", str(config), "status", "--json")
            structlog.reset_defaults()  # the CLI's level filter would hide info events from capture_logs
            assert result.exit_code == 0, result.output
            return json.loads(result.output)

        try:
            yield app, status
        finally:
            app.close()


def warm_sdk(url: str) -> None:
    """One call before any freeze_time: the SDK builds its reply models' pydantic schemas lazily,
    and under freezegun that fails (datetime is swapped for FakeDatetime)."""
    with AnthropicModel(ModelSettings(base_url=url), MemoryRecorder(), api_key=KEY) as model:
        model.judge_cluster(ClusterRequest(scope="warm-up", facts=[]))


def rows(app: App, model: type, *where) -> list[Any]:
    with reading(app.engine) as session:
        return list(session.execute(select(model).where(*where)).scalars())


def log_other(app: App, at: datetime, n: int) -> None:
    append_messages(app.engine, [NewMessage("other", at, "user", f"I adopted a cat named Miso{n}.", "Ola")], at)


@pytest.mark.slow
def test_budget_defers_higher_rungs_then_the_offline_pass_and_resumes_next_day(
    budget_env: tuple[App, Callable[[], dict[str, Any]]],
) -> None:
    """At 0.8 B higher rungs wait, at 0.9 B the offline pass, at B the batches; the next UTC day all is written."""
    app, status = budget_env
    records = list(generate(scope="maya", start=START, days=20, seed=4, rate=2.0))
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records], START)
    with freeze_time(T1):
        consolidator = build_consolidator(app)
        spend(app, int(0.85 * B), T1 - timedelta(hours=2))
        with capture_logs() as logs:
            consolidator.drain(T1)
        deferred = {(e["ladder"], e["rung"], e["window"]) for e in logs if e["event"] == "ladder.deferred"}
        assert deferred and {rung for _, rung, _ in deferred} <= {"week", "4w", "10", "40"}
        assert {r.status for r in rows(app, StepRun)} == {"done"}  # batch work goes on under B
        calls = rows(app, ModelCall, ModelCall.operation == "summarize")
        assert calls and {c.ref.split("/")[1] for c in calls} == {"day", "1"}  # base windows still summarised
        assert status()["model"]["budget"]["deferred"] == ["ladder_higher"]

    with freeze_time(T2):
        top_up(app, 0.95, T2)
        log_other(app, T2 - timedelta(hours=1), 1)
        with capture_logs() as logs:
            consolidator.drain(T2)
        assert any(e["event"] == "sleep.deferred" and e["scope"] == "maya" for e in logs)
        assert not rows(app, ModelCall, ModelCall.operation == "judge_cluster")
        assert {r.status for r in rows(app, StepRun, StepRun.scope == "other")} == {"done"}
        report = status()["model"]
        assert report["budget"]["deferred"] == ["ladder_higher", "sleep"]
        assert report["budget"]["spent_tokens"] >= 0.95 * B and report["budget"]["day"] == "2025-01-26"

    with freeze_time(T2B):
        top_up(app, 1.0, T2B)
        log_other(app, T2B - timedelta(minutes=31), 2)
        consolidator.drain(T2B)
        waiting = rows(app, StepRun, StepRun.scope == "other", StepRun.status != "done")
        assert waiting and all(
            (r.status, r.attempts, r.last_error, r.next_at) == ("retrying", 0, DEFERRED, datetime(2025, 1, 27, tzinfo=UTC))
            for r in waiting
        )
        assert status()["model"]["budget"]["deferred"] == ["ladder_higher", "sleep", "ladder_base", "batch"]

    with freeze_time(T3):
        consolidator.drain(T3)
        written = {(s.ladder, s.rung, s.key): s.kind for s in rows(app, Summary)}
        assert all(written.get(window) == "summarized" for window in deferred)
        assert {(r.status, r.attempts) for r in rows(app, StepRun, StepRun.scope == "other")} == {("done", 1)}
        judged = rows(app, ModelCall, ModelCall.operation == "judge_cluster")
        assert judged and all(c.at >= datetime(2025, 1, 27, tzinfo=UTC) for c in judged)
        report = status()["model"]
        assert report["budget"]["deferred"] == [] and report["budget"]["day"] == "2025-01-27"
    consolidator.steps[0].model.close()


# --- the pieces -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spent", "closed"),
    [
        (0.0, []),
        (0.79, []),
        (0.8, ["ladder_higher"]),
        (0.9, ["ladder_higher", "sleep"]),
        (0.99, ["ladder_higher", "sleep"]),
        (1.0, ["ladder_higher", "sleep", "ladder_base", "batch"]),
    ],
)
def test_tiers_close_at_their_share_of_the_budget(app: App, spent: float, closed: list[str]) -> None:
    """ladder_higher closes at 0.8 B, sleep at 0.9 B, base ladders and batches at B."""
    now = datetime(2025, 3, 1, 12, tzinfo=UTC)
    spend(app, int(spent * 1000), now - timedelta(hours=1))
    spend(app, 5000, now - timedelta(days=1))  # yesterday does not count
    gate = BudgetGate(app.engine, ModelSettings(daily_budget_tokens=1000), clock=lambda: now)
    gate.refresh(now)
    assert gate.closed() == closed


def test_usd_budget_and_spend_kept_current_between_refreshes(app: App) -> None:
    """A USD budget reads cost; calls recorded through the gate count before the next refresh."""
    now = datetime(2025, 3, 1, 12, tzinfo=UTC)
    gate = BudgetGate(app.engine, ModelSettings(daily_budget_usd=1.0), clock=lambda: now)
    gate.refresh(now)
    assert gate.closed() == []
    gate.record(CallRecord("summarize", "s", "", "m", 10, 10, 0, 0, 0.1, "ok", 0.85, now))
    assert gate.closed() == ["ladder_higher"]
    assert gate.refresh(now).usd == 0.0  # the ledger is the truth at each tick


def test_budgeted_model_maps_requests_to_tiers(app: App) -> None:
    """A base-rung summary is ladder_base, any other rung ladder_higher; BudgetExceeded carries the reopening."""
    now = datetime(2025, 3, 1, 12, tzinfo=UTC)
    spend(app, 850, now)
    gate = BudgetGate(app.engine, ModelSettings(daily_budget_tokens=1000), clock=lambda: now)
    gate.refresh(now)
    model = BudgetedModel(OfflineModel(), gate, {"time": "day", "count": "1"})
    assert model.name == "offline"

    def request(ladder: str, rung: str) -> SummarizeRequest:
        return SummarizeRequest(scope="s", ladder=ladder, rung=rung, window_label="w", budget_tokens=50,
                                inputs=[SummaryInput(id="a", label="", text="Maya moved to Paris.")])

    assert model.summarize(request("time", "day")).text and model.summarize(request("count", "1")).text
    for ladder, rung in [("time", "week"), ("count", "10")]:
        with pytest.raises(BudgetExceeded) as caught:
            model.summarize(request(ladder, rung))
        assert caught.value.tier == Tier.LADDER_HIGHER.value
        assert caught.value.reopens_at == datetime(2025, 3, 2, tzinfo=UTC)


def test_the_batch_call_is_batch_tier_and_forwarded_only_when_the_model_has_it(app: App) -> None:
    """budgeted(): consolidate_batch is batch-tier work (closed at the whole budget), present iff inner has it."""
    now = datetime(2025, 3, 1, 12, tzinfo=UTC)
    spend(app, 950, now)
    gate = BudgetGate(app.engine, ModelSettings(daily_budget_tokens=1000), clock=lambda: now)
    gate.refresh(now)
    rungs = {"time": "day", "count": "1"}
    model = budgeted(OfflineModel(), gate, rungs)
    assert isinstance(model, BatchModel)
    assert not isinstance(budgeted(CountingModel(), gate, rungs), BatchModel)
    line = Line(id="m1", at=now, role="user", speaker="Maya", text="I adopted a cat named Miso.")
    request = BatchRequest(scope="s", messages=[line], neighbours=[], known_contacts=[], open_tasks=[])
    assert model.consolidate_batch(request).facts  # 950 of 1000: the batch tier is still open
    spend(app, 50, now)
    gate.refresh(now)
    with pytest.raises(BudgetExceeded) as caught:
        model.consolidate_batch(request)
    assert caught.value.tier == Tier.BATCH.value


class _BudgetStep:
    name = "spender"

    def prepare(self, work):
        raise BudgetExceeded(tier="batch", reopens_at=datetime(2025, 3, 2, tzinfo=UTC))

    def apply(self, session, work, prepared) -> None:  # pragma: no cover - never prepared
        raise AssertionError


def test_budget_exceeded_in_prepare_defers_the_run_without_using_an_attempt(app: App) -> None:
    """A BudgetExceeded batch step waits for the reopening time, status retrying, attempts untouched."""
    now = datetime(2025, 3, 1, 12, tzinfo=UTC)
    append_messages(app.engine, [NewMessage("maya", now - timedelta(hours=1), "user", "hello")], now)
    ensure_step_runs(app.engine, ["spender"])
    cut_batches(app.engine, "maya", ["spender"], 50, timedelta(minutes=30), now)
    runner = StepRunner(app.engine, [_BudgetStep()], RetrySettings(max_attempts=1))
    report = runner.run_due(now, threading.Event())  # one attempt allowed: a counted attempt would fail the run
    assert (report.deferred, report.failed, report.done) == (1, 0, 0)
    [run] = rows(app, StepRun)
    assert (run.status, run.attempts, run.last_error) == ("retrying", 0, DEFERRED)
    assert run.next_at == datetime(2025, 3, 2, tzinfo=UTC)
    assert runner.run_due(now + timedelta(hours=1)).deferred == 0  # not due again before midnight
