"""model.batch_api in a real daemon process: SIGKILL between submitting a batch and applying it."""

from __future__ import annotations

import pytest

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from consolidator.messages.ingest import validate
from consolidator.messages.sample import generate
from consolidator.model.offline import OfflineModel
from consolidator.core.app import App, open_app
from consolidator.core.config import load_settings
from consolidator.runtime.wiring import build_consolidator
from stores.schema.model import BatchRequest, MessageBatch
from stores.engine import reading
from stores.schema.ladders import LadderHold
from stores.ladder_state import dirty_windows
from stores.schema.ledger import StepRun
from stores.messages import append_messages
from stores.model_calls import totals
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.model_responder import OfflineResponder
from tests.support.drain_kit import outcome

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-ant-batch-daemon-0000"
START = datetime(2025, 1, 6, tzinfo=UTC)


def write_config(path: Path, state: Path, url: str) -> Path:
    path.write_text(
        f'state_dir = "{state}"\nbatch_size = 25\n'
        '[daemon]\ntick_interval = "0.2s"\nlease_ttl = "30s"\n[ladders]\nbudget_tokens = 64\n'
        '[facts]\nsleep_idle = "3d"\nsleep_importance = 100000\nmerge_threshold = 0.6\n'
        f'[model]\nprovider = "anthropic"\nbase_url = "{url}"\nbatch_api = true\nbatch_poll = "0.5s"\n'
        'timeout_s = 10\nmax_call_s = 30\n')
    return path


def seed(app: App) -> None:
    records = list(generate(scope="maya", start=START, days=6, seed=4, rate=2.0))
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records], START)


def daemon(config: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLIDATOR_", "NOTIFY_", "WATCHDOG_"))}
    env.update(CONSOLIDATOR_CONFIG=str(config), PYTHONPATH=str(ROOT), ANTHROPIC_API_KEY=KEY)
    return subprocess.Popen([sys.executable, "-m", "consolidator", "run", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def killer(fake: FakeAnthropic, event: str, process: list[subprocess.Popen[str]]) -> None:
    """SIGKILL the daemon the first time the fake is about to answer `event` (the work is submitted)."""
    def on_event(seen: str, batch_id: str) -> None:
        if seen == event and process:
            os.kill(process.pop().pid, signal.SIGKILL)
            time.sleep(0.2)  # the killed client never reads this answer
    fake.batches.on_event = on_event


def settled(app: App) -> bool:
    """Every step run done, no request or batch open, no ladder window left dirty."""
    with reading(app.engine) as session:
        runs = [r.status for r in session.execute(select(StepRun)).scalars()]
        requests = [r.state for r in session.execute(select(BatchRequest)).scalars()]
        batches = [b.state for b in session.execute(select(MessageBatch)).scalars()]
        dirty = dirty_windows(session, "maya", "time") or dirty_windows(session, "maya", "count")
        dirty = dirty or session.execute(select(LadderHold)).first() is not None
    return bool(runs) and set(runs) == {"done"} and set(requests) <= {"answered"} and set(batches) == {"ended"} and not dirty


@pytest.mark.slow
def test_sigkill_between_submitting_and_applying_loses_nothing_and_submits_nothing_twice(tmp_path: Path) -> None:
    """Killed as its batch is created (before it learns the id), then as results come back: the restart
    adopts the batch, fetches the results again, applies each once; the stores equal a direct drain."""
    with FakeAnthropic(api_key=KEY, responder=OfflineResponder()) as fake:
        config = write_config(tmp_path / "config.toml", tmp_path / "state", fake.url)
        app = open_app(load_settings(config, env={}))
        seed(app)
        for event in ("created", "results"):
            process = [daemon(config)]
            running = process[0]
            killer(fake, event, process)
            assert running.wait(timeout=120) == -signal.SIGKILL, running.stderr.read()[-3000:] if running.stderr else ""
        assert fake.batches.created == 1 and fake.batches.results_served > 0
        with reading(app.engine) as session:
            assert [b.batch_id for b in session.execute(select(MessageBatch)).scalars()] == ["msgbatch_fake_1"]
            assert {r.state for r in session.execute(select(BatchRequest)).scalars()} == {"submitted"}

        fake.batches.on_event = None
        final = daemon(config)
        try:
            deadline = time.monotonic() + 240
            while not settled(app) and time.monotonic() < deadline and final.poll() is None:
                time.sleep(0.5)
            assert settled(app), final.stderr.read()[-3000:] if final.poll() is not None and final.stderr else "not settled"
        finally:
            final.send_signal(signal.SIGTERM)
            final.wait(timeout=60)
        assert len(fake.batches.submitted) == len(set(fake.batches.submitted))  # no request submitted twice
        assert fake.counters.received == 0  # no direct call either
        with reading(app.engine) as session:
            t = totals(session)
        c = fake.counters
        assert (t.calls, t.input_tokens, t.output_tokens) == (c.answered, c.input_tokens, c.output_tokens)
        result = outcome(app)
        app.close()
    assert result == direct_drain(tmp_path / "direct")


def direct_drain(state: Path) -> dict[str, Any]:
    """The same history drained in this process by the model the fake answers like."""
    from consolidator.core.config import Settings

    app = open_app(Settings(state_dir=state, batch_size=25, ladders={"budget_tokens": 64},
                            facts={"sleep_idle": "3d", "sleep_importance": 100_000, "merge_threshold": 0.6},
                            model={"provider": "offline"}))
    try:
        seed(app)
        consolidator = build_consolidator(app, model=OfflineModel())
        for _ in range(3):
            consolidator.drain(datetime.now(UTC))
        return outcome(app)
    finally:
        app.close()
