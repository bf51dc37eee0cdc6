"""The process's cyclic garbage collector, set once at the entry point of a process we own.

A consolidating process allocates many short-lived objects (rows, sentences, their tokens) and
keeps a few large long-lived ones (modules, compiled patterns, the lexicon, the memo caches of
the offline model, SQLAlchemy's statement cache). CPython's defaults collect the youngest
generation every 700 net allocations and, on each older collection, walk what survived: in the
offline replay that was about 5% of the time, for almost no garbage found (bench/ladders.py
compares; docs/experiments/2026-12-06-fast-again-5.md has the figures and a sweep).

`tune_collector` moves every object alive at start-up (the imported code) out of the
collector's sight (`gc.freeze`), and collects the youngest generation every
`YOUNG_THRESHOLD` net allocations; the older generations keep their ratios. Reference counting
still frees every acyclic object at once: only cycles wait a little longer.

Called by the command line (`consolidator ...`, the daemon included), never by the library:
a program that imports `consolidator` keeps its own collector settings.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
_tuned = False


def tune_collector() -> None:
    """Freeze what is alive now and collect the young generation less often; once a process
    (a later call, as a test runner's repeated invocations of the command line make, does nothing:
    what became garbage since is left to the collector)."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    _, middle, old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
