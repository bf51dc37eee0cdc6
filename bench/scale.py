"""Scale benchmark: several daemons sharing PostgreSQL, idle ticks, and rows written per idle day.

    python bench/scale.py --pg postgresql+psycopg://postgres@127.0.0.1:5432/postgres [--json]
        [--parts abc] [--scopes 50] [--latency 0.2] [--daemons 1,2,4] [--idle-sizes 10,10000]

(a) 1, 2 and 4 `consolidator run` processes drain the same log of `--scopes` small scopes on
    PostgreSQL (a fresh database each), the model being the local fake Messages API
    (tests/support/fake_anthropic.py) answering every call after `--latency` seconds: the daemons are
    started first and the log is appended once every one holds its lease (start-up, a few
    seconds of imports and the embedding model per process, is reported apart); wall time from
    the append until every batch's steps are done and no scope is due, and the speed-up over
    one daemon; the daemons' CPU seconds over the drain and the whole machine's (the database
    server and this script included: on a machine shared with other work, that shows it).
(b) a tick with nothing due over 10 and 10,000 scopes, on SQLite and on PostgreSQL: SQL
    statements (counted with a before_cursor_execute listener) and milliseconds per tick.
    Every scope has its queue row, due at its next day close, as a drain leaves it. Also the
    time `status` takes over those scopes.
(c) rows written per idle scope per day: scopes with one day of messages, drained, then
    ticked at each of the next days' closes; rows added to every table, per scope per day.
Needs the repository root on PYTHONPATH (the fake API lives in tests/).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import create_engine, event, text
from sqlmodel import SQLModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support: run as `python bench/scale.py`

from consolidator.model.offline import OfflineModel
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.status import gather
from consolidator.runtime.wiring import build_consolidator
from stores.engine import transaction
from stores.messages import NewMessage, append_messages
from tests.support.pg_databases import drop_database, fresh_database  # noqa: E402 (the root is on sys.path above)
from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-ant-bench"
DAY = timedelta(days=1)


# --- databases ------------------------------------------------------------------------------

def scalar(engine, sql: str):
    with engine.connect() as conn:
        return conn.execute(text(sql)).scalar_one()


# --- (a) several daemons --------------------------------------------------------------------

def small_log(scopes: int, per_scope: int, start: datetime) -> list[NewMessage]:
    return [
        NewMessage(f"user-{n:03d}", start + timedelta(hours=1 + 5 * i), "user",
                   f"I moved to city {i} last week and my sister {n} likes tea.")
        for n in range(scopes) for i in range(per_scope)
    ]


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a live process (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float | None:
    """CPU seconds all cores of this machine spent busy since boot (Linux /proc/stat; None elsewhere):
    the drain's share of it includes the database server's work, which a daemon's own CPU does not."""
    try:
        cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(v) for v in cpu]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


def daemons_drain(base: str, daemons: int, scopes: int, per_scope: int, batch: int, fake_url: str, work: Path) -> dict:
    name = f"scale_a_{daemons}"
    url = fresh_database(base, name)
    try:
        state = work / name
        config = work / f"{name}.toml"
        config.write_text(
            f'state_dir = "{state}"\ndatabase_url = "{url}"\nbatch_size = {batch}\n'
            f'[model]\nprovider = "anthropic"\nbase_url = "{fake_url}"\ntimeout_s = 30\nmax_retries = 2\n'
            '[daemon]\ntick_interval = "0.2s"\nlease_ttl = "10s"\n'
        )
        app = open_app(Settings(state_dir=state, database_url=url, batch_size=batch))
        start = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=3)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLIDATOR_", "NOTIFY_", "WATCHDOG_"))}
        env.update(CONSOLIDATOR_CONFIG=str(config), ANTHROPIC_API_KEY=KEY, PYTHONPATH=str(ROOT))
        engine = create_engine(url)
        expected = scopes * -(-per_scope // batch)
        launched = time.monotonic()
        procs = [subprocess.Popen([sys.executable, "-m", "consolidator", "run"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(daemons)]
        try:
            # The daemons start on an empty log (imports, the embedding model, the lease) and the
            # log then arrives while they run, as in a deployment: the drain is timed from there.
            while scalar(engine, "SELECT count(*) FROM lease WHERE name LIKE 'daemon:%'") < daemons:
                time.sleep(0.1)
                if time.monotonic() - launched > 300:
                    raise TimeoutError(f"{daemons} daemons did not start in 5 minutes")
            startup = time.monotonic() - launched
            cpu_before = [process_cpu_s(p.pid) for p in procs]
            busy_before = machine_busy_s()
            began = time.monotonic()
            append_messages(app.engine, small_log(scopes, per_scope, start), start)
            app.close()
            while True:
                time.sleep(0.25)
                if (scalar(engine, "SELECT count(*) FROM batch") == expected
                        and scalar(engine, "SELECT count(*) FROM step_run WHERE status <> 'done'") == 0
                        and scalar(engine, "SELECT count(*) FROM due_scope WHERE holder IS NOT NULL"
                                           " OR due_at <= (now() AT TIME ZONE 'utc')") == 0):
                    break
                if time.monotonic() - began > 1800:
                    raise TimeoutError(f"{daemons} daemons did not drain in 30 minutes")
            wall = time.monotonic() - began
            busy = machine_busy_s()
            cpu_after = [process_cpu_s(p.pid) for p in procs]
            known = [(a, b) for a, b in zip(cpu_after, cpu_before) if a is not None and b is not None]
            daemon_cpu = round(sum(a - b for a, b in known), 2) if known else None
            machine_cpu = round(busy - busy_before, 2) if busy is not None and busy_before is not None else None
            summaries = scalar(engine, "SELECT count(*) FROM summary")
            calls = scalar(engine, "SELECT count(*) FROM model_call")
        finally:
            stop_all(procs)
            engine.dispose()
        return {"daemons": daemons, "wall_s": round(wall, 2), "startup_s": round(startup, 2), "batches": expected,
                "summaries": summaries,
                "model_calls": calls, "daemon_cpu_s": daemon_cpu, "machine_cpu_s": machine_cpu}
    finally:
        drop_database(base, name)


def part_a(base: str, counts: list[int], scopes: int, per_scope: int, batch: int, latency: float) -> dict:
    sys.path.insert(0, str(ROOT))
    from tests.support.fake_anthropic import FakeAnthropic  # the local Messages API (a test helper)

    runs = []
    with FakeAnthropic(api_key=KEY, latency_s=latency) as fake, tempfile.TemporaryDirectory() as work:
        for n in counts:
            runs.append(daemons_drain(base, n, scopes, per_scope, batch, fake.url, Path(work)))
            print(f"(a) {n} daemon(s): {runs[-1]['wall_s']} s to drain (started in {runs[-1]['startup_s']} s; "
                  f"daemons' CPU {runs[-1]['daemon_cpu_s']} s, machine busy {runs[-1]['machine_cpu_s']} s)",
                  file=sys.stderr)
    one = next((r["wall_s"] for r in runs if r["daemons"] == 1), None)
    for r in runs:
        r["speedup"] = round(one / r["wall_s"], 2) if one else None
    return {"scopes": scopes, "messages_per_scope": per_scope, "latency_s": latency, "runs": runs}


# --- (b) idle ticks -------------------------------------------------------------------------

def idle_ticks(url: str, state: Path, scopes: int, ticks: int = 5) -> dict:
    app = open_app(Settings(state_dir=state, database_url=url))
    try:
        t0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
        for first in range(0, scopes, 5000):
            messages = [NewMessage(f"scope-{i:05d}", t0, "user", "hello") for i in range(first, min(scopes, first + 5000))]
            append_messages(app.engine, messages, t0)
        with transaction(app.engine) as session:  # as a drain leaves them: due at the next day close
            session.execute(text("UPDATE due_scope SET due_at = :at"), {"at": t0.replace(tzinfo=None) + DAY})
        daemon = build_consolidator(app, model=OfflineModel())
        daemon.tick(t0 + timedelta(hours=1))  # a daemon's first tick also marks scopes without a row
        counts, millis = [], []
        seen: list[str] = []
        listener = lambda *args: seen.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
        event.listen(app.engine, "before_cursor_execute", listener)
        try:
            for k in range(ticks):
                seen.clear()
                began = time.perf_counter()
                daemon.tick(t0 + timedelta(hours=2, minutes=k))
                millis.append((time.perf_counter() - began) * 1000)
                counts.append(len([s for s in seen if not s.lstrip().upper().startswith(("BEGIN", "PRAGMA"))]))
        finally:
            event.remove(app.engine, "before_cursor_execute", listener)
        began = time.perf_counter()
        gather(app, t0 + timedelta(hours=3))
        status_ms = (time.perf_counter() - began) * 1000
        return {"scopes": scopes, "statements": max(counts), "ms_median": round(statistics.median(millis), 2),
                "status_ms": round(status_ms, 1)}
    finally:
        app.close()


def part_b(base: str | None, sizes: list[int]) -> dict:
    out: dict[str, list] = {"sqlite": []}
    with tempfile.TemporaryDirectory() as work:
        for n in sizes:
            out["sqlite"].append(idle_ticks("", Path(work) / f"sqlite{n}", n))
            print(f"(b) sqlite {n}: {out['sqlite'][-1]}", file=sys.stderr)
        if base:
            out["postgresql"] = []
            for n in sizes:
                name = f"scale_b_{n}"
                url = fresh_database(base, name)
                try:
                    out["postgresql"].append(idle_ticks(url, Path(work) / f"pg{n}", n))
                finally:
                    drop_database(base, name)
                print(f"(b) postgresql {n}: {out['postgresql'][-1]}", file=sys.stderr)
    return out


# --- (c) rows per idle scope per day --------------------------------------------------------

def total_rows(engine) -> int:
    import stores.schema  # noqa: F401  (every table on the metadata)

    with engine.connect() as conn:
        return sum(conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one()
                   for t in SQLModel.metadata.sorted_tables)


def part_c(scopes: int = 20, days: int = 14) -> dict:
    with tempfile.TemporaryDirectory() as work:
        app = open_app(Settings(state_dir=Path(work) / "state"))
        try:
            t0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
            append_messages(app.engine, small_log(scopes, 6, t0), t0)
            daemon = build_consolidator(app, model=OfflineModel())
            close = t0.replace(hour=0, minute=0) + 3 * DAY + timedelta(minutes=15)
            daemon.drain(close)
            before = total_rows(app.engine)
            for d in range(1, days + 1):
                daemon.drain(close + d * DAY)
            added = total_rows(app.engine) - before
        finally:
            app.close()
        # The same count as bench/idle_rows.py, which subtracts what day 0's content legitimately
        # completes meanwhile (the week and 4 weeks holding it: summary, announcement, view row).
        from bench.idle_rows import run as idle_rows

        silent = idle_rows(scopes, days, Path(work) / "idle")
    return {"scopes": scopes, "idle_days": days, "rows_added": added,
            "rows_added_per_scope_per_day": round(added / (scopes * days), 3),
            "rows_per_idle_scope_per_day": round(silent["per_scope_day"], 3),
            "rows_of_windows_holding_day_0": silent["legit"]}


def main() -> None:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))  # figures only
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", help="a PostgreSQL URL whose server may create throwaway databases")
    parser.add_argument("--parts", default="abc")
    parser.add_argument("--scopes", type=int, default=50)
    parser.add_argument("--per-scope", type=int, default=12)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--daemons", default="1,2,4")
    parser.add_argument("--idle-sizes", default="10,10000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict = {}
    if "a" in args.parts:
        if not args.pg:
            parser.error("part (a) needs --pg")
        result["a"] = part_a(args.pg, [int(n) for n in args.daemons.split(",")], args.scopes, args.per_scope,
                             args.batch, args.latency)
    if "b" in args.parts:
        result["b"] = part_b(args.pg, [int(n) for n in args.idle_sizes.split(",")])
    if "c" in args.parts:
        result["c"] = part_c()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    if "a" in result:
        a = result["a"]
        print(f"(a) {a['scopes']} scopes x {a['messages_per_scope']} messages, model latency {a['latency_s']} s")
        for r in a["runs"]:
            print(f"    {r['daemons']} daemon(s): {r['wall_s']:8.2f} s  x{r['speedup']}  "
                  f"({r['model_calls']} model calls, {r['summaries']} summaries; CPU: daemons {r['daemon_cpu_s']} s, "
                  f"whole machine {r['machine_cpu_s']} s)")
    if "b" in result:
        print("(b) idle tick: statements and ms per tick")
        for engine_name, runs in result["b"].items():
            for r in runs:
                print(f"    {engine_name:10s} {r['scopes']:6d} scopes: {r['statements']:3d} statements  {r['ms_median']:8.2f} ms"
                      f"   (status: {r['status_ms']:.0f} ms)")
    if "c" in result:
        c = result["c"]
        print(f"(c) rows written per idle scope per day: {c['rows_per_idle_scope_per_day']} "
              f"({c['scopes']} scopes x {c['idle_days']} days; counted as bench/idle_rows.py does: rows grown "
              f"less the closing windows that hold the spoken day, {c['rows_of_windows_holding_day_0']} rows)")


if __name__ == "__main__":
    main()
