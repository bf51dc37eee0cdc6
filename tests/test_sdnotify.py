"""sd_notify client against real AF_UNIX datagram sockets (no systemd needed)."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from consolidator.runtime import sdnotify
from consolidator.runtime.sdnotify import Notifier, notify, watchdog_interval


def _receive(sock: socket.socket) -> str:
    # The datagram was sent before we read: a non-blocking read needs no wait.
    return sock.recv(4096).decode()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def path_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    path = tmp_path / "notify.sock"
    # AF_UNIX paths are limited to 108 bytes; tmp_path normally fits.
    if len(os.fsencode(path)) >= 100:
        pytest.skip(f"tmp_path too long for an AF_UNIX socket path: {path}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


@pytest.fixture
def abstract_socket(monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    name = f"consolidator-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    yield sock
    sock.close()


def test_notify_delivers_to_path_socket(path_socket: socket.socket) -> None:
    assert notify("READY=1") is True
    assert _receive(path_socket) == "READY=1"


def test_notify_delivers_to_abstract_socket(abstract_socket: socket.socket) -> None:
    assert notify("WATCHDOG=1") is True
    assert _receive(abstract_socket) == "WATCHDOG=1"


def test_notify_without_socket_is_false_not_error() -> None:
    assert notify("READY=1") is False


def test_notify_with_empty_socket_variable_is_false(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", "")
    assert notify("READY=1") is False


def test_notify_to_vanished_socket_path_does_not_raise(
    path_socket: socket.socket, tmp_path: Path
) -> None:
    # systemd's socket file is gone altogether: ENOENT.
    path_socket.close()
    (tmp_path / "notify.sock").unlink()
    assert notify("WATCHDOG=1") is False
    assert Notifier().ready("up") is False


def test_notify_to_socket_nobody_listens_on_does_not_raise(path_socket: socket.socket) -> None:
    # The file is still there but the receiver is gone: ECONNREFUSED.
    path_socket.close()
    assert notify("STOPPING=1") is False
    assert Notifier().watchdog() is False


def test_notify_to_vanished_abstract_socket_does_not_raise(
    abstract_socket: socket.socket,
) -> None:
    abstract_socket.close()
    assert notify("READY=1") is False


def test_notify_with_unsupported_address_is_false(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", "vsock:2:1234")
    assert notify("READY=1") is False


def test_send_failure_is_logged(
    path_socket: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in for the module's structlog logger: independent of whatever
    # structlog configuration (or logger caching) other code set up.
    events: list[tuple[str, dict]] = []

    class Recorder:
        def warning(self, event: str, **kw: object) -> None:
            events.append((event, kw))

    monkeypatch.setattr(sdnotify, "log", Recorder())
    path_socket.close()
    assert notify("WATCHDOG=1") is False
    assert [e for e, _ in events] == ["sdnotify.failed"]
    assert events[0][1]["payload"] == "WATCHDOG=1"


def test_notifier_messages(path_socket: socket.socket) -> None:
    n = Notifier()
    assert n.enabled
    assert n.ready("loaded 3 stores") is True
    assert _receive(path_socket) == "READY=1\nSTATUS=loaded 3 stores"
    assert n.ready() is True
    assert _receive(path_socket) == "READY=1"
    assert n.watchdog() is True
    assert _receive(path_socket) == "WATCHDOG=1"
    assert n.status("consolidating batch 7") is True
    assert _receive(path_socket) == "STATUS=consolidating batch 7"
    assert n.stopping() is True
    assert _receive(path_socket) == "STOPPING=1"
    assert n.stopping("draining") is True
    assert _receive(path_socket) == "STOPPING=1\nSTATUS=draining"


def test_notifier_status_is_kept_on_one_line(path_socket: socket.socket) -> None:
    # A newline would smuggle in another assignment (e.g. READY=1).
    assert Notifier().status("line one\nREADY=1") is True
    assert _receive(path_socket) == "STATUS=line one READY=1"


def test_notifier_without_socket_is_a_no_op() -> None:
    n = Notifier()
    assert not n.enabled
    assert n.ready("x") is False
    assert n.watchdog() is False
    assert n.stopping() is False
    assert n.status("x") is False
    assert n.watchdog_interval is None


def test_notifier_with_explicit_env(path_socket: socket.socket, tmp_path: Path) -> None:
    env = {"NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "2000000"}
    n = Notifier(env=env)
    assert n.watchdog_interval == 1.0
    assert n.watchdog() is True
    assert _receive(path_socket) == "WATCHDOG=1"


def test_watchdog_interval_is_half_of_watchdog_usec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "60000000")
    assert watchdog_interval() == 30.0
    assert Notifier().watchdog_interval == 30.0


def test_watchdog_interval_for_this_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 0.5


def test_watchdog_interval_for_another_pid_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "60000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert watchdog_interval() is None


def test_watchdog_interval_unset_is_none() -> None:
    assert watchdog_interval() is None


@pytest.mark.parametrize("value", ["", "abc", "0", "-5", "1.5"])
def test_watchdog_interval_bad_values_are_none(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", value)
    assert watchdog_interval() is None


def test_watchdog_interval_bad_pid_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "60000000")
    monkeypatch.setenv("WATCHDOG_PID", "not-a-pid")
    assert watchdog_interval() is None
