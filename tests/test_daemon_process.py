"""The daemon as a real process: SIGKILL mid-step, sd_notify over a real socket, SIGTERM, lease."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from consolidator.core.app import open_app
from consolidator.core.config import load_settings
from stores.engine import reading
from stores.schema.ledger import StepRun
from stores.messages import NewMessage, append_messages
from tests.support.plugins import effects

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def write_config(tmp_path: Path, plugins: list[str]) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'state_dir = "{tmp_path / "state"}"\n'
        f"plugins = {json.dumps(plugins)}\n"
        "[daemon]\ntick_interval = \"0.2s\"\nlease_ttl = \"30s\"\n"
    )
    return config


def env_for(config: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLIDATOR_", "NOTIFY_", "WATCHDOG_"))}
    env.update(CONSOLIDATOR_CONFIG=str(config), PYTHONPATH=str(ROOT), **extra)
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def seed(config: Path, count: int) -> None:
    app = open_app(load_settings(config, env={}))
    messages = [NewMessage("maya", T0 + timedelta(minutes=i), "user", f"message {i}") for i in range(count)]
    append_messages(app.engine, messages, T0)
    app.close()


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "consolidator", *args]


@pytest.mark.slow
@pytest.mark.subprocess
def test_sigkill_mid_step_then_restart_applies_every_step_once(tmp_path):
    """A daemon killed inside a step's transaction loses that step only; the restart finishes it once."""
    config = write_config(tmp_path, ["tests.support.plugins:crash_steps"])
    seed(config, 250)  # five batches
    marker = tmp_path / "killed"
    env = env_for(config, CONSOLIDATOR_TEST_KILL_BATCH="3", CONSOLIDATOR_TEST_MARKER=str(marker))
    daemon = subprocess.Popen(cli("run"), env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert daemon.wait(timeout=60) == -signal.SIGKILL
    finally:
        daemon.kill()
    assert marker.exists()
    app = open_app(load_settings(config, env={}))
    before = effects(app.engine)
    assert (3, "omega") not in {(b, s) for b, s in before}  # the killed transaction left nothing

    restart = subprocess.run(cli("run", "--once"), env=env, capture_output=True, text=True, timeout=60)
    assert restart.returncode == 0, restart.stderr
    after = effects(app.engine)
    expected = {(batch, step) for batch in range(1, 6) for step in ("alpha", "omega")}
    assert sorted(after) == sorted(expected)  # exactly once each: no duplicate, no gap
    with reading(app.engine) as s:
        runs = list(s.execute(select(StepRun)).scalars())
    steps = {r.step for r in runs}
    assert {"alpha", "omega"} <= steps and len(runs) == 5 * len(steps)  # the built-in steps ran too
    assert all(r.status == "done" for r in runs), [(r.step, r.last_error) for r in runs if r.status != "done"]
    app.close()


@pytest.mark.slow
@pytest.mark.subprocess
def test_notify_ready_watchdog_and_clean_sigterm(tmp_path):
    """Under systemd the daemon sends READY=1, pings WATCHDOG=1, and stops cleanly on SIGTERM."""
    config = write_config(tmp_path, [])
    seed(config, 10)
    notify_path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify_path))
    sock.settimeout(30)
    env = env_for(config, NOTIFY_SOCKET=str(notify_path), WATCHDOG_USEC="1000000")
    daemon = subprocess.Popen(cli("run"), env=env, stderr=subprocess.PIPE, text=True)
    try:
        received: list[str] = []
        while not any("WATCHDOG=1" in m for m in received):
            received.append(sock.recv(4096).decode())
        assert "READY=1" in received[0]
        status = subprocess.run(cli("status", "--json"), env=env, capture_output=True, text=True, timeout=30)
        assert json.loads(status.stdout)["daemon"]["running"] is True
        daemon.send_signal(signal.SIGTERM)
        while not any("STOPPING=1" in m for m in received):
            received.append(sock.recv(4096).decode())
        assert daemon.wait(timeout=30) == 0
    finally:
        daemon.kill()
        sock.close()
    logs = [json.loads(line) for line in daemon.stderr.read().splitlines() if line.startswith("{")]
    assert {"daemon.started", "daemon.stopped"} <= {entry["event"] for entry in logs}
    status = subprocess.run(cli("status", "--json"), env=env, capture_output=True, text=True, timeout=30)
    assert json.loads(status.stdout)["daemon"]["running"] is False


@pytest.mark.slow
@pytest.mark.subprocess
def test_second_daemon_does_not_take_a_live_lease(tmp_path):
    """While one daemon holds the lease, `run --once` of another exits 3 and does nothing."""
    config = write_config(tmp_path, [])
    seed(config, 10)
    env = env_for(config)
    app = open_app(load_settings(config, env={}))
    from stores import lease

    holder = lease.Holder(holder="otherhost:1", host="otherhost", pid=1)
    assert lease.acquire(app.engine, holder, datetime.now(timezone.utc), timedelta(minutes=5))
    second = subprocess.run(cli("run", "--once"), env=env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 3 and "lease" in second.stderr
    status = json.loads(subprocess.run(cli("status", "--json"), env=env, capture_output=True, text=True).stdout)
    maya = status["scopes"]["maya"]
    assert (maya["interactions"], maya["pending"], sum(maya["batches"].values())) == (0, 10, 0)  # nothing was done
    app.close()


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize("bad", ['batch_size = "fifty"', "plugins = [\"nowhere:steps\"]"])
def test_run_with_bad_config_exits_2(tmp_path, bad):
    """A bad configuration or plugin stops `run` with exit code 2 and a message naming it."""
    config = tmp_path / "bad.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n{bad}\n')
    result = subprocess.run(cli("run", "--once"), env=env_for(config), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert ("batch_size" in result.stderr) or ("nowhere" in result.stderr)


@pytest.mark.parametrize(
    "url, secret",
    [
        ("postgresql://user:p@ss@db/x?password=hunter2", ("p@ss", "hunter2", "ss@")),
        ("postgresql+psycopg://u:secret@h:5432/db", ("secret",)),
    ],
)
def test_database_url_is_logged_without_credentials(url, secret):
    """The URL the daemon logs at start-up carries no password, not even an unescaped one."""
    from stores.engine import printable_url as _redact

    shown = _redact(url)
    assert not any(s in shown for s in secret) and shown.startswith("postgresql")
