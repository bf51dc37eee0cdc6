"""The archive from the command line: archive, forget, export/import round trips, and kill -9 mid-run."""

from __future__ import annotations

import pytest

import json
import os
import random
import signal
import subprocess
import sys
import shutil
import time
from pathlib import Path

import duckdb
from click.testing import CliRunner

from consolidator.cli.main import cli
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from stores.files.archive_files import scope_folder
from tests.support.archive_kit import all_rows, consolidated, hot_ids, summaries

DAYS = 40  # logged in January and February 2025: older than archive.after (90 days) by the real clock


@pytest.mark.slow
def test_archive_says_what_it_moved_and_forget_removes_the_scope_s_files(app, run_cli) -> None:
    """`archive --json` reports the moved messages; `forget` removes the archive folder and says so."""
    consolidated(app, "maya", DAYS)
    consolidated(app, "ben", DAYS)
    dry = json.loads(run_cli("archive", "--dry-run", "--json").output)
    moved = json.loads(run_cli("archive", "--json").output)
    assert dry["messages"] == moved["messages"] == 2 * (DAYS * 8 - 1)  # each scope's newest message stays
    assert set(moved["scopes"]) == {"maya", "ben"} and moved["scopes"]["maya"]["months"] == ["2025-01", "2025-02"]
    folder = scope_folder(app.settings.archive_dir, "maya")
    files = list(folder.rglob("*.parquet"))
    assert len([p for p in files if "summaries" not in p.parts]) == 2  # one a month; old summaries beside them
    assert moved["summaries"] > 0 and len(files) > 2
    result = run_cli("forget", "--scope", "maya", "--yes")
    assert f"archive folder removed ({len(files)} files)" in result.output
    assert not folder.exists()
    assert not [p for p in app.settings.archive_dir.rglob("*") if "maya" in p.name]
    assert len(all_rows(app, "ben")) == DAYS * 8


@pytest.mark.slow
def test_export_then_import_into_a_fresh_state_gives_the_same_log(app, run_cli, tmp_path) -> None:
    """The export of an archived scope equals its export before archiving, and importing it elsewhere
    gives the same log (ids, order, times, fields); re-importing adds nothing."""
    consolidated(app, "maya", DAYS)
    before = run_cli("export", "--scope", "maya").stdout
    run_cli("archive")
    assert len(hot_ids(app)) == 1
    after = run_cli("export", "--scope", "maya").stdout
    assert after == before and len(after.splitlines()) == DAYS * 8
    fresh = {**os.environ, "CONSOLIDATOR_STATE_DIR": str(tmp_path / "fresh")}
    runner = CliRunner()
    (tmp_path / "log.jsonl").write_text(after, encoding="utf-8")
    assert runner.invoke(cli, ["import", str(tmp_path / "log.jsonl")], env=fresh).exit_code == 0
    assert runner.invoke(cli, ["export", "--scope", "maya"], env=fresh).stdout == before
    again = runner.invoke(cli, ["import", "--json", str(tmp_path / "log.jsonl")], env=fresh, catch_exceptions=False)
    assert json.loads(again.stdout)["added"] == 0
    assert json.loads(run_cli("import", "--json", str(tmp_path / "log.jsonl")).stdout)["added"] == 0  # archived ids too


@pytest.mark.slow
def test_parquet_export_and_date_bounds(app, run_cli, tmp_path) -> None:
    """--format parquet holds the same records as JSON lines; --since/--until keep those local days."""
    consolidated(app, "maya", DAYS)
    run_cli("archive")
    lines = [json.loads(x) for x in run_cli("export", "--scope", "maya", "--since", "2025-01-10",
                                             "--until", "2025-01-11").stdout.splitlines()]
    assert {x["at"][:10] for x in lines} == {"2025-01-10", "2025-01-11"} and len(lines) == 16
    out = tmp_path / "maya.parquet"
    run_cli("export", "--scope", "maya", "--format", "parquet", "--out", str(out))
    with duckdb.connect() as connection:
        rows = connection.execute(f"SELECT id, text FROM read_parquet('{out}')").fetchall()
    everything = [json.loads(x) for x in run_cli("export", "--scope", "maya").stdout.splitlines()]
    assert rows == [(x.get("id"), x["text"]) for x in everything]


def _run(command: list[str], state: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env={**os.environ, "CONSOLIDATOR_STATE_DIR": str(state)}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - started


def _placed(state: Path, scopes: tuple[str, ...]) -> tuple[dict[str, list[str]], list[Path]]:
    """Each scope's ids over hot store and finished files (sorted), every summary version over both
    (a summary in two places fails `summaries`), and the archive's leftover files."""
    app = open_app(Settings(state_dir=state))
    try:
        ids = {scope: sorted(r[0] for r in all_rows(app, scope)) for scope in scopes}
        ids["summaries"] = sorted(summaries(app))
        root = app.settings.archive_dir
        leftovers = list(root.rglob("*.tmp")) + [p for p in root.rglob("*.parquet")
                                                 if not _recorded(app, str(p.relative_to(root)))]
    finally:
        app.close()
    return ids, leftovers


def _recorded(app, path: str) -> bool:
    from sqlalchemy import select

    from stores.schema.archive import ArchiveFile
    from stores.engine import reading
    from stores.schema.archive import SummaryArchiveFile

    with reading(app.engine) as session:
        states = [session.execute(select(table.state).where(table.path == path)).scalar()
                  for table in (ArchiveFile, SummaryArchiveFile)]
    return "done" in states


@pytest.mark.slow
@pytest.mark.subprocess
def test_ten_kills_mid_archive_lose_and_double_nothing(app, state_dir, tmp_path) -> None:
    """Ten `consolidator archive` runs, each SIGKILLed at a random moment of its work (from the same
    starting state): after each kill every message and every summary version is in exactly one
    place (hot, or a finished file), and a rerun completes, leaving every message but each scope's
    newest archived once, and old summaries archived beside them."""
    scopes = ("maya", "ben", "ana")
    for scope in scopes:
        consolidated(app, scope, DAYS)
    app.close()
    expected, _ = _placed(state_dir, scopes)
    command = [sys.executable, "-m", "consolidator", "archive"]
    probe = tmp_path / "probe"
    shutil.copytree(state_dir, probe)
    startup, full = _run(command + ["--dry-run"], probe), _run(command, probe)
    rng = random.Random(12)
    killed = midway = 0
    for trial in range(10):
        state = tmp_path / f"trial{trial}"
        shutil.copytree(state_dir, state)
        process = subprocess.Popen(command, env={**os.environ, "CONSOLIDATOR_STATE_DIR": str(state)},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.8 * startup, full))
        process.send_signal(signal.SIGKILL)
        process.wait()
        ids, leftovers = _placed(state, scopes)
        assert ids == expected, f"trial {trial}"
        killed += process.returncode == -signal.SIGKILL  # not already finished
        midway += bool(leftovers)  # a temporary or unrecorded file: killed inside a file's protocol
        _run(command, state)
        ids, leftovers = _placed(state, scopes)
        assert ids == expected and leftovers == []
        with duckdb.connect() as connection:
            files = f"{state}/archive/*/*/*.parquet"
            archived = connection.execute(f"SELECT count(*), count(DISTINCT id) FROM read_parquet('{files}')").fetchall()[0]
        assert archived == (len(scopes) * (DAYS * 8 - 1),) * 2
        assert len(list((state / "archive").glob("*/summaries/*/*.parquet"))) >= len(scopes)
    print(f"kills: {killed} of 10 before the run ended, {midway} inside a file's write-record-delete protocol")


def test_export_of_an_empty_span_is_refused(app, run_cli) -> None:
    """--since after --until exported 0 messages with exit 0: a typo read as an empty history."""
    run_cli("log", "--scope", "maya", "--role", "user", "--at", "2025-01-10T10:00:00+00:00", "Hello.")
    result = run_cli("export", "--scope", "maya", "--since", "2025-01-12", "--until", "2025-01-10")
    assert result.exit_code == 2 and "--since 2025-01-12 is after --until 2025-01-10" in result.stderr
    assert result.stdout == ""
