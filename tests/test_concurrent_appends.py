"""Concurrent appends: writer processes racing on one scope keep seq dense and idempotency
exact, and no writer ever sees an error.

PostgreSQL does not serialise writers the way SQLite's BEGIN IMMEDIATE does, so these are
the tests that fail there with `max(seq) + 1` (a UniqueViolation on (scope, seq)) or with a
read-then-insert idempotency check (a primary-key violation). The PostgreSQL cases run when
CONSOLIDATOR_TEST_DATABASE_URLS names a PostgreSQL database (`.ci/run` starts one), and are
skipped otherwise; SQLite's 4 x 5,000 is tests/test_concurrency.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from stores.engine import make_engine, reading
from stores.schema.log import Message
from tests.support.postgres_kit import fresh, pg_url, postgres_url  # noqa: F401  (pg_url is a fixture)

WRITERS = 4
PER_WRITER = 5_000
SCOPE = "one-scope"

WRITER = r"""
import json, sys, traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path
from consolidator import MessageLog
from consolidator.core.config import Settings

url, state_dir, writer, count, ids = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
errors, new = [], 0
log = MessageLog(settings=Settings(state_dir=Path(state_dir), database_url=url))
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    try:
        if ids == "shared":  # every writer logs the same ids: all but one of each are duplicates
            result = log.extend([{"scope": "one-scope", "role": "user", "text": f"message {i}.{k}", "id": f"m{i}.{k}",
                                  "at": (t0 + timedelta(seconds=i)).isoformat()} for k in range(10)])
            new += result.added
        else:
            log.append(scope="one-scope", role="user", text=f"writer {writer} message {i}",
                       at=t0 + timedelta(seconds=i), speaker=f"w{writer}")
            new += 1
    except Exception:
        errors.append(traceback.format_exc())
log.close()
print(json.dumps({"errors": errors[:3], "error_count": len(errors), "added": new}), flush=True)
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """SQLite in a temporary file, then PostgreSQL when a URL is set."""
    if request.param == "sqlite":
        yield from fresh(f"sqlite:///{tmp_path / 'race.db'}")
        return
    url = postgres_url()
    if url is None:
        pytest.skip("no PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS")
    yield from fresh(url)


def race(url: str, tmp_path: Path, count: int, ids: str) -> list[dict]:
    """Start WRITERS writer processes, release them together, and collect what each saw."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    procs = []
    for w in range(WRITERS):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, url, str(tmp_path / f"state{w}"), str(w), str(count), ids],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, cwd=env["PYTHONPATH"])
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        procs.append(proc)
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    return results


def stored_seqs(url: str) -> list[int]:
    engine = make_engine(url)
    try:
        with reading(engine) as session:
            return list(session.execute(select(Message.seq).where(Message.scope == SCOPE).order_by(Message.seq)).scalars())
    finally:
        engine.dispose()


@pytest.mark.slow
def test_four_processes_append_twenty_thousand_to_one_scope(pg_url: str, tmp_path: Path) -> None:
    """4 processes x 5,000 appends to one scope: exactly 20,000 messages, seq dense 1..20,000, no writer saw an error."""
    started = time.perf_counter()
    results = race(pg_url, tmp_path, PER_WRITER, "own")
    print(f"{WRITERS} x {PER_WRITER} appends to one scope on PostgreSQL: {time.perf_counter() - started:.1f} s")
    assert [r["error_count"] for r in results] == [0] * WRITERS, [r["errors"] for r in results]
    assert stored_seqs(pg_url) == list(range(1, WRITERS * PER_WRITER + 1))


@pytest.mark.slow
def test_concurrent_duplicates_are_skipped_not_errors(any_url: str, tmp_path: Path) -> None:
    """4 processes logging the same 2,000 ids at once: each id stored once, seq dense, every duplicate a skip."""
    batches = 200  # of 10 ids each
    results = race(any_url, tmp_path, batches, "shared")
    assert [r["error_count"] for r in results] == [0] * WRITERS, [r["errors"] for r in results]
    assert sum(r["added"] for r in results) == batches * 10
    assert stored_seqs(any_url) == list(range(1, batches * 10 + 1))
    engine = make_engine(any_url)
    try:
        with reading(engine) as session:
            assert session.execute(select(func.count(func.distinct(Message.id)))).scalar_one() == batches * 10
    finally:
        engine.dispose()
