"""Full drains through the real anthropic SDK against FakeAnthropic answering like OfflineModel."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from consolidator.core.app import App, open_app
from consolidator.messages.ingest import validate
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.schema.ledger import Batch, StepRun
from stores.messages import append_messages
from stores.schema.model import ModelCall
from stores.model_calls import per_operation
from tests.support.fake_anthropic import FakeAnthropic, Fault
from tests.support.drain_kit import END, START, app_on_fake_anthropic, assert_ledger_matches_server, outcome, records, settings_for

# The operations a drain uses: one call per batch for facts, contacts and tasks (the default),
# or one call per step (model.combine_batch_steps = false).
OPERATIONS = {
    True: {"summarize", "consolidate_batch", "judge_cluster", "reflect"},
    False: {"summarize", "extract_facts", "judge_cluster", "update_contacts", "update_tasks", "reflect"},
}
FAULTS = [Fault.rate_limit(retry_after=0.05), Fault("server_error"), Fault("overloaded"), Fault.timeout(2.5),
          Fault("malformed"), Fault("max_tokens")]


# Step retries need later ticks; the offline pass waits for three idle days, so it runs once, at the end.
SCHEDULE = [END + timedelta(days=1, minutes=10 * k) for k in range(12)] + [
    END + timedelta(days=4, minutes=15 * k) for k in range(6)
]


def drain(app: App, consolidator: Consolidator) -> None:
    append_messages(app.engine, [validate(r, now=lambda: START) for r in records()], START)
    for now in SCHEDULE:
        consolidator.drain(now)


@pytest.fixture(scope="module")
def offline_outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = open_app(settings_for(tmp_path_factory.mktemp("offline")))
    try:
        drain(app, build_consolidator(app, model=OfflineModel()))
        return outcome(app)
    finally:
        app.close()


@pytest.fixture
def anthropic_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[tuple[App, FakeAnthropic]]:
    combine = getattr(request, "param", True)
    with app_on_fake_anthropic(tmp_path / "state", monkeypatch, lambda d, url: settings_for(d, url, combine=combine)) as made:
        yield made


def run_drain(app: App) -> dict[str, Any]:
    consolidator = build_consolidator(app)
    try:
        drain(app, consolidator)
    finally:
        consolidator.steps[0].model.close()
    return outcome(app)


@pytest.mark.slow
def test_offline_baseline_exercises_every_operation(offline_outcome: dict[str, Any]) -> None:
    """The generated history closes windows on several rungs of both ladders and leaves facts, contacts, tasks."""
    rungs = {(ladder, rung) for ladder, rung, _ in offline_outcome["summaries"]}
    assert {("time", "day"), ("time", "week"), ("count", "1"), ("count", "10")} <= rungs
    assert offline_outcome["facts"] and offline_outcome["contacts"] and offline_outcome["tasks"]
    assert set(offline_outcome["runs"]) == {"done"}


@pytest.mark.slow
@pytest.mark.parametrize("anthropic_app", [True, False], ids=["combined", "per-step"], indirect=True)
def test_clean_drain_through_the_sdk_equals_the_offline_drain(
    anthropic_app: tuple[App, FakeAnthropic], offline_outcome: dict[str, Any]
) -> None:
    """Every operation goes through the real SDK; the stores end exactly as an offline drain leaves them."""
    app, fake = anthropic_app
    # No fault is injected here, so no call may time out: a loaded machine answering slower
    # than the fault test's 0.3 s must not make the client give up on an answer the server counted.
    app.settings = app.settings.model_copy(
        update={"model": app.settings.model.model_copy(update={"timeout_s": 10.0, "max_call_s": 30.0})})
    combined = app.settings.model.combine_batch_steps
    result = run_drain(app)
    assert result == offline_outcome
    assert set(fake.responder.operations) == OPERATIONS[combined]
    with reading(app.engine) as session:
        ops = per_operation(session)
        batches = session.execute(select(func.count()).select_from(Batch)).scalar_one()
    assert set(ops) == OPERATIONS[combined] and ops["judge_cluster"].calls >= 1
    if combined:  # exactly one call per batch (every batch of this history has a person's line)
        assert ops["consolidate_batch"].calls == batches
    assert_ledger_matches_server(app, fake)
    assert fake.counters.received == fake.counters.answered


@pytest.mark.slow
@pytest.mark.parametrize("anthropic_app", [True, False], ids=["combined", "per-step"], indirect=True)
def test_drain_with_faults_at_a_fifth_of_the_calls_ends_consolidated(
    anthropic_app: tuple[App, FakeAnthropic], offline_outcome: dict[str, Any]
) -> None:
    """429/500/529/timeouts/malformed/max_tokens on a fifth of the calls: all done, same stores, ledger = server."""
    app, fake = anthropic_app
    injected: list[str] = []

    # A fifth of the calls (chosen by their content, so concurrency does not matter) meet three
    # faults in a row on their first requests: 429, 500, 529 (the SDK's retries run out: the call
    # fails outright) or a timeout, then malformed and max_tokens (two invalid replies). A retry
    # later, with the same content, is answered.
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def faults(index: int, body: dict[str, Any]) -> Fault | None:
        call = json.dumps([body["tool_choice"], body["messages"][0]], sort_keys=True)
        chooser = random.Random(call)
        if chooser.random() >= 0.2:
            return None
        kinds = FAULTS[:3] if chooser.random() < 0.5 else FAULTS[3:]
        with lock:
            n = seen[call] = seen.get(call, 0) + 1
            if n > len(kinds):
                return None
            injected.append(kinds[n - 1].kind)
        return kinds[n - 1]

    fake.faults = faults
    result = run_drain(app)
    assert set(injected) == {f.kind for f in FAULTS}
    assert set(result["runs"]) == {"done"}  # every batch step ended done
    assert result == offline_outcome  # every window summarised, nothing invalid applied
    with reading(app.engine) as session:
        outcomes = [o for (o,) in session.execute(select(ModelCall.outcome))]
        attempts = [a for (a,) in session.execute(select(StepRun.attempts))]
    assert outcomes.count("invalid") >= 1 and outcomes.count("error") >= 1
    assert max(attempts) >= 2  # some calls failed outright: the step's own retry finished them
    assert_ledger_matches_server(app, fake)
    assert fake.counters.received > fake.counters.answered
