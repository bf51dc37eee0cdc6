"""What reflections add: bench/recall.py run twice, with [facts] reflect on and off.

    python bench/recall_reflect.py [--path FILE] [--limit N] [--only conv-26] [--config FILE] [--json]

Prints, per category, the answers held in the stores (facts.json, contacts.json, tasks.json and
context.md: bench/recall.py's "stores" source) and read by `recall` at 500 and 1,000 tokens,
with reflections and without; then per conversation the reflections written (current at the
end), their items, and how many items are supported by their sources: every content word of
the item (bench/recall_match.py's matching: stop words out, light stemming) present in the
facts the reflection rests on (`rests_on`), and the share supported by one single source fact.
Items are the parts of the reflection's text after its first ": ", split on "; ", a trailing
date in brackets left out. The same drain, settings and data as bench/recall.py otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import recall as bench_recall  # noqa: E402
from bench.recall_match import content_words, vocabulary  # noqa: E402
from consolidator.runtime import logsetup  # noqa: E402

_DATE = re.compile(r"\s*\([^)]*\)\s*$")
BUDGETS = (500, 1000)


def items_of(text: str) -> list[str]:
    """A reflection's listed items: after its first ': ', split on '; ', trailing date out."""
    _, _, listed = text.partition(": ")
    return [_DATE.sub("", item.strip().rstrip(".")) for item in listed.split("; ") if item.strip()]


def support(db: Path, scope: str) -> dict[str, Any]:
    """The scope's current reflections, their items and how many are supported by their sources."""
    with sqlite3.connect(db) as conn:
        texts = dict(conn.execute("SELECT id, text FROM fact WHERE scope = ?", (scope,)).fetchall())
        rows = conn.execute("SELECT text, rests_on FROM fact WHERE scope = ? AND kind = 'reflection' "
                            "AND valid_to IS NULL", (scope,)).fetchall()
    items = supported = single = 0
    examples = []
    for text, rests_on in rows:
        sources = [texts[i] for i in json.loads(rests_on or "[]") if i in texts]
        union = vocabulary("\n".join(sources))
        each = [vocabulary(s) for s in sources]
        for item in items_of(text):
            words = content_words(item)
            items += 1
            supported += all(w in union for w in words)
            single += any(all(w in v for w in words) for v in each)
        examples.append(text[:200])
    return {"reflections": len(rows), "items": items, "supported": supported, "supported_by_one_fact": single,
            "examples": examples[:3]}


def settings_with(reflect: bool, facts: dict[str, Any]):
    """bench/recall.py's settings with [facts] reflect and `facts` set (the rest as the config says)."""
    def made(state_dir: Path, config: Path | None = None):
        settings = _SETTINGS(state_dir, config)
        update = {**facts, "reflect": reflect}
        return settings.model_copy(update={"facts": settings.facts.model_copy(update=update)})
    return made


_SETTINGS = bench_recall.bench_settings


def run(path: Path, limit: int | None, only: list[str] | None, config: Path | None,
        facts: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="recall-reflect-") as tmp:
        folder = Path(tmp)
        for reflect in (False, True):
            keep = folder / ("on" if reflect else "off")
            bench_recall.bench_settings = settings_with(reflect, facts or {})
            try:
                report = bench_recall.run(path, limit, only, config, keep=keep)
            finally:
                bench_recall.bench_settings = _SETTINGS
            key = "with" if reflect else "without"
            out[key] = {"stores": {name: row["hits"]["stores"] for name, row in
                                   report["total"]["recall"]["categories"].items()},
                        "n": {name: row["n"] for name, row in report["total"]["recall"]["categories"].items()},
                        "recall": {name: {b: row[f"recall@{b}"]["hits"] for b in BUDGETS}
                                   for name, row in report["budget"]["categories"].items()}}
            if reflect:
                out["conversations"] = {c["scope"]: support(keep / c["scope"] / "consolidator.db", c["scope"])
                                        for c in report["conversations"]}
    return out


def render(out: dict[str, Any]) -> str:
    lines = ["category (n): stores without -> with reflections; recall@500, @1000 without -> with"]
    for name, n in out["without"]["n"].items():
        a, b = out["without"], out["with"]
        lines.append(f"  {name} ({n}): stores {a['stores'][name]} -> {b['stores'][name]}; "
                     + "; ".join(f"recall@{k} {a['recall'][name][k]} -> {b['recall'][name][k]}" for k in BUDGETS))
    total = {"reflections": 0, "items": 0, "supported": 0, "supported_by_one_fact": 0}
    for scope, s in out["conversations"].items():
        lines.append(f"  {scope}: {s['reflections']} reflections, {s['items']} items, {s['supported']} supported by "
                     f"their sources, {s['supported_by_one_fact']} by one source fact")
        for key in total:
            total[key] += s[key]
    share = total["supported"] / total["items"] if total["items"] else 1.0
    lines.append(f"  all: {total['reflections']} reflections, {total['items']} items, "
                 f"{100 * share:.1f}% supported by their sources")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--only", action="append", default=None)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--threshold", type=float, default=None, help="facts.reflect_threshold for this run")
    parser.add_argument("--min-facts", type=int, default=None, help="facts.reflect_min_facts for this run")
    args = parser.parse_args(argv)
    logsetup.configure("error")
    path = bench_recall.find_data(args.path)
    only = [s for item in args.only for s in item.split(",")] if args.only else None
    facts = {k: v for k, v in (("reflect_threshold", args.threshold), ("reflect_min_facts", args.min_facts))
             if v is not None}
    out = run(path, args.limit, only, args.config, facts)
    print(json.dumps(out, indent=1) if args.json else render(out))


if __name__ == "__main__":
    main()
