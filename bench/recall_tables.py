"""The topic tables in the recall bench (bench/recall.py): how many tables each conversation's
facts fill and how large they are, and the stores' answers with and without the tables.

"without": the stores as they were before tables (context.md's per-table headings taken out;
facts.json's `table` field is never content: bench/recall_state.py META_KEYS); "with": the
stores plus every table's name and description (facts/index.json), which is all the tables add
in words: their worth is in the grouping a reader sees, which content-word matching cannot score.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

_HEADING = re.compile(r"^- [^\n]*:$", re.M)  # "- hobbies and interests:" above a table's facts in context.md


def measure(state: Any, scope_dir: Path, rescore: Callable[[Any], Any]) -> dict[str, Any]:
    """Table count and sizes, and the per-category stores hits (`rescore(state)` -> Tally) without and with them."""
    try:
        tables = json.loads((scope_dir / "facts" / "index.json").read_text(encoding="utf-8")).get("tables", [])
    except (FileNotFoundError, ValueError):
        tables = []
    words = "\n".join(f"{t.get('name', '')}: {t.get('description', '')}" for t in tables)
    facts_part = state.context.split("## Facts\n")
    bare = facts_part[0] + "".join("## Facts\n" + _HEADING.sub("", part) for part in facts_part[1:])
    without, with_ = rescore(replace(state, context=bare)), rescore(replace(state, context=bare + "\n" + words))
    return {"tables": len(tables), "sizes": sorted((int(t.get("size", 0)) for t in tables), reverse=True),
            "without": {cat: c["stores"] for cat, c in without.hits.items()},
            "with": {cat: c["stores"] for cat, c in with_.hits.items()}}


def render(report: dict[str, Any], categories: dict[int, str]) -> list[str]:
    """The report's lines: tables per conversation and the largest, then stores hits without -> with tables."""
    rows, n = report["conversations"], report["questions"]
    without, with_ = Counter(), Counter()
    for r in rows:
        without.update(r["without"])
        with_.update(r["with"])
    lines = [f"topic tables per conversation: {'/'.join(str(r['tables']) for r in rows)}; largest "
             f"{'/'.join(str(r['sizes'][0] if r['sizes'] else 0) for r in rows)}; sizes "
             + "; ".join(",".join(map(str, r["sizes"])) for r in rows)]
    lines += [f"stores without -> with tables, {name}: {without[cat]}/{n.get(cat, 0)} -> {with_[cat]}/{n.get(cat, 0)}"
              for cat, name in categories.items()]
    return lines
