"""database_url at the command line and in the daemon: a missing driver, an unsupported or
malformed URL is one line naming the key and the file with exit 2; a server that does not
answer (a closed port) is shown by `status` and retried by the daemon with backoff."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import structlog
from click.testing import CliRunner
from structlog.testing import capture_logs

from consolidator.cli.main import cli
from consolidator.core.app import open_app
from consolidator.core.config import load_settings
from consolidator.runtime.backoff import BACKOFF_CAP, wait_for_database
from consolidator.runtime.daemon import Daemon
from consolidator.runtime.wiring import build_consolidator


def one_error(result) -> str:
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def config_with(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\ndatabase_url = "{url}"\n', encoding="utf-8")
    return config


def run_with(config: Path, *args: str):
    return CliRunner().invoke(cli, ["--config", str(config), *args], env={"CONSOLIDATOR_STATE_DIR": ""},
                              catch_exceptions=False)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A local port bound but not listening: a connection to it is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# --- exit 2: the URL itself ---------------------------------------------------------------------


@pytest.mark.parametrize("url, said", [
    pytest.param("mysql://db/x", "unsupported database 'mysql'", id="mysql"),
    pytest.param("duckdb:///x.db", "unsupported database 'duckdb'", id="duckdb-is-not-shared"),
    pytest.param("postgresql+psycopg://db:port/x", "not a usable database URL", id="port-not-a-number"),
    pytest.param("postgresql+psycopg://postgres@127.0.0.1:1/x?no_such_option=1", "the driver refused its options",
                 id="unknown-connection-option"),
    pytest.param("postgresql+psycopg2://db/x", "no driver for it is installed", id="driver-not-installed"),
])
@pytest.mark.parametrize("command", ["log", "status", "run"])
def test_a_bad_url_is_one_line_naming_key_and_file(tmp_path, url, said, command):
    """`log`, `status` and `run` refuse an unusable database_url with exit 2 and one line naming the file and the key."""
    config = config_with(tmp_path, url)
    args = {"log": ["log", "--scope", "s", "--role", "user", "hi"], "status": ["status"], "run": ["run", "--once"]}
    result = run_with(config, *args[command])
    assert result.exit_code == 2
    line = one_error(result)
    assert line.startswith(f"Error: {config}: key 'database_url': ") and said in line, line


def test_a_missing_postgres_driver_says_how_to_install_it(tmp_path, monkeypatch):
    """Without psycopg a postgresql+psycopg URL is one line: no driver, and the extra that brings it; exit 2."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what an environment without the driver imports
    config = config_with(tmp_path, "postgresql+psycopg://postgres@db.example/x")
    result = run_with(config, "status")
    assert result.exit_code == 2
    line = one_error(result)
    assert f"{config}: key 'database_url': no driver for it is installed" in line
    assert "pip install 'consolidator[postgres]'" in line


# --- a server that does not answer --------------------------------------------------------------


def test_status_shows_a_server_that_does_not_answer(tmp_path, closed_port):
    """`status` on a closed port prints the database fault (text and JSON) and exits 1, without a traceback."""
    config = config_with(tmp_path, f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/postgres")
    text = run_with(config, "status")
    assert text.exit_code == 1 and "Traceback" not in text.output
    fault = [line for line in text.stdout.splitlines() if line.startswith("fault: database")]
    assert len(fault) == 1 and "cannot open the database" in fault[0] and f":{closed_port}/" in fault[0]
    report = json.loads(run_with(config, "status", "--json").stdout)
    assert [f["where"] for f in report["faults"]] == ["database"] and report["scopes"] == {}


def test_a_writer_says_the_server_does_not_answer_in_one_line(tmp_path, closed_port):
    """`log` to a closed port: exit 1 (a runtime fault, not a bad configuration), one line naming the key and file."""
    config = config_with(tmp_path, f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/postgres")
    result = run_with(config, "log", "--scope", "s", "--role", "user", "hello")
    assert result.exit_code == 1
    line = one_error(result)
    assert "cannot open the database" in line and f"key 'database_url' in {config}" in line


def attempts(faults, clock: list[datetime], step: Callable[[], None], seconds: int) -> list[timedelta]:
    """Advance the clock a second at a time for `seconds`, calling `step`; when the database was tried."""
    start, tried = clock[0], []
    for second in range(seconds):
        clock[0] = start + timedelta(seconds=second)
        before = sum(f.count for f in faults.met())
        step()
        if sum(f.count for f in faults.met()) > before:
            tried.append(timedelta(seconds=second))
    return tried


def assert_backs_off(tried: list[timedelta], first: timedelta) -> None:
    gaps = [later - earlier for earlier, later in zip(tried, tried[1:])]
    assert gaps == [min(first * 2**n, BACKOFF_CAP) for n in range(len(gaps))] and gaps[-1] == BACKOFF_CAP, gaps


def test_the_service_waits_for_a_server_that_does_not_answer_with_backoff(tmp_path, closed_port):
    """Started on a closed port, the daemon tries after 1, 2, 4... tick intervals (capped), logs one fault, and stops on a signal."""
    config = config_with(tmp_path, f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/postgres")
    settings = load_settings(config, env={})
    app = open_app(settings, patient=True)
    assert app.unreachable and "cannot open the database" in app.unreachable
    clock = [datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)]
    stop, tried = threading.Event(), []

    def sleep(seconds: float) -> None:  # the fake clock moves instead
        clock[0] += timedelta(seconds=seconds)
        if clock[0] - datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc) > timedelta(seconds=400):
            stop.set()

    def reach() -> None:
        tried.append(clock[0] - datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc))
        type(app).reach(app)

    app.reach = reach  # the real reach, timed
    structlog.reset_defaults()
    try:
        with capture_logs() as logs:
            assert wait_for_database(app, stop=stop, clock=lambda: clock[0], sleep=sleep) is False
    finally:
        app.close()
    assert_backs_off(tried, settings.daemon.tick_interval)
    errors = [e for e in logs if e["event"] == "fault"]
    assert len(errors) == 1 and errors[0]["where"] == "database" and not errors[0].get("exc_info")


def test_a_running_daemon_backs_off_while_the_database_is_gone_and_recovers(app, state_dir, tmp_path):
    """The database vanishes under a running daemon: retries back off to the cap; when it is back the fault clears and work resumes."""
    clock = [datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)]
    daemon = Daemon(build_consolidator(app), clock=lambda: clock[0])
    daemon._tick()
    away = tmp_path / "away"
    state_dir.rename(away)
    app.engine.dispose()  # no pooled connection keeps the old file open
    structlog.reset_defaults()
    with capture_logs() as logs:
        tried = attempts(daemon.faults, clock, daemon._tick, 400)
        away.rename(state_dir)
        clock[0] += BACKOFF_CAP
        daemon._tick()
    assert_backs_off(tried, app.settings.daemon.tick_interval)
    assert [(e["event"], e["where"]) for e in logs if e["event"].startswith("fault")] == [
        ("fault", "database"), ("fault.cleared", "database")]
    assert daemon.faults.met() == [] and daemon._has_lease


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_service_started_without_its_server_keeps_waiting_and_stops_on_sigterm(tmp_path, closed_port):
    """`consolidator run` on a closed port does not exit: one `database` fault logged, then a clean exit 0 on SIGTERM."""
    config = config_with(tmp_path, f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/postgres")
    config.write_text(config.read_text() + '[daemon]\ntick_interval = "1s"\n', encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "CONSOLIDATOR_STATE_DIR": ""}
    proc = subprocess.Popen([sys.executable, "-m", "consolidator", "--config", str(config), "run"], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any('"fault"' in line for line in lines) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # until it is waiting (signal handlers installed, first try failed)
        time.sleep(4)  # tries again after 1 s and 2 s more: still one logged fault
        assert proc.poll() is None, "".join(lines)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        reader.join(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    output = "".join(lines)
    assert proc.returncode == 0, output
    events = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e["where"] for e in events if e["event"] == "fault"] == ["database"], output
    assert "Traceback" not in output
