"""Minimal, dependency-free client for systemd's sd_notify protocol.

The daemon runs under ``Type=notify`` with ``WatchdogSec=`` (see
``systemd/consolidator.service``).  systemd hands it two things through the
environment:

* ``NOTIFY_SOCKET``: where to send state changes (``READY=1``, ``STATUS=...``,
  ``WATCHDOG=1``, ``STOPPING=1``).  The protocol is one ``AF_UNIX`` datagram of
  newline-separated ``KEY=VALUE`` assignments; the address is a filesystem path,
  or an abstract socket written ``@name`` (the ``@`` stands for a leading NUL).
* ``WATCHDOG_USEC`` (and ``WATCHDOG_PID``): how often systemd expects a
  ``WATCHDOG=1`` ping before it declares the service hung and restarts it.

Plain Python sockets are all that is needed, so this module avoids the
``systemd`` / ``sdnotify`` packages (and libsystemd) entirely.

Two rules shape the code:

* Outside systemd (a terminal, the tests, a container) ``NOTIFY_SOCKET`` is
  unset: every call is then a cheap no-op that returns ``False``.
* Notification is advisory.  If systemd's socket vanished or refuses the
  datagram, the failure is logged (``sdnotify.failed``) and swallowed: the
  daemon must never die because of its supervisor's plumbing.  (If pings really
  stop reaching systemd, the watchdog restarts us anyway, which is the right
  outcome.)
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

import structlog

__all__ = ["Notifier", "notify", "watchdog_interval"]

log = structlog.get_logger()


def _address(raw: str) -> str | bytes | None:
    """Turn a ``NOTIFY_SOCKET`` value into an ``AF_UNIX`` address, or None."""
    if raw.startswith("@"):
        # Abstract namespace: Linux wants a leading NUL byte instead of "@".
        return b"\0" + raw[1:].encode()
    if raw.startswith("/"):
        return raw
    # systemd >= 254 may also pass "vsock:CID:PORT"; not needed on a host.
    return None


def notify(message: str, *, env: Mapping[str, str] | None = None) -> bool:
    """Send one sd_notify datagram (e.g. ``"READY=1"``) to ``$NOTIFY_SOCKET``.

    Returns True when the datagram was handed to the socket, False when
    ``NOTIFY_SOCKET`` is unset/empty (not an error: we are not under systemd)
    or when sending failed (logged as ``sdnotify.failed``, never raised).
    ``env`` defaults to ``os.environ`` and is read on every call.
    """
    environ = os.environ if env is None else env
    raw = environ.get("NOTIFY_SOCKET", "")
    if not raw:
        return False
    address = _address(raw)
    if address is None:
        log.warning("sdnotify.unsupported_address", notify_socket=raw)
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message.encode(), address)
    except OSError as exc:
        log.warning(
            "sdnotify.failed",
            notify_socket=raw,
            payload=message,
            error=str(exc),
            errno=exc.errno,
        )
        return False
    return True


def watchdog_interval(*, env: Mapping[str, str] | None = None) -> float | None:
    """Seconds between ``WATCHDOG=1`` pings, or None when no watchdog applies.

    That is half of ``WATCHDOG_USEC`` (systemd's own recommendation), provided
    ``WATCHDOG_PID`` is unset or names this process: a watchdog configured for
    our parent must not be fed by us.  Missing, malformed or non-positive
    values give None.
    """
    environ = os.environ if env is None else env
    pid = environ.get("WATCHDOG_PID", "")
    if pid:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    usec = environ.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    if value <= 0:
        return None
    return value / 2 / 1_000_000


def _one_line(text: str) -> str:
    # A newline would start a new KEY=VALUE assignment in the datagram.
    return " ".join(text.splitlines())


class Notifier:
    """The daemon's handle on systemd.  Every method returns what ``notify`` does.

    ``env`` (default ``os.environ``, read at each call) exists for tests.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    @property
    def enabled(self) -> bool:
        """True when running under a ``NOTIFY_SOCKET`` (i.e. systemd is listening)."""
        environ = os.environ if self._env is None else self._env
        return bool(environ.get("NOTIFY_SOCKET"))

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between pings (half of ``WATCHDOG_USEC``), or None."""
        return watchdog_interval(env=self._env)

    def send(self, *assignments: str) -> bool:
        """Send several ``KEY=VALUE`` assignments in one datagram."""
        return notify("\n".join(assignments), env=self._env)

    def ready(self, status: str = "") -> bool:
        """Startup finished: ``READY=1`` (plus ``STATUS=`` when given)."""
        if status:
            return self.send("READY=1", f"STATUS={_one_line(status)}")
        return self.send("READY=1")

    def watchdog(self) -> bool:
        """Keep-alive ping: ``WATCHDOG=1``."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str = "") -> bool:
        """Shutdown began: ``STOPPING=1`` (plus ``STATUS=`` when given)."""
        if status:
            return self.send("STOPPING=1", f"STATUS={_one_line(status)}")
        return self.send("STOPPING=1")

    def status(self, text: str) -> bool:
        """Free-form one-line status shown by ``systemctl status``: ``STATUS=...``."""
        return self.send(f"STATUS={_one_line(text)}")
