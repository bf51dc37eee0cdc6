"""What the offline summariser writes for a LoCoMo conversation: a rung's summaries after a drain.

    python bench/summaries.py [--scope conv-26] [--rung day] [--count 3] [--timezone UTC]
                              [--path ../shared/data/locomo-dev/locomo-dev.json]

Imports one conversation (bench/locomo.py), drains both ladders with the offline model (no
batch steps), prints the drain time and the first `--count` non-empty summaries of the rung
(time ladder: day, week, 4w, 12w, 52w), as `consolidator summaries` would list them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_PATH, load_locomo  # noqa: E402
from consolidator.ladders.stage import LadderStage  # noqa: E402
from consolidator.model.offline import OfflineModel  # noqa: E402
from consolidator.pipeline.tick import Consolidator  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402
from consolidator.runtime.app import open_app  # noqa: E402
from consolidator.runtime.config import Settings  # noqa: E402
from stores.engine import reading  # noqa: E402
from stores.messages import append_messages  # noqa: E402
from stores.summaries import newest_versions, tally  # noqa: E402


def main() -> None:
    logsetup.configure("warning")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scope", default="conv-26")
    parser.add_argument("--rung", default="day")
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    args = parser.parse_args()
    conversation = next(c for c in load_locomo(args.path) if c.scope == args.scope)
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
        with reading(app.engine) as session:
            rows = [r for r in newest_versions(session, args.scope, "time", args.rung) if r.kind != "empty"]
        for row in rows[: args.count]:
            print(f"\n== {row.label} {row.kind} ({len(row.text)} chars)\n{row.text}")
        app.close()


if __name__ == "__main__":
    main()
