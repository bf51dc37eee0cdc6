"""The recall bench's budget table: what a planner reads at the turn, per category and token budget.

For every scored question and each budget (500, 1,000, 2,000 tokens by the project's estimate,
4 characters a token), the share of answers whose content words are all in:

  recall      `consolidator.recall(scope, question, budget_tokens=B)` (the product's read);
  bm25-turns  BM25 over the raw transcript's dated turns ("2023-05-08 14:03 Speaker: text"),
              best first until the budget is full: the baseline a user could build in an
              afternoon (SQLite FTS5, porter stemmer, the question's content words OR'ed);
  context     context.md cut at the budget;
  transcript  the whole transcript (no budget: the ceiling, the same at every budget).

Also: latency of `recall` per call (p50, p99 over every question, warm), the first call in a
fresh process (a subprocess: imports included), the index's size, and the index update time
per tick (the recall stage's share of a drain, measured by the drain itself).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from bench.recall_match import covers, vocabulary
from consolidator import recall
from consolidator.domain import estimate_tokens
from consolidator.retrieval.terms import fts_query, query_words
from stores.files.recall_index import IndexItem, Writer, lexical, open_for_write

BUDGETS = (500, 1000, 2000)
SOURCES = ("recall", "bm25-turns", "context", "transcript")
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class BudgetTally:
    n: dict[int, int] = field(default_factory=dict)  # category -> questions
    hits: dict[tuple[int, str, int], int] = field(default_factory=dict)  # (category, source, budget) -> hits
    latencies_ms: list[float] = field(default_factory=list)
    first_call_ms: list[float] = field(default_factory=list)
    index_bytes: int = 0
    over_budget: int = 0

    def add(self, other: "BudgetTally") -> None:
        for k, v in other.n.items():
            self.n[k] = self.n.get(k, 0) + v
        for k, v in other.hits.items():
            self.hits[k] = self.hits.get(k, 0) + v
        self.latencies_ms += other.latencies_ms
        self.first_call_ms += other.first_call_ms
        self.index_bytes += other.index_bytes
        self.over_budget += other.over_budget

    def as_dict(self, categories: dict[int, str]) -> dict[str, Any]:
        rows = {}
        for cat, name in [*categories.items(), (None, "all")]:
            n = sum(self.n.values()) if cat is None else self.n.get(cat, 0)
            cells = {}
            for source in SOURCES:
                for budget in BUDGETS:
                    hits = sum(v for (c, s, b), v in self.hits.items() if s == source and b == budget
                               and (cat is None or c == cat))
                    cells[f"{source}@{budget}"] = {"hits": hits, "share": hits / n if n else 0.0}
            rows[name] = {"n": n, **cells}
        lat = sorted(self.latencies_ms)
        return {"categories": rows, "over_budget": self.over_budget, "index_bytes": self.index_bytes,
                "latency_ms": {"calls": len(lat), "p50": _pct(lat, 50), "p99": _pct(lat, 99),
                               "first_call": max(self.first_call_ms) if self.first_call_ms else None}}


def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class TurnSearch:
    """BM25 over dated raw turns, one line each, in an in-memory index of the recall index's own
    schema (the same FTS5 table and stemmer, no context, no vectors): the afternoon baseline."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.conn = open_for_write(Path(":memory:"))
        with Writer(self.conn) as writer:
            writer.put([IndexItem(id=str(i), kind="message", text=line, body=line) for i, line in enumerate(lines)])

    def read(self, question: str, budget: int) -> str:
        match = fts_query(query_words(question))
        out, left = [], budget
        for n, _ in lexical(self.conn, match, len(self.lines)) if match else []:
            line = self.lines[n - 1]  # row numbers start at 1, in insertion order
            cost = estimate_tokens(line + "\n")
            if cost <= left:
                out.append(line)
                left -= cost
        return "\n".join(out)


def first_call_ms(scope: str, state_dir: Path, question: str, now: datetime) -> float:
    """Milliseconds from before `import consolidator` to a returned recall, in a fresh interpreter."""
    code = ("import time; t = time.perf_counter(); from datetime import datetime; "
            "from consolidator import recall; "
            f"recall({scope!r}, {question!r}, budget_tokens=1000, now=datetime.fromisoformat({now.isoformat()!r})); "
            "print((time.perf_counter() - t) * 1000)")
    env = {"CONSOLIDATOR_STATE_DIR": str(state_dir), "PATH": "/usr/bin:/bin", "HOME": str(state_dir)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), env=env,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure(scope: str, questions: list[Any], answer_forms: Callable[[str], list[list[str]]], dated_turns: list[str],
            context: str, transcript: str, state_dir: Path, config: Any, now: datetime) -> BudgetTally:
    """The budget table's hits for one drained conversation (see the module docstring)."""
    tally = BudgetTally()
    baseline = TurnSearch(dated_turns)
    whole = vocabulary(transcript)
    ctx_cut = {b: vocabulary(context[: b * 4]) for b in BUDGETS}
    tally.first_call_ms.append(first_call_ms(scope, state_dir, questions[0].question if questions else "hello", now))
    for q in questions:
        forms = answer_forms(q.answer)
        if not forms[0]:
            continue
        tally.n[q.category] = tally.n.get(q.category, 0) + 1
        for budget in BUDGETS:
            started = time.perf_counter()
            result = recall(scope, q.question, budget_tokens=budget, config=config, now=now)
            tally.latencies_ms.append((time.perf_counter() - started) * 1000)
            if result.tokens > budget:
                tally.over_budget += 1
            got = {"recall": vocabulary(result.text), "bm25-turns": vocabulary(baseline.read(q.question, budget)),
                   "context": ctx_cut[budget], "transcript": whole}
            for source, vocab in got.items():
                if any(covers(f, vocab) for f in forms):
                    key = (q.category, source, budget)
                    tally.hits[key] = tally.hits.get(key, 0) + 1
    index = state_dir / "snapshots" / scope / "recall.sqlite"
    tally.index_bytes = sum(p.stat().st_size for p in index.parent.glob("recall.sqlite*")) if index.exists() else 0
    return tally


def render(table: dict[str, Any], categories: dict[int, str]) -> list[str]:
    head = f"{'category':<13}{'n':>5} {'budget':>6}" + "".join(f"{s:>13}" for s in SOURCES)
    lines = ["Recall at the turn (share of answers held, by token budget):", head]
    for name in [*categories.values(), "all"]:
        row = table["categories"][name]
        for budget in BUDGETS:
            cells = "".join(f"{row[f'{s}@{budget}']['share'] * 100:>12.1f}%" for s in SOURCES)
            lines.append(f"{name:<13}{row['n']:>5} {budget:>6}{cells}")
    lat = table["latency_ms"]
    lines.append(f"recall latency: p50 {lat['p50']:.2f} ms, p99 {lat['p99']:.2f} ms over {lat['calls']} calls; "
                 f"first call in a fresh process {lat['first_call']:.0f} ms; over budget {table['over_budget']}; "
                 f"index {table['index_bytes'] / 1e6:.2f} MB")
    return lines


def dumps(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1)
