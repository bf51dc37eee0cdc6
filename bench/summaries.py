"""What the offline summariser writes for a LoCoMo conversation: a rung's summaries after a drain.

    python bench/summaries.py [--scope conv-26] [--ladder time] [--rung day] [--count 3]
                              [--timezone UTC] [--path ../shared/data/locomo-dev/locomo-dev.json]

Imports one conversation (bench/locomo.py), drains both ladders with the offline model (no
batch steps), prints the drain time and the first `--count` non-empty summaries of the rung
(time ladder: day, week, 4w, 12w, 52w; count ladder: 1, 10, 40, ...), as `consolidator
summaries` would list them, each with how it was made (summarized, passed, reused) and the
characters it read (the rendered lines or the summaries below) against those it wrote. The
rung's total closes the listing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import load_locomo  # noqa: E402
from bench.recall import find_data  # noqa: E402
from consolidator.ladders.inputs import render  # noqa: E402
from consolidator.ladders.stage import LadderStage  # noqa: E402
from consolidator.model.offline import OfflineModel  # noqa: E402
from consolidator.runtime.tick import Consolidator  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402
from consolidator.core.app import open_app  # noqa: E402
from consolidator.core.config import Settings  # noqa: E402
from stores.engine import reading  # noqa: E402
from stores.schema.log import Message  # noqa: E402
from stores.messages import append_messages
from stores.schema.ladders import Summary  # noqa: E402
from stores.summaries import newest_versions, tally


def read_chars(session, row: Summary, tz: ZoneInfo) -> int:
    """Characters a summary read: its messages' rendered lines, or the summaries it was made of."""
    total = 0
    for source in row.sources:
        message = session.get(Message, source)
        if message is not None:
            total += len(render(message, tz))
        else:
            below = session.get(Summary, source)
            total += len(below.text) if below is not None else 0
    return total


def main() -> None:
    logsetup.configure("warning")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scope", default="conv-26")
    parser.add_argument("--ladder", default="time", choices=["time", "count"])
    parser.add_argument("--rung", default=None, help="default: day (time ladder) or 1 (count ladder)")
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--path", type=Path, default=None, help="LoCoMo-format JSON (default: the dev subset)")
    args = parser.parse_args()
    rung = args.rung or ("day" if args.ladder == "time" else "1")
    tz = ZoneInfo(args.timezone)
    conversation = next(c for c in load_locomo(find_data(args.path)) if c.scope == args.scope)
    with tempfile.TemporaryDirectory(prefix="consolidator-summaries-") as tmp:
        app = open_app(Settings(state_dir=Path(tmp) / "state", timezone=args.timezone))
        stage = LadderStage(app, OfflineModel())
        messages = conversation.messages
        append_messages(app.engine, messages, messages[-1].at)
        started = time.perf_counter()
        Consolidator(app, [], [stage]).drain(messages[-1].at + timedelta(days=400))
        with reading(app.engine) as session:  # a fresh database: every summarized row is one call of this drain
            calls = sum(t.rows for (_, _, kind), t in tally(session).items() if kind == "summarized")
        print(f"{args.scope}: {len(messages)} messages, drained in {time.perf_counter() - started:.2f} s, {calls} summary calls")
        read = wrote = 0
        with reading(app.engine) as session:
            rows = [r for r in newest_versions(session, args.scope, args.ladder, rung) if r.kind != "empty"]
            for n, row in enumerate(rows):
                chars = read_chars(session, row, tz)
                read, wrote = read + chars, wrote + len(row.text)
                if n < args.count:
                    ratio = f"{chars / len(row.text):.1f}x" if row.text else "n/a"
                    print(f"\n== {row.label} {row.kind} (read {chars:,} -> wrote {len(row.text):,} chars, {ratio})\n{row.text}")
        if wrote:
            print(f"\n{args.ladder}/{rung}: {len(rows)} windows, read {read:,} -> wrote {wrote:,} chars, {read / wrote:.1f}x")
        app.close()


if __name__ == "__main__":
    main()
