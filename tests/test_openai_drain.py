"""A multi-week history drained through the real openai SDK against FakeOpenAI with every quirk on."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

pytest.importorskip("openai")

from consolidator.core.app import App, open_app  # noqa: E402
from consolidator.core.config import Settings  # noqa: E402
from consolidator.messages.ingest import validate  # noqa: E402
from consolidator.model.offline import OfflineModel  # noqa: E402
from consolidator.runtime.wiring import build_consolidator  # noqa: E402
from stores.engine import reading  # noqa: E402
from stores.messages import append_messages  # noqa: E402
from stores.model_calls import totals  # noqa: E402
from stores.schema.ladders import LadderHold, Summary  # noqa: E402
from stores.schema.ledger import Batch, StepRun  # noqa: E402
from stores.schema.memory import Contact, Fact, Task  # noqa: E402
from tests.support.drain_kit import END, START, outcome, records  # noqa: E402
from tests.support.fake_openai import PROSE, FakeOpenAI, Quirks  # noqa: E402
from tests.support.model_responder import OfflineResponder  # noqa: E402

SCHEDULE = [END + timedelta(days=1, minutes=10 * k) for k in range(12)] + [
    END + timedelta(days=4, minutes=15 * k) for k in range(6)]


def settings_for(state_dir: Path, url: str | None, window: int = 8192) -> Settings:
    model = ({"provider": "openai", "base_url": url, "default_model": "local-model", "context_tokens": window,
              "timeout_s": 5.0, "max_call_s": 20.0, "max_retries": 3} if url else {"provider": "offline"})
    return Settings(state_dir=state_dir, batch_size=25, ladders={"budget_tokens": 64},
                    facts={"sleep_idle": "3d", "sleep_importance": 100_000, "merge_threshold": 0.6},
                    retry={"base_delay": "1m", "max_delay": "5m", "max_attempts": 8}, model=model)


def drain(app: App, model: Any = None) -> None:
    consolidator = build_consolidator(app, model=model)
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records()], START)
    try:
        for now in SCHEDULE:
            consolidator.drain(now)
    finally:
        close = getattr(consolidator.steps[0].model, "close", None)
        if close:
            close()


@pytest.fixture(scope="module")
def offline_outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = open_app(settings_for(tmp_path_factory.mktemp("offline"), None))
    try:
        drain(app, OfflineModel())
        return outcome(app)
    finally:
        app.close()


def drained(tmp_path: Path, quirks: Quirks, window: int) -> Iterator[tuple[App, FakeOpenAI]]:
    with FakeOpenAI(responder=OfflineResponder(), quirks=quirks) as fake:
        app = open_app(settings_for(tmp_path / "state", fake.url, window))
        try:
            drain(app)
            yield app, fake
        finally:
            app.close()


def stored_texts(app: App) -> list[str]:
    with reading(app.engine) as s:
        return ([t for (t,) in s.execute(select(Summary.text))] + [t for (t,) in s.execute(select(Fact.text))]
                + [c.name + c.biography + c.summary for c in s.execute(select(Contact)).scalars()]
                + [t for (t,) in s.execute(select(Task.title))])


def assert_consolidated(app: App, fake: FakeOpenAI) -> None:
    """Every batch step done once, no quirk's text stored, nothing over the window, ledger = server."""
    with reading(app.engine) as s:
        runs = list(s.execute(select(StepRun.batch_id, StepRun.step, StepRun.status)))
        batches = s.execute(select(func.count()).select_from(Batch)).scalar_one()
        holds = list(s.execute(select(LadderHold.reason)))
        t = totals(s)
    assert {status for _, _, status in runs} == {"done"} and len(runs) == 3 * batches
    assert len({(b, step) for b, step, _ in runs}) == len(runs)
    assert all(reason for (reason,) in holds)  # a held window says why
    texts = stored_texts(app)
    assert texts and not [x for x in texts if "```" in x or PROSE in x or x.lstrip().startswith("{")]
    assert fake.counters.over_window == 0
    c = fake.counters
    assert (t.calls, t.input_tokens, t.output_tokens) == (c.answered, c.input_tokens, c.output_tokens)


@pytest.mark.slow
def test_every_quirk_drains_to_the_offline_outcome(tmp_path: Path, offline_outcome: dict[str, Any]) -> None:
    """Format ignored, fences, prose, tools refused, cut replies, 429 and 500: the stores end as offline's."""
    for app, fake in drained(tmp_path, Quirks.every(window=8192, cut_rate=0.05, error_rate=0.05), 8192):
        assert_consolidated(app, fake)
        c = fake.counters
        assert c.cut and c.rate_limited and c.server_errors and c.tools_refused == 1 and c.fenced and c.prose
        assert outcome(app) == offline_outcome


@pytest.mark.slow
def test_a_2048_token_window_still_consolidates_everything(tmp_path: Path, offline_outcome: dict[str, Any]) -> None:
    """Batches split (or asked per operation) to fit 2,048 tokens: every step done, every window summarised."""
    for app, fake in drained(tmp_path, Quirks(window=2048), 2048):
        assert_consolidated(app, fake)
        result = outcome(app)
        assert set(result["summaries"]) == set(offline_outcome["summaries"])
        assert result["facts"] and result["contacts"]
        assert max(len(str(b)) for b in fake.bodies) // 4 < 2048
