"""`consolidator status`: the model section, read from the call ledger."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import Result

from consolidator.core.app import App
from consolidator.model.anthropic_backend import AnthropicModel, RejectedRequestError
from consolidator.model.recording import CallRecord
from consolidator.model.schemas import ClusterRequest, KnownFact, SummarizeRequest, SummaryInput
from consolidator.model.settings import ModelSettings
from stores.engine import reading
from stores.model_calls import DbRecorder, per_operation, totals
from tests.support.fake_anthropic import FakeAnthropic, Fault
from tests.support.model_responder import OfflineResponder

KEY = "sk-ant-status-test-0000"


def test_status_json_model_section_equals_the_ledger_and_the_server(
    app: App, run_cli: Callable[..., Result]
) -> None:
    """calls/tokens in status --json equal the ledger's and the server's answered requests; old keys stay."""
    yesterday = datetime.now(UTC) - timedelta(days=1)
    DbRecorder(app.engine).record(CallRecord("summarize", "maya", "", "claude-haiku-4-5", 100, 20, 0, 0, 0.5,
                                             "ok", 0.0002, yesterday))
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        fake.plan(None, Fault("malformed"), None, Fault("bad_request"))
        with AnthropicModel(ModelSettings(base_url=fake.url), DbRecorder(app.engine), api_key=KEY) as model:
            summary = SummarizeRequest(scope="maya", ladder="time", rung="day", window_label="2025-03-02",
                                       budget_tokens=50, inputs=[SummaryInput(id="m1", label="", text="Hi.")])
            model.summarize(summary)
            model.judge_cluster(ClusterRequest(scope="maya", facts=[KnownFact(id="f1", text="Likes tea")]))
            with pytest.raises(RejectedRequestError):
                model.summarize(summary)
    result = run_cli("status", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert {"scopes", "daemon", "state_dir", "model"} <= report.keys()
    m = report["model"]
    with reading(app.engine) as session:
        ledger, ops = totals(session), per_operation(session)
    c = fake.counters
    assert (m["today"]["calls"], m["today"]["input_tokens"], m["today"]["output_tokens"]) == (
        c.answered, c.input_tokens, c.output_tokens)
    assert (m["calls"], m["input_tokens"], m["output_tokens"], m["errors"]) == (
        ledger.calls, ledger.input_tokens, ledger.output_tokens, ledger.errors) == (
        c.answered + 1, c.input_tokens + 100, c.output_tokens + 20, 1)
    assert m["cost_usd"] == pytest.approx(ledger.cost_usd) and m["cache_read_tokens"] == ledger.cache_read_tokens
    assert {op: (o["calls"], o["input_tokens"], o["today_calls"]) for op, o in m["by_operation"].items()} == {
        "summarize": (ops["summarize"].calls, ops["summarize"].input_tokens, 1),
        "judge_cluster": (ops["judge_cluster"].calls, ops["judge_cluster"].input_tokens, 2),
    }
    assert m["budget"] == {"day": datetime.now(UTC).date().isoformat(), "limit_usd": None, "limit_tokens": None,
                           "spent_usd": pytest.approx(m["today"]["cost_usd"]),
                           "spent_tokens": m["budget"]["spent_tokens"], "deferred": []}
    assert m["budget"]["spent_tokens"] >= c.input_tokens + c.output_tokens

    text = run_cli("status").output
    assert "judge_cluster" in text and "deferred: nothing" in text and KEY not in result.output + text


@pytest.mark.parametrize(("key", "provider"), [(None, "offline"), (KEY, "anthropic")])
def test_startup_says_which_backend_never_the_key(
    app: App, monkeypatch: pytest.MonkeyPatch, key: str | None, provider: str
) -> None:
    """build_consolidator logs model.backend with the provider auto chose; the key is not in the logs."""
    from structlog.testing import capture_logs

    from consolidator.runtime.wiring import build_consolidator

    if key:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with capture_logs() as logs:
        consolidator = build_consolidator(app)
    [event] = [e for e in logs if e["event"] == "model.backend"]
    assert event["provider"] == provider and KEY not in repr(logs)
    close = getattr(consolidator.steps[0].model, "close", None)
    if close:
        close()
