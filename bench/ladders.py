"""Ladder benchmark: a heavy scope over three simulated years, fed day by day.

    python bench/ladders.py [--years 3] [--per-day 205] [--seed 5] [--days 364]

Both ladders with the offline model, the daemon's tick called once per simulated day.
Prints wall time, CPU time per year (other processes may load the machine: CPU time says
more than wall time then), SQL statements per simulated day (appends and ticks), summaries and model calls per rung (summarized / reused / passed / empty),
the largest input of any summary call in year 1 and in the last year (it must not grow:
the cost of a summary does not grow with history), peak RSS per year, and, as the baseline
of the same run, what one summary of the year would read if it were written from the raw log.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import event

from consolidator.runtime import logsetup
from consolidator.runtime.collector import tune_collector
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.ladders.stage import LadderStage, ladder_specs
from consolidator.domain import estimate_tokens
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from stores.engine import reading
from stores.interactions import interaction_count
from stores.messages import NewMessage, append_messages
from stores.summaries import tally

START = datetime(2024, 1, 1, tzinfo=timezone.utc)  # a Monday
WORDS = ("we talked about the project budget the trip to Lisbon my sister Ana the new job training for the "
         "marathon cooking dinner the doctor appointment a book about whales the garden the kids school "
         "I think that went well tomorrow I will call the bank and send the report").split()


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak_rss() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM (Linux)
    except OSError:
        pass


def day_messages(seed: int, day: int, per_day: int, counter: list[int]) -> list[NewMessage]:
    """Uneven activity: quiet and silent days, bursts, 1-4 interactions on active days.

    The pattern repeats every 364 days (the generator is seeded by the day of the year), so
    every simulated year has the same daily volumes and any growth in the largest summary
    input from year to year could only come from history.
    """
    rng = random.Random(seed * 100_003 + day % 364)
    year = day // 364  # the same words each year, marked with the year: no reuse across years
    if rng.random() < 0.12:
        return []
    volume = int(per_day * rng.choice([0.2, 0.5, 1.0, 1.0, 1.5, 2.5]))
    interactions = rng.randint(1, 4)
    out = []
    for k in range(interactions):
        at = START + timedelta(days=day, hours=7 + 4 * k, minutes=rng.randint(0, 60))
        for i in range(max(2, volume // interactions)):
            counter[0] += 1
            length = rng.randint(6, 30)
            text = f"y{year} " + " ".join(rng.choice(WORDS) for _ in range(length)) + "."
            role = "user" if i % 2 == 0 else "assistant"
            out.append(NewMessage("heavy", at, role, text, speaker="Maya" if role == "user" else None,
                                  id=f"m{counter[0]}"))
            at += timedelta(seconds=rng.randint(10, 90))
    return out


def tick_at(day: int) -> datetime:
    """When the daemon ticks after simulated day `day`: 01:00 the next morning."""
    return START + timedelta(days=day + 1, hours=1)


def year_figures(app, year_from: datetime, year_to: datetime, specs) -> tuple[int, int, int, int]:
    """(model calls, largest summary input, largest base input, largest higher-rung input) of summaries
    written in [year_from, year_to), read from the summaries table (every call writes one summarized row)."""
    with reading(app.engine) as session:
        written = tally(session, year_from, year_to)
    called = {(ladder, rung): t for (ladder, rung, kind), t in written.items() if kind == "summarized"}
    calls = sum(t.rows for t in called.values())
    base = max((t.largest_input for (ladder, rung), t in called.items() if specs[ladder].rung_index(rung) == 0), default=0)
    higher = max((t.largest_input for (ladder, rung), t in called.items() if specs[ladder].rung_index(rung) > 0), default=0)
    return calls, max(base, higher), base, higher


def simulation_parser(description: str | None) -> argparse.ArgumentParser:
    """A bench's parser with the options of the simulated years (`day_messages`): --years, --per-day, --seed."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--years", type=int, default=3)
    parser.add_argument("--per-day", type=int, default=205)
    parser.add_argument("--seed", type=int, default=5)
    return parser


def main() -> None:
    logsetup.configure("warning")
    tune_collector()  # as `consolidator run` does: this script stands in for the daemon's process
    parser = simulation_parser(__doc__)
    parser.add_argument("--days", type=int, default=364, help="simulated days a year (fewer: a shortened run for profiling)")
    args = parser.parse_args()
    counter = [0]
    with tempfile.TemporaryDirectory(prefix="consolidator-ladders-") as tmp:
        app = open_app(Settings(state_dir=Path(tmp) / "state"))
        stage = LadderStage(app, OfflineModel())
        specs = ladder_specs(app)
        consolidator = Consolidator(app, [], [stage])
        statements = [0]
        event.listen(app.engine, "before_cursor_execute", lambda *_: statements.__setitem__(0, statements[0] + 1))
        per_year = []
        started = time.perf_counter()
        for year in range(args.years):
            reset_peak_rss()
            year_start, cpu_start, statements_start = time.perf_counter(), time.process_time(), statements[0]
            raw_tokens = 0
            days = range(year * 364, year * 364 + args.days)
            for day in days:
                batch = day_messages(args.seed, day, args.per_day, counter)
                if batch:
                    append_messages(app.engine, batch, batch[-1].at)
                    raw_tokens += sum(estimate_tokens(m.text) for m in batch)
                consolidator.tick(tick_at(day))
            seconds, cpu = time.perf_counter() - year_start, time.process_time() - cpu_start
            per_day = (statements[0] - statements_start) / len(days)
            calls, largest, base, higher = year_figures(app, tick_at(days[0]), tick_at(days[-1] + 1), specs)
            per_year.append((seconds, largest, peak_rss_mb(), raw_tokens, calls, base, higher, cpu, per_day))
        consolidator.drain(START + timedelta(days=(args.years - 1) * 364 + args.days + 2))
        wall = time.perf_counter() - started
        with reading(app.engine) as session:
            interactions = interaction_count(session)
            written = tally(session)

        print(f"ladders: {counter[0]:,} messages over {args.years} years (one tick per simulated day)")
        print(f"  wall time {wall:.1f} s ({counter[0] / wall:,.0f} messages/s end to end)")
        print(f"  interactions {interactions:,}")
        kinds = ("summarized", "reused", "passed", "empty")
        print(f"  {'ladder/rung':14} " + " ".join(f"{k:>10}" for k in kinds) + f" {'calls':>7}")
        rungs: dict[tuple[str, str], Counter] = {}
        for (ladder, rung, kind), t in written.items():
            rungs.setdefault((ladder, rung), Counter())[kind] += t.rows
        for (ladder, rung), c in sorted(rungs.items(), key=lambda kv: (kv[0][0], specs[kv[0][0]].rung_index(kv[0][1]))):
            print(f"  {ladder + '/' + rung:14} " + " ".join(f"{c[k]:>10,}" for k in kinds) + f" {c['summarized']:>7,}")
        total_calls = sum(c["summarized"] for c in rungs.values())
        print(f"  model calls {total_calls:,} = {total_calls / max(1, interactions):.2f} per interaction")
        for year, (seconds, largest, rss, raw, calls, base, higher, cpu, per_day) in enumerate(per_year, start=1):
            print(f"  year {year}: {seconds:6.1f} s (CPU {cpu:.1f} s), {per_day:.0f} SQL statements a day, {calls:,} calls, largest summary input {largest:,} tokens "
                  f"(base {base:,}, higher rungs {higher:,}), "
                  f"peak RSS {rss:.0f} MB; baseline: one summary of the year from the raw log would read "
                  f"{raw:,} tokens ({raw / max(1, largest):,.0f}x the largest call)")
        first, last = per_year[0][1], per_year[-1][1]
        verdict = "OK" if last <= first else "GREW"
        print(f"  largest input year 1 {first:,} vs year {len(per_year)} {last:,} tokens: {verdict}")
        app.close()


if __name__ == "__main__":
    main()
