"""Storage faults on real file systems: a full disk (a small tmpfs), a read-only snapshot
directory for one of two scopes, a read-only database. Each gives one line and an exit code,
never a traceback; the daemon logs a fault once, counts it, shows it in `status`, and
recovers; nothing accepted is lost."""

from __future__ import annotations

import pytest

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import structlog
from structlog.testing import capture_logs

from consolidator.messages.ingest import validate
from consolidator.messages.sample import generate
from consolidator.core.app import open_app
from consolidator.runtime.daemon import Daemon
from consolidator.runtime.wiring import build_consolidator
from stores.engine import reading
from stores.messages import append_messages
from stores.view_versions import stale
from tests.support.mounts import fill, mounts  # noqa: F401  (fixture)

NOW = datetime.now(timezone.utc)
# Recent histories: the time ladder announces every day since the first message, so old ones cost time.
START = (NOW - timedelta(days=12)).replace(hour=0, minute=0, second=0, microsecond=0)
VIEWS = ("context.md", "facts.json", "contacts.json", "time/day.json", "count/1.json")


def sample_file(tmp_path: Path, scope: str, days: int = 6) -> tuple[Path, int]:
    records = list(generate(scope=scope, start=START, days=days))
    path = tmp_path / f"{scope}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path, len(records)


def log_sample(app, scope: str, days: int = 6) -> int:
    messages = [validate(r) for r in generate(scope=scope, start=START, days=days)]
    return append_messages(app.engine, messages, NOW).added


def one_error(result) -> str:
    """The single error line of a failed command (no traceback anywhere)."""
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def status_of(run_cli) -> dict:
    result = run_cli("status", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def fault_events(logs: list[dict]) -> list[dict]:
    return [e for e in logs if e["event"].startswith("fault")]


# --- a full disk ------------------------------------------------------------------------------


def test_import_and_log_on_a_full_disk_say_so_and_add_nothing(mounts, state_dir, tmp_path, run_cli):
    """`import` and `log` on a full disk exit 1 with one line naming the database; the log is intact."""
    mounts.tmpfs(state_dir)
    first, n = sample_file(tmp_path, "maya")
    assert run_cli("import", str(first)).exit_code == 0
    second, m = sample_file(tmp_path, "ana")
    filler = fill(state_dir)

    refused = run_cli("import", str(second))
    assert refused.exit_code == 1
    line = one_error(refused)
    assert f"database or disk is full: {state_dir / 'consolidator.db'}" in line and f"nothing from {second}" in line
    logged = run_cli("log", "--scope", "maya", "--role", "user", "I moved to Oslo.")
    assert logged.exit_code == 1 and "the message was not logged" in one_error(logged)

    filler.unlink()
    assert {s: v["messages"] for s, v in status_of(run_cli)["scopes"].items()} == {"maya": n}
    again = run_cli("import", str(second))
    assert again.exit_code == 0 and again.stdout.startswith(f"added {m}, duplicates 0")


@pytest.mark.slow
def test_run_once_on_a_full_disk_fails_in_one_line_then_finishes(mounts, state_dir, tmp_path, run_cli):
    """`run --once` on a full disk exits 1 naming the database, `status` shows the full disk; freed, it all gets done."""
    mounts.tmpfs(state_dir)
    history, n = sample_file(tmp_path, "maya")
    assert run_cli("import", str(history)).exit_code == 0
    filler = fill(state_dir)

    result = run_cli("run", "--once")
    assert result.exit_code == 1
    assert f"database or disk is full: {state_dir / 'consolidator.db'}" in one_error(result)
    report = status_of(run_cli)
    assert any("full" in f["cause"] and str(state_dir) in f["cause"] for f in report["faults"]), report["faults"]
    assert report["scopes"]["maya"]["messages"] == n

    filler.unlink()
    assert run_cli("run", "--once").exit_code == 0
    after = status_of(run_cli)
    maya = after["scopes"]["maya"]
    assert after["faults"] == [] and maya["messages"] == n and maya["pending"] == 0
    assert maya["batches"]["done"] > 0 and maya["batches"]["failed"] == maya["batches"]["retrying"] == 0


@pytest.mark.slow
def test_daemon_on_a_full_disk_logs_once_counts_and_recovers(mounts, state_dir, settings, run_cli):
    """Ticks on a full disk: one error event without traceback, then silence; freed, the next tick clears it and does the work."""
    mounts.tmpfs(state_dir)
    app = open_app(settings)
    try:
        n = log_sample(app, "maya")
        daemon = Daemon(build_consolidator(app))
        filler = fill(state_dir)
        structlog.reset_defaults()
        with capture_logs() as logs:
            for _ in range(4):
                daemon._tick()  # what the scheduler calls every tick_interval
        events = fault_events(logs)
        assert [(e["event"], e["log_level"]) for e in events] == [("fault", "error")]
        assert "database or disk is full" in events[0]["cause"] and not events[0].get("exc_info")
        assert any("full" in f["cause"] for f in status_of(run_cli)["faults"])

        filler.unlink()
        structlog.reset_defaults()
        with capture_logs() as logs:
            daemon._tick()
        assert [(e["event"], e["count"]) for e in fault_events(logs)] == [("fault.cleared", 4)]
        after = status_of(run_cli)
        assert after["faults"] == [] and after["scopes"]["maya"]["messages"] == n
        assert after["scopes"]["maya"]["pending"] == 0 and after["scopes"]["maya"]["batches"]["done"] > 0
    finally:
        app.close()


# --- a read-only snapshot directory for one of two scopes ---------------------------------------


@pytest.mark.slow
def test_one_read_only_snapshot_directory_does_not_stop_the_other_scope(mounts, state_dir, tmp_path, run_cli):
    """`run --once`: ana's ladders and snapshots are written, maya's ladders too; one line names maya's directory; exit 1."""
    for scope in ("ana", "maya"):
        assert run_cli("import", str(sample_file(tmp_path, scope)[0])).exit_code == 0
    blocked = state_dir / "snapshots" / "maya"
    blocked.mkdir(parents=True)
    mounts.read_only(blocked)

    result = run_cli("run", "--once")
    assert result.exit_code == 1
    assert one_error(result).startswith(f"error: snapshots [maya]: Read-only file system: {blocked}/")
    assert all((state_dir / "snapshots" / "ana" / view).is_file() for view in VIEWS)
    rung = run_cli("summaries", "--scope", "maya", "--ladder", "count", "--rung", "1", "--json")
    assert json.loads(rung.stdout), "maya's ladder is written even though its files cannot be"
    faults = status_of(run_cli)["faults"]
    assert [(f["where"], f["scope"], f["count"]) for f in faults] == [("snapshots", "maya", faults[0]["count"])]
    assert faults[0]["since"] and str(blocked) in faults[0]["cause"]

    mounts.release(blocked)
    assert run_cli("run", "--once").exit_code == 0
    assert all((blocked / view).is_file() for view in VIEWS)
    assert status_of(run_cli)["faults"] == []


@pytest.mark.slow
def test_daemon_publishes_other_scopes_while_one_directory_is_read_only(mounts, state_dir, settings, run_cli):
    """Tick after tick ana's views are published while maya's stay pending; one fault event, counted; then maya catches up."""
    app = open_app(settings)
    try:
        log_sample(app, "ana")
        log_sample(app, "maya")
        daemon = Daemon(build_consolidator(app))
        blocked = state_dir / "snapshots" / "maya"
        blocked.mkdir(parents=True)
        mounts.read_only(blocked)
        structlog.reset_defaults()
        with capture_logs() as logs:
            daemon._tick()
            log_sample(app, "ana", days=10)  # more work for ana: her views change again
            daemon._tick()
        assert [(e["event"], e["scope"]) for e in fault_events(logs)] == [("fault", "maya")]
        with reading(app.engine) as session:
            assert stale(session, "ana") == [] and stale(session, "maya") != []
        [fault] = status_of(run_cli)["faults"]
        assert (fault["where"], fault["scope"], fault["count"]) == ("snapshots", "maya", 2)

        mounts.release(blocked)
        daemon._tick()
        with reading(app.engine) as session:
            assert stale(session, "maya") == []
        assert all((blocked / view).is_file() for view in VIEWS)
        assert status_of(run_cli)["faults"] == []
    finally:
        app.close()


# --- a read-only database -----------------------------------------------------------------------


@pytest.mark.slow
def test_status_reads_a_read_only_database_and_writers_refuse_in_one_line(mounts, state_dir, tmp_path, run_cli):
    """On a read-only state directory `status` still reads every count and says why; log, import and run exit 1."""
    history, n = sample_file(tmp_path, "maya")
    assert run_cli("import", str(history)).exit_code == 0
    assert run_cli("run", "--once").exit_code == 0
    before = status_of(run_cli)
    mounts.read_only(state_dir)

    report = status_of(run_cli)
    assert report["scopes"] == before["scopes"]
    assert [f["where"] for f in report["faults"]] == ["database"]
    assert "database is read-only" in report["faults"][0]["cause"]
    assert "fault: database: database is read-only" in run_cli("status").stdout
    for command in (["log", "--scope", "maya", "--role", "user", "hi"], ["import", str(history)], ["run", "--once"]):
        refused = run_cli(*command)
        assert refused.exit_code == 1, command
        assert f"database is read-only: {state_dir / 'consolidator.db'}" in one_error(refused)

    mounts.release(state_dir)
    assert status_of(run_cli)["scopes"]["maya"]["messages"] == n
    assert run_cli("log", "--scope", "maya", "--role", "user", "hi").exit_code == 0
