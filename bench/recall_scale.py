"""Recall at scale: one synthetic scope grown to 100,000 messages, its index kept by the recall stage.

    python bench/recall_scale.py [--sizes 10000,50000,100000] [--queries 200] [--json]

The scope is the sample generator's history (`consolidator sample`: people, moves, jobs, pets,
small talk; a small vocabulary, so search words match many items: the hard case for a lexical
index). At each size:

  update     the recall stage's index update for one tick that brings a batch's worth (50) of
             new messages, median of 25 ticks after 2 that warm up: flat means a tick's cost follows what is new, not
             the history behind it;
  build      the first update ever (the whole log indexed at once), at the first size only;
  recall     latency of `recall()` per call over `--queries` questions made from the history's
             own words (p50, p99), warm, at a budget of 1,000 tokens;
  fts        the same questions as one plain FTS5 BM25 query over the same index file (no ranking,
             no vectors, no rendering): the floor a search of this index costs, for the ratio;
  first      the first call in a fresh process (imports included), at the last size;
  size       the index file.

Only messages are indexed here (the daemon's other stages are not run): at 100,000 messages the
facts, contacts, tasks and summaries are a small share of the items.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.recall_budget import first_call_ms  # noqa: E402
from consolidator import recall  # noqa: E402
from consolidator.messages.ingest import validate  # noqa: E402
from consolidator.messages.sample import generate  # noqa: E402
from consolidator.model.embeddings import default_embedder  # noqa: E402
from consolidator.retrieval.build import RecallStage  # noqa: E402
from consolidator.retrieval.terms import fts_query, query_words  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402
from consolidator.core.app import open_app  # noqa: E402
from consolidator.core.config import Settings  # noqa: E402
from stores.messages import append_messages  # noqa: E402
from stores.files.recall_index import index_path, lexical, open_for_read  # noqa: E402

SCOPE = "bench"
START = datetime(2000, 1, 3, tzinfo=timezone.utc)
TICKS = 25
TEMPLATES = ["What did I say about {a}?", "When did I mention {a} and {b}?", "{a} {b}", "Tell me about {a}",
             "What happened with {a} last week?", "Where does my {a} live?"]


def history(total: int) -> list:
    """At least `total` validated sample messages, in time order."""
    days = max(10, int(total / 12))
    out = []
    while len(out) < total:
        out = [validate(r) for r in generate(scope=SCOPE, start=START, days=days)]
        days = int(days * 1.3) + 10
    return out[:total]


def questions(messages: list, n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    vocabulary = sorted({w for m in messages[:: max(1, len(messages) // 2000)] for w in query_words(m.text)
                         if len(w) > 3})
    return [rng.choice(TEMPLATES).format(a=rng.choice(vocabulary), b=rng.choice(vocabulary)) for _ in range(n)]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(sizes: list[int], n_queries: int, progress=print) -> dict:
    logsetup.configure("error")
    messages = history(max(sizes) + len(sizes) * (TICKS + 2) * 50)
    rows = []
    with tempfile.TemporaryDirectory(prefix="recall-scale-") as tmp:
        settings = Settings(state_dir=Path(tmp))
        app = open_app(settings)
        stage = RecallStage(app, default_embedder())  # as the daemon's wiring builds it
        logged, built_s = 0, None
        try:
            for size in sizes:
                append_messages(app.engine, messages[logged:size], messages[size - 1].at)
                started = time.perf_counter()
                stage.update(SCOPE, messages[size - 1].at)
                elapsed = time.perf_counter() - started
                if built_s is None:
                    built_s = elapsed
                logged = size
                ticks = []
                for tick in range(TICKS + 2):  # a tick that brings one batch's worth of new messages
                    batch = messages[logged:logged + 50]
                    append_messages(app.engine, batch, batch[-1].at)
                    started = time.perf_counter()
                    stage.update(SCOPE, batch[-1].at)
                    if tick >= 2:  # the first two warm the caches the first build left cold
                        ticks.append(time.perf_counter() - started)
                    logged += 50
                now = messages[logged - 1].at + timedelta(days=1)
                asked = questions(messages[:logged], n_queries)
                recall(SCOPE, asked[0], config=settings, now=now)  # warm: the process's first call is apart
                lat, fts = [], []
                conn = open_for_read(index_path(settings.snapshot_dir / SCOPE))
                for q in asked:
                    t = time.perf_counter()
                    recall(SCOPE, q, config=settings, now=now)
                    lat.append((time.perf_counter() - t) * 1000)
                    t = time.perf_counter()
                    lexical(conn, fts_query(query_words(q)), 70)
                    fts.append((time.perf_counter() - t) * 1000)
                conn.close()
                row = {"messages": logged, "update_ms": statistics.median(ticks) * 1000,
                       "recall_p50_ms": pct(lat, 50), "recall_p99_ms": pct(lat, 99),
                       "fts_p50_ms": pct(fts, 50), "fts_p99_ms": pct(fts, 99),
                       "index_mb": sum(p.stat().st_size for p in (settings.snapshot_dir / SCOPE).glob("recall.sqlite*"))
                       / 1e6}
                rows.append(row)
                progress(f"{logged:>7} messages: update {row['update_ms']:.1f} ms a tick, recall p50 "
                         f"{row['recall_p50_ms']:.1f} ms p99 {row['recall_p99_ms']:.1f} ms (plain FTS p50 "
                         f"{row['fts_p50_ms']:.1f} ms), index {row['index_mb']:.1f} MB")
            first = first_call_ms(SCOPE, settings.state_dir, questions(messages, 1)[0], now)
        finally:
            app.close()
    base = rows[0]["update_ms"]
    return {"sizes": rows, "first_build_s": built_s, "first_call_ms": first,
            "update_ratio_vs_smallest": [r["update_ms"] / base for r in rows]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    report = run(sizes, args.queries, progress=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'messages':>9} {'update/tick':>12} {'x smallest':>10} {'recall p50':>11} {'p99':>8} {'FTS p50':>8} "
          f"{'x FTS':>6} {'index MB':>9}")
    for row, ratio in zip(report["sizes"], report["update_ratio_vs_smallest"]):
        print(f"{row['messages']:>9} {row['update_ms']:>10.1f}ms {ratio:>10.2f} {row['recall_p50_ms']:>9.1f}ms "
              f"{row['recall_p99_ms']:>6.1f}ms {row['fts_p50_ms']:>6.1f}ms "
              f"{row['recall_p50_ms'] / max(1e-9, row['fts_p50_ms']):>6.1f} {row['index_mb']:>9.1f}")
    print(f"first build of {sizes[0]:,} messages: {report['first_build_s']:.1f} s; "
          f"first call in a fresh process: {report['first_call_ms']:.0f} ms")


if __name__ == "__main__":
    main()
