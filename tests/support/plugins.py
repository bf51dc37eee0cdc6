"""Batch steps used by the tests, registered through the `plugins` config key.

`RecordingStep` writes one row per batch into its own table inside the ledger transaction,
so a test can check on the step's own writes that every batch was applied exactly once.
`FlakyStep` fails its first attempts. `KillingStep` SIGKILLs its own process in the middle
of `apply` (after writing, before the commit) once, for the crash tests.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from sqlalchemy import text

EFFECTS_DDL = (
    "CREATE TABLE IF NOT EXISTS test_effect ("
    " batch_id INTEGER NOT NULL, step VARCHAR(64) NOT NULL, scope VARCHAR(128) NOT NULL,"
    " messages INTEGER NOT NULL)"
)


class RecordingStep:
    def __init__(self, name: str = "record") -> None:
        self.name = name
        self.prepared = 0

    def prepare(self, work):
        self.prepared += 1
        return len(work.messages)

    def apply(self, session, work, prepared) -> None:
        session.execute(text(EFFECTS_DDL))
        session.execute(
            text("INSERT INTO test_effect (batch_id, step, scope, messages) VALUES (:b, :s, :scope, :n)"),
            {"b": work.batch_id, "s": self.name, "scope": work.scope, "n": prepared},
        )


class FlakyStep(RecordingStep):
    """Fails the first `failures` times `prepare` is called."""

    def __init__(self, name: str = "flaky", failures: int = 2) -> None:
        super().__init__(name)
        self.failures = failures
        self.calls = 0

    def prepare(self, work):
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"flaky failure {self.calls}")
        return super().prepare(work)


class KillingStep(RecordingStep):
    """SIGKILLs the process while applying batch $CONSOLIDATOR_TEST_KILL_BATCH, once."""

    def apply(self, session, work, prepared) -> None:
        super().apply(session, work, prepared)
        marker = Path(os.environ["CONSOLIDATOR_TEST_MARKER"])
        if work.number == int(os.environ.get("CONSOLIDATOR_TEST_KILL_BATCH", "0")) and not marker.exists():
            marker.write_text("killed")
            session.flush()
            os.kill(os.getpid(), signal.SIGKILL)


def crash_steps(context):
    """Plugin factory for the crash test: a plain step beside one that kills the process."""
    return [RecordingStep("alpha"), KillingStep("omega")]


def stuck_steps(context):
    """Plugin factory: a step that never succeeds (for a plugin later removed from the config)."""
    return [FlakyStep("stuck", failures=10**9)]


def effects(engine) -> list[tuple[int, str]]:
    with engine.connect() as conn:
        conn.execute(text(EFFECTS_DDL))
        return [(row[0], row[1]) for row in conn.execute(text("SELECT batch_id, step FROM test_effect"))]


def failing_steps(context):
    """Plugin factory for `run --once`'s exit code: a step that fails every attempt."""
    return [FlakyStep("broken", failures=1_000_000)]


class KillOnceStep(RecordingStep):
    """SIGKILLs whichever process (of several daemons) first applies a batch numbered
    $CONSOLIDATOR_TEST_KILL_BATCH, after writing, before the commit; the marker is created
    with O_EXCL, so exactly one process dies however many race for it."""

    def apply(self, session, work, prepared) -> None:
        super().apply(session, work, prepared)
        if work.number != int(os.environ.get("CONSOLIDATOR_TEST_KILL_BATCH", "0")):
            return
        try:
            fd = os.open(os.environ["CONSOLIDATOR_TEST_MARKER"], os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        session.flush()
        os.kill(os.getpid(), signal.SIGKILL)


def shared_crash_steps(context):
    """Plugin factory for the several-daemons test: a plain step beside one that kills one daemon once."""
    return [RecordingStep("alpha"), KillOnceStep("omega")]
