"""Several daemons on one PostgreSQL database: the scopes are shared, a SIGKILLed daemon's work is
taken over, and the result is exactly what one daemon makes of the same log.

Skipped without a PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS (.ci/run sets one).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from consolidator.core.app import open_app
from consolidator.core.config import load_settings
from stores.messages import NewMessage, append_messages
from tests.support.pg_databases import drop_database, fresh_database
from tests.support.plugins import effects
from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[1]
# Three days ending before today: the ladders span a few days (an idle stretch up to now would
# cost one announced day per day, which is not what this test measures).
T0 = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=3)
SCOPES, PER_SCOPE, BATCH = 50, 12, 5  # three batches per scope (two full, one flushed tail)
BATCHES = SCOPES * 3
PG = [u for u in os.environ.get("CONSOLIDATOR_TEST_DATABASE_URLS", "").split() if u.startswith("postgresql")]

pytestmark = pytest.mark.skipif(not PG, reason="needs a PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS")


def write_config(path: Path, url: str, state: Path) -> Path:
    path.write_text(
        f'state_dir = "{state}"\ndatabase_url = "{url}"\nbatch_size = {BATCH}\n'
        'plugins = ["tests.support.plugins:shared_crash_steps"]\n'
        '[daemon]\ntick_interval = "0.2s"\nlease_ttl = "3s"\n'
    )
    return path


def seed(config: Path) -> None:
    app = open_app(load_settings(config, env={}))
    for n in range(SCOPES):
        scope = f"user-{n:02d}"
        said = [NewMessage(scope, T0 + timedelta(hours=1 + 5 * i), "user", f"{scope} says: I moved to city {i} and like tea {n}.")
                for i in range(PER_SCOPE)]
        append_messages(app.engine, said, T0)
    effects(app.engine)  # the test steps' table, created once before the daemons race to
    app.close()


def env_for(config: Path, marker: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLIDATOR_", "NOTIFY_", "WATCHDOG_"))}
    env.pop("ANTHROPIC_API_KEY", None)
    env.update(CONSOLIDATOR_CONFIG=str(config), PYTHONPATH=str(ROOT), CONSOLIDATOR_TEST_KILL_BATCH="2",
               CONSOLIDATOR_TEST_MARKER=str(marker))
    return env


def scalar(url: str, sql: str):
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).scalar_one()
    finally:
        engine.dispose()


def rows(url: str, sql: str) -> list[tuple]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]
    finally:
        engine.dispose()


def drained(url: str) -> bool:
    return (scalar(url, "SELECT count(*) FROM batch") == BATCHES
            and scalar(url, "SELECT count(*) FROM step_run WHERE status <> 'done'") == 0
            and scalar(url, "SELECT count(*) FROM due_scope WHERE due_at <= (now() AT TIME ZONE 'utc') OR holder IS NOT NULL") == 0)


SUMMARIES = "SELECT scope, ladder, rung, key, version, kind, text FROM summary ORDER BY 1, 2, 3, 4, 5"


@pytest.mark.slow
@pytest.mark.subprocess
def test_three_daemons_share_50_scopes_survive_a_sigkill_and_match_one_daemon(tmp_path):
    """3 daemons drain 50 scopes, one SIGKILLed inside a step: every step applied once per batch,
    one current version per window, and the same summaries and facts as one daemon's drain."""
    base = PG[0]
    tag = f"claims_{os.getpid()}"
    shared_url, single_url = fresh_database(base, f"{tag}_many"), fresh_database(base, f"{tag}_one")
    marker = tmp_path / "killed"
    try:
        shared = write_config(tmp_path / "many.toml", shared_url, tmp_path / "many")
        seed(shared)
        env = env_for(shared, marker)
        logs = [open(tmp_path / f"daemon{i}.log", "w") for i in range(3)]  # a pipe nobody reads would block them
        daemons = [subprocess.Popen([sys.executable, "-m", "consolidator", "run"], env=env,
                                    stdout=logs[i], stderr=subprocess.STDOUT) for i in range(3)]
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not (marker.exists() and drained(shared_url)):
                time.sleep(0.5)
            codes = [d.poll() for d in daemons]
        finally:
            stop_all(daemons)
            for f in logs:
                f.close()
        assert marker.exists(), "no daemon reached the killing step"
        assert codes.count(-signal.SIGKILL) == 1 and codes.count(None) == 2, codes
        assert drained(shared_url), "the two surviving daemons did not finish the killed one's work"

        # exactly once: the ledger and the test steps' own rows
        assert scalar(shared_url, "SELECT count(*) FROM step_run") == BATCHES * 5  # contacts, facts, tasks, alpha, omega
        applied = Counter(rows(shared_url, "SELECT b.scope, b.number, e.step FROM test_effect e JOIN batch b ON b.id = e.batch_id"))
        assert len(applied) == BATCHES * 2 and set(applied.values()) == {1}

        single = write_config(tmp_path / "one.toml", single_url, tmp_path / "one")
        seed(single)
        once = subprocess.run([sys.executable, "-m", "consolidator", "run", "--once"], env=env_for(single, marker),
                              capture_output=True, text=True, timeout=300)
        assert once.returncode == 0, once.stderr[-2000:]
        assert drained(single_url)

        many_summaries, one_summaries = rows(shared_url, SUMMARIES), rows(single_url, SUMMARIES)
        assert many_summaries and many_summaries == one_summaries
        versions: dict[tuple, list[int]] = {}
        for scope, ladder, rung, key, version, *_ in many_summaries:
            versions.setdefault((scope, ladder, rung, key), []).append(version)
        assert all(v == list(range(1, len(v) + 1)) for v in versions.values())  # one current version each
        assert {ladder for _, ladder, *_ in versions} == {"time", "count"}
        facts = "SELECT scope, text FROM fact WHERE valid_to IS NULL ORDER BY 1, 2"
        assert rows(shared_url, facts) == rows(single_url, facts)
    finally:
        drop_database(base, f"{tag}_many")
        drop_database(base, f"{tag}_one")
