"""Every model call recorded and budgeted whichever command makes it; forget keeps the spend."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import Result
from sqlalchemy import select

from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.recording import CallRecord
from consolidator.model.schemas import ClusterRequest, KnownFact
from consolidator.model.settings import ModelSettings
from consolidator.core.app import App, open_app
from consolidator.core.config import load_settings
from consolidator.runtime.forget import forget_scope
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.model import FORGOTTEN_SCOPE, ModelCall
from stores.model_calls import DbRecorder, totals, utc_day
from stores.schema.ladders import Summary
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder

KEY = "sk-ant-counted-test-0000"
START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


def write_config(tmp_path: Path, url: str, extra: str = "") -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n[ladders]\nbudget_tokens = 64\n'
                      f'[model]\nprovider = "anthropic"\nbase_url = "{url}"\ntimeout_s = 5\nmax_call_s = 10\n{extra}')
    return config


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as server:
        yield server


def three_days(app: App) -> None:
    messages = [NewMessage("maya", START + timedelta(days=d, minutes=m), "user", f"Day {d}: I met Ana at the cafe {m}; she told me about her new job at the museum and her trip.")
                for d in range(3) for m in range(4)]
    append_messages(app.engine, messages, START)


def ledger(app: App):
    with reading(app.engine) as session:
        return totals(session)


def test_rebuild_records_every_call_it_makes(tmp_path: Path, fake: FakeAnthropic, run_cli: Callable[..., Result]) -> None:
    """A rebuild through the Anthropic backend writes its calls to the ledger: calls and tokens equal the server's."""
    config = write_config(tmp_path, fake.url)
    app = open_app(load_settings(config, env={}))
    try:
        three_days(app)
        result = run_cli("--config", str(config), "rebuild")
        assert result.exit_code == 0, result.output
        spent, c = ledger(app), fake.counters
        with reading(app.engine) as session:
            summarized = session.execute(select(Summary).where(Summary.calls > 0)).all()
        assert c.answered >= len(summarized) > 0
        assert (spent.calls, spent.input_tokens, spent.output_tokens, spent.cache_read_tokens, spent.cache_write_tokens) == (
            c.answered, c.input_tokens, c.output_tokens, c.cache_read_tokens, c.cache_write_tokens)
        assert spent.cost_usd > 0
    finally:
        app.close()


@pytest.mark.slow
def test_rebuild_is_held_by_the_daily_budget(tmp_path: Path, fake: FakeAnthropic, run_cli: Callable[..., Result]) -> None:
    """With today's budget spent, a rebuild sends no request: its windows wait, unwritten, for the daemon."""
    config = write_config(tmp_path, fake.url, "daily_budget_tokens = 1000\n")
    app = open_app(load_settings(config, env={}))
    try:
        three_days(app)
        DbRecorder(app.engine).record(CallRecord("summarize", "other", "", "claude-haiku-4-5", 2000, 0, 0, 0, 0.1,
                                                 "ok", 0.002, datetime.now(UTC)))
        result = run_cli("--config", str(config), "rebuild")
        assert result.exit_code == 0, result.output
        assert fake.counters.received == 0
        with reading(app.engine) as session:
            assert session.execute(select(Summary).where(Summary.calls > 0)).first() is None
    finally:
        app.close()


def test_forget_keeps_the_day_s_spend_without_the_scope_s_name(app: App, fake: FakeAnthropic,
                                                               run_cli: Callable[..., Result]) -> None:
    """After forget, today's spend and call counts are unchanged; no ledger row names the scope or its refs."""
    with AnthropicModel(ModelSettings(base_url=fake.url), DbRecorder(app.engine), api_key=KEY) as model:
        for scope in ("maya", "maya", "omar"):
            model.judge_cluster(ClusterRequest(scope=scope, ref=f"{scope}-cluster-7", facts=[KnownFact(id="f1", text="Likes tea")]))
    append_messages(app.engine, [NewMessage("maya", START, "user", "hello")], START)
    day = utc_day(datetime.now(UTC))
    with reading(app.engine) as session:
        before = totals(session, *day)
    status_before = json.loads(run_cli("status", "--json").output)["model"]

    forget_scope(app, "maya")

    with reading(app.engine) as session:
        assert totals(session, *day) == before
        rows = list(session.execute(select(ModelCall.scope, ModelCall.ref)))
    assert before.calls == fake.counters.answered == 3
    assert sorted(rows) == [(FORGOTTEN_SCOPE, ""), (FORGOTTEN_SCOPE, ""), ("omar", "omar-cluster-7")]
    status_after = json.loads(run_cli("status", "--json").output)["model"]
    assert status_after["today"] == status_before["today"] and status_after["budget"] == status_before["budget"]
