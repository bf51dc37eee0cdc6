"""Topic tables: how many facts end in the default table a reader would file them under.

    python bench/table_placement.py [--batch 10] [--seeds 5] [--json]

bench/data/table_facts.tsv holds 84 invented facts (12 people, 12 facts for each of the seven
default tables, each labelled with the table it belongs in; written for this bench, not taken
from any conversation). They arrive in batches (`--batch`, shuffled by each seed); after each
batch the offline pass's table planner runs as the daemon runs it (place the facts without a
table, move, merge, split; facts.table_* defaults, the shipped embeddings, the offline model for
splits). Printed, for each way of reading a fact:

  topic    the product: the text with the names of people and things left out (names.topic_texts),
           headed by the fact's topic where the offline rules give one more specific than "events" or "general"
           (each fact's predicate read by rules.parse_predicate, as the offline extractor reads a
           known fact: 26 of the 84 are headed by one: work, home, health, diet, pets, relations,
           plans, preferences)
  names    the names left out, no topic
  text     the baseline of the same run: the whole text, names included, no topic (as before topic
           vectors; the offline split, a model operation, reads topic texts in every row)

the share of facts in their labelled table after the last pass (mean, min and max over the
seeds), per table, and the share a single placement against the seven labels alone gets (no
pass, no centroid: what the label embeddings alone can tell). A fact in a table that a split
made counts for the default table the split came from.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consolidator.core.config import DEFAULT_TABLES, FactSettings  # noqa: E402
from consolidator.facts.tables import LabelCache, Survivor, TablePlanner, topic_vectors  # noqa: E402
from consolidator.model.embeddings import default_embedder  # noqa: E402
from consolidator.model.offline import OfflineModel  # noqa: E402
from consolidator.model.offline.names import topic_texts  # noqa: E402
from consolidator.model.offline.rules import parse_predicate, spec_of  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "table_facts.tsv"
# way of reading -> (what of the text is embedded, whether the fact's topic heads it)
READS = {"topic": (topic_texts, True), "names": (topic_texts, False),
         "text": (lambda texts, context=(): list(texts), False)}


def load(path: Path = DATA) -> list[tuple[str, str]]:
    """(labelled table, fact text) rows."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            table, sep, text = line.partition("\t")
            if not sep or table not in {t.name for t in DEFAULT_TABLES}:
                raise SystemExit(f"{path}:{number}: expected '<default table name>\\t<fact text>'")
            rows.append((table, text))
    return rows


def topic_of(text: str) -> str:
    """The topic the offline rules give a fact's predicate ("Priya is allergic to peanuts": health), else events."""
    m = re.match(r"(?P<s>[A-Z][\w-]*)(?:'s)? (?P<p>.*?)\.?$", text)
    claims = parse_predicate(m.group("s"), m.group("p"), False) if m else []
    return spec_of(claims[0].attribute).topic if claims else "events"


def run_passes(rows: list[tuple[str, str]], read, seed: int, batch: int, topics: bool) -> dict[str, str]:
    """Fact text -> the default table its final table descends from, after one pass per batch."""
    embedder, cfg = default_embedder(), FactSettings()
    planner = TablePlanner(embedder, OfflineModel(), cfg, read=read)
    order = list(rows)
    random.Random(seed).shuffle(order)
    registry = [(t.name, t.description) for t in cfg.tables]
    origin = {t.name: t.name for t in cfg.tables}  # table -> the default table it descends from
    facts: list[Survivor] = []
    retired: set[str] = set()
    for start in range(0, len(order), batch):
        facts += [Survivor(f"f{start + k}", text, None, topic_of(text) if topics else None)
                  for k, (_, text) in enumerate(order[start:start + batch])]
        plan = planner.plan("bench", facts, registry, retired)
        for move in plan.moves:
            if move.kind == "split":
                origin.setdefault(move.to_table, origin.get(move.from_table, move.from_table))
                retired.add(move.from_table)  # as stores.fact_tables.split_names reads the records
        facts = [Survivor(f.id, f.text, plan.assigned.get(f.id, f.fact_table), f.topic) for f in facts]
        registry = [(name, description) for name, (description, _) in plan.tables.items()]
    return {f.text: origin.get(f.fact_table, f.fact_table) for f in facts}


def labels_only(rows: list[tuple[str, str]], read, topics: bool) -> float:
    embedder = default_embedder()
    labels = LabelCache(embedder)
    matrix = np.stack([labels(t.name, t.description) for t in DEFAULT_TABLES])
    texts = [text for _, text in rows]
    vectors = topic_vectors(texts, embedder, read, topics=[topic_of(t) for t in texts] if topics else ())
    picks = np.argmax(vectors @ matrix.T, axis=1)
    return float(np.mean([DEFAULT_TABLES[p].name == table for p, (table, _) in zip(picks.tolist(), rows)]))


def measure(rows: list[tuple[str, str]], seeds: int, batch: int) -> dict:
    out = {}
    for name, (read, topics) in READS.items():
        shares, per_table = [], {t.name: [] for t in DEFAULT_TABLES}
        for seed in range(seeds):
            final = run_passes(rows, read, seed, batch, topics)
            hits = [(table, final[text] == table) for table, text in rows]
            shares.append(float(np.mean([ok for _, ok in hits])))
            for table in per_table:
                per_table[table].append(float(np.mean([ok for t, ok in hits if t == table])))
            print(f"  {name}: seed {seed} done", file=sys.stderr, flush=True)
        out[name] = {"after_passes": {"mean": float(np.mean(shares)), "min": min(shares), "max": max(shares)},
                     "per_table": {t: float(np.mean(v)) for t, v in per_table.items()},
                     "labels_only": labels_only(rows, read, topics)}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=10, help="facts per pass")
    parser.add_argument("--seeds", type=int, default=5, help="arrival orders (spread)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    rows = load()
    result = {"facts": len(rows), "batch": args.batch, "seeds": args.seeds, **measure(rows, args.seeds, args.batch)}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"table placement: {len(rows)} labelled facts, batches of {args.batch}, {args.seeds} arrival orders")
    print(f"  {'read':6s} {'after passes (mean, min-max)':>30s} {'labels only':>12s}   per table (mean)")
    for name in READS:
        r = result[name]
        a = r["after_passes"]
        tables = ", ".join(f"{t} {100 * v:.0f}%" for t, v in r["per_table"].items())
        print(f"  {name:6s} {100 * a['mean']:>17.1f}% ({100 * a['min']:.0f}-{100 * a['max']:.0f}%) "
              f"{100 * r['labels_only']:>11.1f}%   {tables}")
    ratio = result["topic"]["after_passes"]["mean"] / max(result["text"]["after_passes"]["mean"], 1e-9)
    print(f"  topic / text after passes: {ratio:.2f}x")


if __name__ == "__main__":
    main()
