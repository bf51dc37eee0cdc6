"""Four processes making their first import into one empty database at once all succeed: creating
the schema (and every upgrade) runs under a lock, PostgreSQL's advisory lock or SQLite's write lock.

The PostgreSQL rounds are skipped without a URL in CONSOLIDATOR_TEST_DATABASE_URLS (.ci/run sets one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PG = [u for u in os.environ.get("CONSOLIDATOR_TEST_DATABASE_URLS", "").split() if u.startswith("postgresql")]
PROCESSES = 4
pytestmark = pytest.mark.slow

# Imports everything first, says it is ready, waits for "go" on stdin, then runs `consolidator import`.
CHILD = """
import sys
from consolidator.cli.main import cli
print("ready", flush=True)
sys.stdin.readline()
cli.main(["--config", sys.argv[1], "import", sys.argv[2]], prog_name="consolidator")
"""


def race(tmp_path: Path, url: str, round_no: int) -> list[subprocess.CompletedProcess]:
    """Start PROCESSES imports into `url`, release them together, and collect them."""
    config = tmp_path / f"config-{round_no}.toml"
    config.write_text(f'state_dir = "{tmp_path / f"state-{round_no}"}"\ndatabase_url = "{url}"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONSOLIDATOR_")}
    children = []
    for n in range(PROCESSES):
        lines = tmp_path / f"import-{round_no}-{n}.jsonl"
        lines.write_text("".join(json.dumps({"scope": f"user-{n}", "role": "user", "at": f"2025-01-0{1 + i}T10:00:00Z",
                                             "text": f"message {i} of process {n}"}) + "\n" for i in range(3)),
                         encoding="utf-8")
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(config), str(lines)], cwd=ROOT, env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        children.append(child)
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    done = []
    for child in children:
        out, err = child.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(child.args, child.returncode, out, err))
    return done


@pytest.mark.slow
@pytest.mark.skipif(not PG, reason="needs a PostgreSQL URL in CONSOLIDATOR_TEST_DATABASE_URLS")
def test_four_first_imports_into_an_empty_postgresql_database_all_succeed(tmp_path: Path) -> None:
    """Ten rounds, each on a new empty database: every process imports its lines, none sees a traceback."""
    from tests.support.pg_databases import drop_database, fresh_database

    for round_no in range(10):
        name = f"first_import_race_{os.getpid()}_{round_no}"
        url = fresh_database(PG[0], name)
        try:
            results = race(tmp_path, url, round_no)
        finally:
            drop_database(PG[0], name)
        for result in results:
            assert result.returncode == 0, (round_no, result.stderr[-2000:])
            assert "Traceback" not in result.stderr and "added 3" in result.stdout, (round_no, result.stdout)


@pytest.mark.slow
def test_four_first_imports_into_an_empty_sqlite_database_all_succeed(tmp_path: Path) -> None:
    """The same race on the embedded database: one new file, four processes, every import whole."""
    for round_no in range(3):
        results = race(tmp_path, f"sqlite:///{tmp_path / f'race-{round_no}.db'}", round_no)
        for result in results:
            assert result.returncode == 0 and "Traceback" not in result.stderr, (round_no, result.stderr[-2000:])
            assert "added 3" in result.stdout, (round_no, result.stdout)
