"""The watchdog is pinged only while work moves: a hung tick stops the pings (and the lease)."""

from __future__ import annotations

from datetime import datetime, timezone

from consolidator.runtime.daemon import Daemon
from consolidator.runtime.progress import Progress
from consolidator.runtime.tick import Consolidator
from tests.support.plugins import RecordingStep


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class RecordingNotifier:
    watchdog_interval = None

    def __init__(self) -> None:
        self.sent: list[str] = []

    def watchdog(self) -> bool:
        self.sent.append("WATCHDOG=1")
        return True


def test_progress_is_stalled_only_while_a_tick_runs_without_beats():
    """Idle is never stalled; a running tick is stalled once it has not beaten for the limit."""
    clock = FakeClock()
    progress = Progress(clock)
    clock.t += 600
    assert not progress.stalled(300)  # idle between ticks
    progress.start()
    clock.t += 299
    assert not progress.stalled(300)
    clock.t += 2
    assert progress.stalled(300)
    progress.beat()
    assert not progress.stalled(300)
    clock.t += 400
    progress.stop()
    assert not progress.stalled(300)


def test_heartbeat_withholds_the_watchdog_ping_from_a_stalled_tick(app):
    """The daemon's heartbeat pings while the tick beats and stops pinging when it hangs."""
    consolidator = Consolidator(app, [RecordingStep()])
    clock = FakeClock()
    consolidator.progress = Progress(clock)
    notifier = RecordingNotifier()
    daemon = Daemon(consolidator, notifier=notifier, clock=lambda: datetime.now(timezone.utc))
    consolidator.progress.start()
    daemon._heartbeat()
    clock.t += app.settings.daemon.stall_after.total_seconds() + 1
    daemon._heartbeat()
    assert notifier.sent == ["WATCHDOG=1"]
    consolidator.progress.beat()
    daemon._heartbeat()
    assert notifier.sent == ["WATCHDOG=1", "WATCHDOG=1"]


def test_runner_beats_for_every_step(app):
    """A drain beats once per batch step, so a long drain is never taken for a hang."""
    from datetime import timedelta

    from stores.messages import NewMessage, append_messages

    t0 = datetime(2025, 3, 3, 9, tzinfo=timezone.utc)
    append_messages(app.engine, [NewMessage("maya", t0 + timedelta(minutes=i), "user", f"m {i}") for i in range(150)], t0)
    consolidator = Consolidator(app, [RecordingStep("a"), RecordingStep("b")])
    beats: list[int] = []
    consolidator._runner._on_progress = lambda: beats.append(1)
    consolidator.drain(t0 + timedelta(hours=2))
    assert len(beats) == 3 * 2
