"""Where `recall` and the BM25-over-turns baseline disagree, question by question, on state dirs
that `bench/recall.py --keep DIR` left (no drain: it reads the kept recall indexes).

    python bench/recall_misses.py --keep DIR [--category 3] [--budget 500] [--show N] [--set name=value ...]

Prints, per category and budget, the share each holds (the bench's matching rule) and the
questions one holds and the other does not; with --show N, for the first N of recall's misses,
the question, the answer, the evidence turns and what each read put in its block. `--set`
overrides a `RankSettings` field for the whole run (a factor's spread, without editing code).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import load_locomo, said  # noqa: E402
from bench.recall import CATEGORIES, answer_forms, find_data, load_questions  # noqa: E402
from bench.recall_budget import BUDGETS, TurnSearch  # noqa: E402
from bench.recall_match import covers, vocabulary  # noqa: E402
from bench.recall_state import bench_settings  # noqa: E402
from consolidator.retrieval.rank import RankSettings  # noqa: E402
from consolidator.retrieval.read import recall  # noqa: E402


def parse_sets(pairs: list[str]) -> RankSettings:
    kinds = {f.name: f.type for f in fields(RankSettings)}
    values = {}
    for pair in pairs:
        name, _, raw = pair.partition("=")
        if name not in kinds:
            raise SystemExit(f"--set: no RankSettings field {name!r}")
        values[name] = int(raw) if kinds[name] in (int, "int") else float(raw)
    return RankSettings(**values)


def run(keep: Path, settle_days: float, settings: RankSettings, categories: set[int] | None,
        budgets: tuple[int, ...], holdable: bool = False) -> list[dict]:
    """One row per (question, budget): held by recall, held by the baseline, and both blocks."""
    path = find_data(None)
    questions = load_questions(path)
    out = []
    for conv in load_locomo(path):
        state_dir = keep / conv.scope
        if not state_dir.is_dir():
            continue
        config = bench_settings(state_dir)
        now = max(m.at for m in conv.messages) + timedelta(days=settle_days)
        turns = [f"{m.at.astimezone(s.at.tzinfo):%Y-%m-%d %H:%M} {m.speaker or m.role}: {said(m)}"
                 for s in conv.sessions for m in s.messages]
        by_dia = {m.id.split(":", 1)[1]: line for m, line in zip((m for s in conv.sessions for m in s.messages), turns)}
        baseline = TurnSearch(turns)
        whole = vocabulary("\n".join(turns))
        by_line = {line: m.id for m, line in zip((m for s in conv.sessions for m in s.messages), turns)}
        for q in questions.get(conv.scope, []):
            if categories and q.category not in categories:
                continue
            forms = answer_forms(q.answer)
            if not forms[0]:
                continue
            if holdable and not any(covers(f, whole) for f in forms):
                continue
            for budget in budgets:
                got = recall(conv.scope, q.question, budget_tokens=budget, config=config, now=now,
                             settings=settings)
                base = baseline.read(q.question, budget)
                want = [f"{conv.scope}:{conv.scope}:{d}" for d in q.evidence if d in by_dia]
                got_ids = {i.id for i in got.items if i.kind == "message"}
                got_src = got_ids | {s for i in got.items for s in i.sources}
                base_ids = {f"{conv.scope}:" + by_line[line] for line in base.split("\n") if line in by_line}
                out.append({"scope": conv.scope, "category": q.category, "budget": budget, "question": q.question,
                            "answer": q.answer, "evidence": q.evidence,
                            "recall": any(covers(f, vocabulary(got.text)) for f in forms),
                            "bm25": any(covers(f, vocabulary(base)) for f in forms),
                            "recall_text": got.text, "bm25_text": base,
                            "turns": [by_dia[d] for d in q.evidence if d in by_dia],
                            "ev": (len(want), sum(w in got_ids for w in want), sum(w in got_src for w in want),
                                   sum(w in base_ids for w in want))})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True, help="the --keep DIR of a bench/recall.py run")
    parser.add_argument("--settle-days", type=float, default=8.0)
    parser.add_argument("--category", type=int, action="append", default=None)
    parser.add_argument("--budget", type=int, action="append", default=None)
    parser.add_argument("--show", type=int, default=0, help="print this many of recall's misses in full")
    parser.add_argument("--holdable", action="store_true", help="only answers the whole transcript holds")
    parser.add_argument("--lost", action="store_true", help="--show only the misses the baseline holds")
    parser.add_argument("--set", action="append", default=[], help="a RankSettings field, name=value")
    args = parser.parse_args(argv)
    rows = run(args.keep, args.settle_days, parse_sets(args.set), set(args.category or []) or None,
               tuple(args.budget or BUDGETS), args.holdable)
    print(f"{'category':<13}{'n':>5} {'budget':>6} {'recall':>8} {'bm25':>8} {'only recall':>12} {'only bm25':>10}"
          f" {'ev recall':>10} {'ev+src':>8} {'ev bm25':>8}")
    for cat in sorted({r["category"] for r in rows}):
        for budget in sorted({r["budget"] for r in rows}):
            cell = [r for r in rows if r["category"] == cat and r["budget"] == budget]
            n = len(cell)
            held = sum(r["recall"] for r in cell)
            base = sum(r["bm25"] for r in cell)
            only_r = sum(r["recall"] and not r["bm25"] for r in cell)
            only_b = sum(r["bm25"] and not r["recall"] for r in cell)
            print(f"{CATEGORIES[cat]:<13}{n:>5} {budget:>6} {100 * held / n:>7.1f}% {100 * base / n:>7.1f}% "
                  f"{only_r:>12} {only_b:>10}" + "".join(
                      f" {100 * sum(r['ev'][k] for r in cell) / max(1, sum(r['ev'][0] for r in cell)):>8.1f}%"
                      for k in (1, 2, 3)))
    shown = 0
    for r in rows:
        if shown >= args.show or r["recall"] or (args.lost and not r["bm25"]):
            continue
        shown += 1
        print(f"\n### {r['scope']} cat {r['category']} @{r['budget']}: {r['question']}\n  answer: {r['answer']}"
              f"  (bm25 holds it: {r['bm25']}; evidence {', '.join(r['evidence'])})")
        print("  --- evidence:\n    " + "\n    ".join(r["turns"]))
        print("  --- recall:\n    " + r["recall_text"].replace("\n", "\n    "))
        if r["bm25"]:
            print("  --- bm25:\n    " + r["bm25_text"].replace("\n", "\n    "))


if __name__ == "__main__":
    main()
