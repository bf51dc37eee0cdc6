"""Ingestion benchmark: the real import path and MessageLog.append beside raw sqlite3.

    python bench/ingest.py [--messages 100000] [--appends 2000] [--profile]

1. Import: N generated messages (a JSON-lines file, several scopes, realistic text lengths)
   through consolidator.messages.ingest.import_stream on a fresh state dir -> messages/s; beside it a
   raw sqlite3 import of the same file on an identical schema (DDL copied from the real
   database's sqlite_master): json.loads, id and seq, one executemany in one transaction, no
   validation. The target compares with that. Also printed: the insert-only floor, executemany
   of the already prepared rows (what no import from a file can reach: it parses nothing).
2. Append: p50/p99 of one MessageLog.append into the database that holds the N messages;
   beside it raw sqlite3 single INSERT + commit on the same schema (WAL, synchronous=NORMAL).

Targets: import >= 70% of the raw loader; append p50 <= 8x and p99 <= 4x a raw INSERT + commit.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import sqlite3
import statistics
import tempfile
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support: run as `python bench/ingest.py`

from consolidator import MessageLog
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.messages.ingest import import_stream
from stores.messages import message_hash
from tests.support.pg_databases import drop_database, fresh_database  # noqa: E402 (the root is on sys.path above)

WORDS = ("the a to and of I you it is that for on with we was this meeting tomorrow call "
         "Maya Tom project deadline budget review send draft please thanks sure remind "
         "Friday morning report invoice doctor flight hotel Paris Berlin order pizza").split()
ROLES = ("user", "user", "assistant", "assistant", "action", "tool")
SCOPES = [f"user-{i:02d}" for i in range(8)]
T0 = datetime(2025, 1, 6, 8, 0, tzinfo=timezone(timedelta(hours=1)))


def text_of(rng: random.Random) -> str:
    """A message of a chat-like length: mostly short, a long tail up to ~2,000 characters."""
    words = max(1, min(400, int(rng.lognormvariate(2.8, 0.9))))
    return " ".join(rng.choice(WORDS) for _ in range(words))


def generate(path: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    clock = {scope: T0 for scope in SCOPES}
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            scope = rng.choice(SCOPES)
            clock[scope] += timedelta(seconds=rng.randint(5, 900))
            record = {"scope": scope, "at": clock[scope].isoformat(), "role": rng.choice(ROLES), "text": text_of(rng)}
            if rng.random() < 0.5:
                record["session"] = f"s-{scope}-{i // 40}"
            if record["role"] == "user" and rng.random() < 0.3:
                record["speaker"] = rng.choice(("Maya", "Tom", "Lea"))
            if rng.random() < 0.2:
                record["id"] = f"turn-{i}"
            out.write(json.dumps(record) + "\n")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def raw_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def schema_of(db: Path) -> list[str]:
    """DDL of every table and index of the real database, tables first."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL "
                            "ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name").fetchall()
    return [sql for (sql,) in rows]


def raw_loader(conn: sqlite3.Connection, source: Path, insert: str, columns: list[str], received: datetime) -> int:
    """The least a hand-written import must do: parse each line, give it an id and a seq, insert."""
    stamp = received.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    seq: dict[str, int] = {}
    rows = []
    with source.open(encoding="utf-8") as stream:
        for line in stream:
            r = json.loads(line)
            when = datetime.fromisoformat(r["at"])
            scope = r["scope"]
            seq[scope] = seq.get(scope, 0) + 1
            values = {"id": r.get("id") or message_hash(scope, when, r["role"], r.get("speaker"), r["text"]),
                      "scope": scope, "seq": seq[scope],
                      "at": when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f"), "role": r["role"],
                      "speaker": r.get("speaker"), "text": r["text"], "session": r.get("session"),
                      "received_at": stamp, "interaction": None,
                      "attachments": json.dumps(r["attachments"]) if r.get("attachments") else None}
            rows.append(tuple(values[c] for c in columns))
    conn.execute("BEGIN")
    conn.executemany(insert, rows)
    conn.commit()
    return len(rows)


def statements_per_append(log: MessageLog, at: datetime, n: int = 50) -> float:
    """SQL statements one MessageLog.append sends, on average over `n` appends to known scopes."""
    count = [0]

    def seen(*_: object) -> None:
        count[0] += 1

    engine = log.app.engine
    log.append(scope="counted", role="user", text="first", at=at)  # the scope's counter row exists
    event.listen(engine, "before_cursor_execute", seen)
    try:
        for i in range(n):
            log.append(scope="counted", role="user", text=f"message {i}", at=at + timedelta(seconds=i + 1))
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return count[0] / n


def pg_statements_per_append(base: str, tmp_path: Path, at: datetime) -> float:
    url = fresh_database(base, "consolidator_bench_ingest")
    try:
        log = MessageLog(settings=Settings(state_dir=tmp_path / "pg", database_url=url))
        try:
            return statements_per_append(log, at)
        finally:
            log.close()
    finally:
        drop_database(base, "consolidator_bench_ingest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--appends", type=int, default=2_000)
    parser.add_argument("--profile", action="store_true", help="Also profile the import (cProfile, top 25).")
    parser.add_argument("--pg", help="a PostgreSQL URL whose server may create a throwaway database: "
                                     "also count the statements of an append there")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="consolidator-bench-") as tmp:
        tmp_path = Path(tmp)
        source = tmp_path / "history.jsonl"
        generate(source, args.messages)
        size_mb = source.stat().st_size / 1e6

        # -- import through the real path -------------------------------------------------------
        app = open_app(Settings(state_dir=tmp_path / "state"))
        db = tmp_path / "state" / "consolidator.db"
        received = datetime.now(timezone.utc)
        with source.open(encoding="utf-8") as stream:
            started = time.perf_counter()
            report = import_stream(app.engine, stream, str(source), received)
            import_s = time.perf_counter() - started
        assert report.added == args.messages and not report.errors, report
        import_rate = args.messages / import_s

        # -- raw sqlite3 executemany of the same rows, same schema ---------------------------------
        with sqlite3.connect(db) as conn:
            columns = [row[1] for row in conn.execute("PRAGMA table_info(message)")]
            rows = conn.execute(f"SELECT {', '.join(columns)} FROM message ORDER BY rowid").fetchall()
        raw_db = tmp_path / "raw.db"
        raw = raw_connection(raw_db)
        for ddl in schema_of(db):
            raw.execute(ddl)
        raw.commit()
        insert = f"INSERT INTO message ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        started = time.perf_counter()
        raw.execute("BEGIN")
        raw.executemany(insert, rows)
        raw.commit()
        raw_s = time.perf_counter() - started
        raw_rate = len(rows) / raw_s
        del rows

        # -- a minimal hand-written sqlite3 loader of the same file: parse, id, seq, insert --------
        loader_db = tmp_path / "loader.db"
        loader = raw_connection(loader_db)
        for ddl in schema_of(db):
            loader.execute(ddl)
        loader.commit()
        started = time.perf_counter()
        loaded = raw_loader(loader, source, insert, columns, received)
        loader_s = time.perf_counter() - started
        loader.close()
        loader_rate = loaded / loader_s

        # -- one append at a time, on top of the N messages -----------------------------------------
        log = MessageLog(app=app)
        rng = random.Random(11)
        texts = [text_of(rng) for _ in range(args.appends)]
        at = datetime.now(timezone.utc)
        append_ms = []
        for i, text in enumerate(texts):
            started = time.perf_counter()
            log.append(scope=SCOPES[i % len(SCOPES)], role="user", text=text, at=at + timedelta(seconds=i))
            append_ms.append((time.perf_counter() - started) * 1000)

        seq_of = {scope: n for scope, n in raw.execute("SELECT scope, max(seq) FROM message GROUP BY scope")}
        single_rows = []
        for i, text in enumerate(texts):
            scope = SCOPES[i % len(SCOPES)]
            seq_of[scope] += 1
            when = at + timedelta(seconds=i)
            stamp = when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
            # The very id, seq and values the append above stored, so both B-trees see the same keys.
            values = {"id": message_hash(scope, when, "user", None, text), "scope": scope, "seq": seq_of[scope],
                      "at": stamp, "role": "user", "speaker": None, "text": text, "session": None,
                      "received_at": stamp, "interaction": None, "attachments": None}
            single_rows.append(tuple(values[c] for c in columns))
        raw_ms = []
        for row in single_rows:
            started = time.perf_counter()
            raw.execute(insert, row)
            raw.commit()
            raw_ms.append((time.perf_counter() - started) * 1000)
        raw.close()

        print(f"import: {args.messages:,} messages ({size_mb:.1f} MB JSON lines, {len(SCOPES)} scopes)")
        print(f"  consolidator import_stream      {import_rate:10,.0f} messages/s  ({import_s:.2f} s)")
        print(f"  raw sqlite3 import of the file  {loader_rate:10,.0f} messages/s  ({loader_s:.2f} s; "
              "json.loads + id + seq + executemany, no validation)")
        ratio = import_rate / loader_rate
        print(f"  ratio {ratio:.0%}   target >= 70%   {'OK' if ratio >= 0.7 else 'MISSED'}")
        print(f"  (insert-only floor: executemany of the prepared rows {raw_rate:,.0f} rows/s ({raw_s:.2f} s); "
              f"import is {import_rate / raw_rate:.0%} of it)")
        p50, p99 = percentile(append_ms, 0.5), percentile(append_ms, 0.99)
        r50, r99 = percentile(raw_ms, 0.5), percentile(raw_ms, 0.99)
        print(f"append: {args.appends:,} single appends into a log of {args.messages:,}")
        print(f"  MessageLog.append           p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  mean {statistics.mean(append_ms):6.3f} ms")
        print(f"  raw INSERT + commit         p50 {r50:6.3f} ms  p99 {r99:6.3f} ms  mean {statistics.mean(raw_ms):6.3f} ms")
        print(f"  ratio p50 {p50 / r50:.1f}x  p99 {p99 / r99:.1f}x   target p50 <= 8x, p99 <= 4x   "
              f"{'OK' if p50 <= 8 * r50 and p99 <= 4 * r99 else 'MISSED'}")
        print(f"  statements per append (BEGIN counted, COMMIT not): SQLite {statements_per_append(log, at):.1f}", end="")
        if args.pg:
            print(f", PostgreSQL {pg_statements_per_append(args.pg, tmp_path, at):.1f}")
        else:
            print("  (--pg URL: PostgreSQL too)")

        if args.profile:
            profiled = open_app(Settings(state_dir=tmp_path / "profiled"))
            profiler = cProfile.Profile()
            with source.open(encoding="utf-8") as stream:
                profiler.enable()
                import_stream(profiled.engine, stream, str(source), received)
                profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
            print(out.getvalue())
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
            print(out.getvalue())
            profiled.close()
        app.close()


if __name__ == "__main__":
    main()
