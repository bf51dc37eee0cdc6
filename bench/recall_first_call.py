"""The first `recall` call in a fresh process, several times over: wall and CPU milliseconds from
before `import consolidator` to a returned result (bench/recall_budget.py's method, which takes
one run per conversation), split into imports and the call, with numpy's BLAS thread pool as it
starts by default and held to one thread.

    python bench/recall_first_call.py --state DIR --scope S [--runs 9] [--question Q]

DIR is a state dir that holds the scope's recall index (e.g. one of `bench/recall.py --keep`'s).
CPU time is what a process costs on an idle core; wall time on a shared machine also counts the
wait for a core (and, with the default pool, OpenBLAS's threads spinning up on both).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = """
import json, time
t, c = time.perf_counter(), time.process_time()
from datetime import datetime
from consolidator import recall
import consolidator.retrieval.read
t1, c1 = time.perf_counter(), time.process_time()
recall({scope!r}, {question!r}, budget_tokens=1000, now=datetime.fromisoformat("2030-01-01T00:00:00+00:00"))
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({{"wall": (t2 - t) * 1000, "cpu": (c2 - c) * 1000, "import_wall": (t1 - t) * 1000,
                  "call_wall": (t2 - t1) * 1000}}))
"""


def run_once(state: Path, scope: str, question: str, extra_env: dict[str, str]) -> dict[str, float]:
    env = {"CONSOLIDATOR_STATE_DIR": str(state), "PATH": "/usr/bin:/bin", "HOME": str(state), **extra_env}
    out = subprocess.run([sys.executable, "-c", CODE.format(scope=scope, question=question)], capture_output=True,
                         text=True, cwd=str(ROOT), env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--scope", required=True)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--question", default="What did they paint recently?")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; {args.runs} fresh processes each")
    for label, env in (("BLAS pool as started", {}), ("OPENBLAS_NUM_THREADS=1", {"OPENBLAS_NUM_THREADS": "1"})):
        runs = [run_once(args.state, args.scope, args.question, env) for _ in range(args.runs)]
        cells = []
        for key in ("wall", "cpu", "import_wall", "call_wall"):
            values = [r[key] for r in runs]
            cells.append(f"{key} median {statistics.median(values):.0f} max {max(values):.0f}")
        print(f"{label:<24} " + "; ".join(cells) + " ms")


if __name__ == "__main__":
    main()
