"""Archive benchmark: the ladders bench's heavy scope over simulated years, archive off and on.

    python bench/archive.py [--years 3] [--per-day 205] [--seed 5] [--after-days 90] [--modes off,on]
                            [--no-rebuild | --rebuild-days N] [--tables]

One daily tick as in bench/ladders.py, then one idle tick (the daemon ticks every few seconds;
most find nothing to do, and those run the archive's share). Per year and mode: replay time,
hot database size (file, and pages in use: SQLite reuses freed pages rather than shrinking the
file), the mean of the pages in use over the year's last 28 days (the year-end figure depends on
where the archive's month-granular cutoff stands that day: the hot store holds 90 to 120 days,
and a one-day shift of the calendar between years can put year 1's last day just after a
month moved and year 2's just before it), mean tick time over the year's last 28 days,
archive size on disk, and with --tables MB and rows per table at each year's end. At the end, the time
`rebuild` takes over the whole history, with the archive beside (archive on) and without it.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the bench package: run as `python bench/archive.py`

from bench.ladders import START, day_messages, simulation_parser, tick_at
from bench.table_bytes import print_table_bytes, table_bytes
from consolidator.runtime.rebuild import Rebuild
from consolidator.ladders.stage import LadderStage
from consolidator.messages.archive import ArchiveStage
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.runtime import logsetup
from consolidator.core.app import open_app
from consolidator.core.config import ArchiveSettings, Settings
from stores.files.archive_files import folder_bytes
from stores.messages import append_messages

IDLE_AFTER = timedelta(minutes=5)  # the idle tick that follows each day's busy one


@dataclass
class Year:
    seconds: float
    cpu: float  # process CPU seconds: what a shared, loaded machine does not blur
    file_mb: float
    used_mb: float
    tick_ms: float
    archive_mb: float
    used_mean_mb: float  # pages in use, mean over the year's last 28 days (see `sizes`)


@dataclass
class Run:
    mode: str
    years: list[Year] = field(default_factory=list)
    rebuild_s: float = 0.0
    messages: int = 0


def sizes(db: Path) -> tuple[float, float]:
    """(file MB incl. WAL, MB of pages in use) of the SQLite database."""
    wal = db.with_name(db.name + "-wal")
    total = db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        pages, free, size = (connection.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size"))
    return total / 1e6, (pages - free) * size / 1e6


def replay(mode: str, args, root: Path) -> Run:
    after = timedelta(days=args.after_days if mode == "on" else 0)
    app = open_app(Settings(state_dir=root / mode, archive=ArchiveSettings(after=after)))
    consolidator = Consolidator(app, [], [LadderStage(app, OfflineModel())], idle=[ArchiveStage(app)])
    run, counter = Run(mode), [0]
    for year in range(args.years):
        started, cpu, ticks, used = time.perf_counter(), time.process_time(), [], []
        days = range(year * 364, (year + 1) * 364)
        for day in days:
            batch = day_messages(args.seed, day, args.per_day, counter)
            if batch:
                append_messages(app.engine, batch, batch[-1].at, archive_root=app.settings.archive_dir)
            for now in (tick_at(day), tick_at(day) + IDLE_AFTER):
                tick_started = time.perf_counter()
                consolidator.tick(now)
                if day >= days[-1] - 27:
                    ticks.append(time.perf_counter() - tick_started)
            if day >= days[-1] - 27:
                used.append(sizes(root / mode / "consolidator.db")[1])
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        file_mb, used_mb = sizes(root / mode / "consolidator.db")
        run.years.append(Year(seconds, cpu, file_mb, used_mb, 1000 * sum(ticks) / len(ticks),
                              folder_bytes(app.settings.archive_dir) / 1e6, sum(used) / len(used)))
        print(f"  {mode} year {year + 1}: {seconds:.1f} s ({cpu:.1f} s CPU)", flush=True)
        if args.tables:
            print_table_bytes(f"{mode} year {year + 1} tables (MB/rows)", table_bytes(root / mode / "consolidator.db"))
    run.messages = counter[0]
    if not args.no_rebuild:
        started = time.process_time()
        since = None if not args.rebuild_days else (START + timedelta(days=args.years * 364 - args.rebuild_days)).date()
        with Rebuild(app) as rebuild:
            rebuild.mark(OfflineModel(), since=since)
            rebuild.run(START + timedelta(days=args.years * 364 + 1))
        run.rebuild_s = time.process_time() - started
    app.close()
    return run


def main() -> None:
    logsetup.configure("warning")
    parser = simulation_parser(__doc__)
    parser.add_argument("--after-days", type=int, default=90)
    parser.add_argument("--modes", default="off,on")
    parser.add_argument("--no-rebuild", action="store_true")
    parser.add_argument("--tables", action="store_true", help="print MB and rows per table at each year's end")
    parser.add_argument("--rebuild-days", type=int, default=0, help="rebuild only the last N days (0: all history)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="consolidator-archive-") as tmp:
        runs = [replay(mode, args, Path(tmp)) for mode in args.modes.split(",")]
    print(f"archive bench: {runs[0].messages:,} messages over {args.years} years, {args.per_day}/day nominal, "
          f"archive.after {args.after_days} days")
    print(f"  {'mode':4} {'year':>4} {'replay s':>9} {'CPU s':>7} {'hot file MB':>12} {'hot used MB':>12} "
          f"{'used 28d MB':>12} {'tick ms':>8} {'archive MB':>11}")
    for run in runs:
        for number, y in enumerate(run.years, start=1):
            print(f"  {run.mode:4} {number:>4} {y.seconds:9.1f} {y.cpu:7.1f} {y.file_mb:12.1f} {y.used_mb:12.1f} "
                  f"{y.used_mean_mb:12.1f} {y.tick_ms:8.1f} "
                  f"{y.archive_mb:11.2f}")
        first, last = run.years[0], run.years[-1]
        print(f"  {run.mode}: last year's replay {100 * (last.seconds / first.seconds - 1):+.0f}% wall, "
              f"{100 * (last.cpu / first.cpu - 1):+.0f}% CPU against year 1"
              + (f"; rebuild ({'last ' + str(args.rebuild_days) + ' days' if args.rebuild_days else 'all history'}) "
                 f"{run.rebuild_s:.1f} s CPU" if run.rebuild_s else ""))


if __name__ == "__main__":
    main()
