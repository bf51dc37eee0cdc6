"""A plugin step removed from the config stops counting as open work and blocks nothing."""

from __future__ import annotations

import pytest

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import select

from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.status import gather
from stores.engine import reading
from stores.schema.ledger import StepRun
from stores.messages import NewMessage, append_messages
from stores.ledger import consolidated_seq
from tests.support.plugins import FlakyStep, RecordingStep, effects

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def log(app, scope: str, count: int) -> datetime:
    messages = [NewMessage(scope=scope, at=T0 + timedelta(minutes=i), role="user", text=f"m {i}") for i in range(count)]
    append_messages(app.engine, messages, T0)
    return T0 + timedelta(minutes=count)


def statuses(app, step: str) -> list[str]:
    with reading(app.engine) as session:
        return sorted(r.status for r in session.execute(select(StepRun).where(StepRun.step == step)).scalars())


def test_runs_of_a_removed_step_are_retired_and_hold_nothing_back(tmp_path: Path) -> None:
    """After the step is gone: no batch pending, retrying or failed, and every batch counts as consolidated."""
    app = open_app(Settings(state_dir=tmp_path / "state"))
    now = log(app, "maya", 120) + timedelta(hours=1)
    Consolidator(app, [RecordingStep("kept"), FlakyStep("gone", failures=10**9)]).drain(now)
    before = gather(app, now)["scopes"]["maya"]["batches"]
    assert before["done"] == 0 and before["retrying"] + before["pending"] == 3  # the failing step holds all three
    with reading(app.engine) as session:
        assert consolidated_seq(session, "maya") == 0

    Consolidator(app, [RecordingStep("kept")])  # the daemon starting on the new config
    assert gather(app, now)["scopes"]["maya"]["batches"] == {"done": 3, "pending": 0, "retrying": 0, "failed": 0}
    assert statuses(app, "gone") == ["retired"] * 3
    with reading(app.engine) as session:
        assert consolidated_seq(session, "maya") == 120
    app.close()


def test_a_step_that_comes_back_runs_its_retired_runs(tmp_path: Path) -> None:
    """Retired runs are pending again when their step is configured again, and then run once each."""
    app = open_app(Settings(state_dir=tmp_path / "state"))
    now = log(app, "maya", 100) + timedelta(hours=1)
    Consolidator(app, [RecordingStep("kept"), FlakyStep("back", failures=1)]).drain(now)
    Consolidator(app, [RecordingStep("kept")]).drain(now)
    assert statuses(app, "back") == ["retired", "retired"]
    Consolidator(app, [RecordingStep("kept"), RecordingStep("back")]).drain(now)
    assert statuses(app, "back") == ["done", "done"]
    assert sorted(step for _, step in effects(app.engine)) == ["back", "back", "kept", "kept"]
    app.close()


@pytest.mark.slow
def test_removing_a_plugin_from_the_config_clears_status_and_run_once(run_cli, tmp_path: Path) -> None:
    """Through the CLI: with the plugin `run --once` leaves its runs open; without it, status shows none."""
    history = "".join(json.dumps({"scope": "maya", "role": "user", "text": f"note {i}",
                                  "at": (T0 + timedelta(minutes=i)).isoformat()}) + "\n" for i in range(60))
    run_cli("import", "-", input=history)
    with_plugin = tmp_path / "with.toml"
    with_plugin.write_text('plugins = ["tests.support.plugins:stuck_steps"]\n')
    run_cli("--config", str(with_plugin), "run", "--once")
    batches = json.loads(run_cli("--config", str(with_plugin), "status", "--json").output)["scopes"]["maya"]["batches"]
    assert batches["retrying"] + batches["pending"] == 2

    without = tmp_path / "without.toml"
    without.write_text("plugins = []\n")
    run_cli("--config", str(without), "run", "--once")
    batches = json.loads(run_cli("--config", str(without), "status", "--json").output)["scopes"]["maya"]["batches"]
    assert batches == {"done": 2, "pending": 0, "retrying": 0, "failed": 0}
