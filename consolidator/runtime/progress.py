"""Whether the daemon's work is moving: what the systemd watchdog ping is conditioned on.

The heartbeat thread pings WATCHDOG=1 on a timer; pinging unconditionally would keep a daemon
whose tick is stuck alive forever. So the tick beats after every unit of work (a batch step,
a summary written, a stage finished) and the heartbeat pings only while the last beat of a
running tick is recent. A long drain keeps beating, so it is never mistaken for a hang.
"""

from __future__ import annotations

import threading
import time
from typing import Callable


class Progress:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._last = clock()
        self._busy = False

    def start(self) -> None:
        with self._lock:
            self._busy, self._last = True, self._clock()

    def beat(self) -> None:
        with self._lock:
            self._last = self._clock()

    def stop(self) -> None:
        with self._lock:
            self._busy, self._last = False, self._clock()

    def stalled(self, limit_s: float) -> bool:
        """A tick is running and has not beaten for more than `limit_s` seconds."""
        with self._lock:
            return self._busy and self._clock() - self._last > limit_s
