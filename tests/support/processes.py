"""Child processes of a test or bench (daemons started with subprocess.Popen)."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterable


def stop_all(procs: Iterable[subprocess.Popen], timeout: float = 30) -> None:
    """SIGTERM every process still running, then wait for each; one that outlives `timeout` is killed."""
    procs = list(procs)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
