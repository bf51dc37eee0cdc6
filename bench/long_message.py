"""Long messages: the offline model's three batch operations on one message of growing length.

    python bench/long_message.py [--sizes 8000,32000,128000] [--json]

A pasted document or a runaway loop can log one message of a megabyte (the import bounds a
message at 1,000,000 characters). Each operation (facts, tasks, contacts) should take time in
proportion to the text: for each size, two texts are timed, varied sentences and one sentence
said over and over (the worst case for anything keyed by a sentence), and the ratio of each
time to the smallest size's, beside the ratio of the lengths, is printed. Before the fix that
added this bench, 128 KB took 18 s for tasks and a 3.2 MB repeated sentence was killed by the
kernel at 23 GB (contacts paired every claim of a repeated sentence with every other).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import ContactsRequest, FactExtractionRequest, Line, TasksRequest

WORDS = "tea coffee Lisbon Porto market friend sister brother walked bought cooked called visited garden".split()


def text_of(kind: str, size: int) -> str:
    if kind == "repeated":
        return "Lena likes tea. " * max(1, size // 16)
    rng = random.Random(size)
    out, n = [], 0
    while n < size:
        sentence = f"I {rng.choice(WORDS)} the {rng.choice(WORDS)} with {rng.choice(WORDS)}."
        out.append(sentence)
        n += len(sentence) + 1
    return " ".join(out)


def timed(model: OfflineModel, text: str) -> dict[str, float]:
    lines = [Line(id="m0", at=datetime(2026, 12, 4, tzinfo=timezone.utc), role="user", speaker="Lena", text=text)]
    calls = {
        "facts": lambda: model.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])),
        "tasks": lambda: model.update_tasks(TasksRequest(scope="s", messages=lines, open_tasks=[])),
        "contacts": lambda: model.update_contacts(ContactsRequest(scope="s", messages=lines, known=[])),
    }
    out = {}
    for name, call in calls.items():
        start = time.perf_counter()
        call()
        out[name] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8000,32000,128000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    model = OfflineModel()
    rows = []
    for kind in ("varied", "repeated"):
        base = None
        for size in sizes:
            print(f"{kind} {size} chars ...", file=sys.stderr, flush=True)
            times = timed(model, text_of(kind, size))
            base = base or (size, times)
            rows.append({"text": kind, "chars": size, "length_ratio": round(size / base[0], 1),
                         **{f"{k}_s": round(v, 3) for k, v in times.items()},
                         **{f"{k}_ratio": round(v / max(base[1][k], 1e-3), 1) for k, v in times.items()}})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        print(json.dumps({"rows": rows, "peak_rss_mb": round(peak)}, indent=1))
        return
    print(f"{'text':9} {'chars':>8} {'x len':>6} | {'facts s':>8} {'x':>6} | {'tasks s':>8} {'x':>6} | {'contacts s':>10} {'x':>6}")
    for r in rows:
        print(f"{r['text']:9} {r['chars']:>8} {r['length_ratio']:>6} | {r['facts_s']:>8} {r['facts_ratio']:>6} | "
              f"{r['tasks_s']:>8} {r['tasks_ratio']:>6} | {r['contacts_s']:>10} {r['contacts_ratio']:>6}")
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
