"""The recall bench's totals over conversations, as one JSON-ready object and as a text table."""

from __future__ import annotations

import math
from typing import Any

CATEGORY_ROWS = ("single-hop", "multi-hop", "temporal", "open-domain", "all")


def combine(results: list[dict[str, Any]], tally_type: type) -> dict[str, Any]:
    """Sum tallies, compression, junk, model calls and times over conversations."""
    tally = tally_type()
    comp: dict[str, dict[str, Any]] = {}
    junk: dict[str, dict[str, Any]] = {}
    model = {"calls": 0, "errors": 0, "cost_usd": 0.0, "failed_steps_retried": 0}
    for r in results:
        tally.add(r["tally"])
        for name, c in r["compression"].items():
            slot = comp.setdefault(name, {"windows": 0, "read": 0, "wrote": 0})
            for key in ("windows", "read", "wrote"):
                slot[key] += c[key]
            if c.get("min_ratio") is not None:
                slot["min_ratio"] = min(slot.get("min_ratio", math.inf), c["min_ratio"])
        for name, j in r["junk"].items():
            slot = junk.setdefault(name, {"total": 0, "junk": 0, "examples": []})
            slot["total"] += j["total"]
            slot["junk"] += j["junk"]
            slot["examples"] = (slot["examples"] + j["examples"])[:8]
        for key in model:
            model[key] += r["model"][key]
    return {"recall": tally.as_dict(), "compression": _with_ratios(comp), "junk": _with_rates(junk), "model": model}


def _with_ratios(comp: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: {**v, "ratio": (v["read"] / v["wrote"]) if v["wrote"] else None} for k, v in comp.items()}


def _with_rates(junk: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: {**v, "rate": (v["junk"] / v["total"]) if v["total"] else None} for k, v in junk.items()}


def conversation_json(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in r.items() if k not in ("tally", "budget")}
    out["recall"] = r["tally"].as_dict()
    out["compression"] = _with_ratios(r["compression"])
    out["junk"] = _with_rates(r["junk"])
    return out


def _cell(hits: int, share: float) -> str:
    return f"{share * 100:5.1f}% {hits:>4}"


def recall_table(recall: dict[str, Any]) -> list[str]:
    sources = list(recall["categories"]["all"]["hits"])
    lines = [f"{'category':<14}{'n':>5}" + "".join(f"{s:>13}" for s in sources)]
    for row in CATEGORY_ROWS:
        r = recall["categories"][row]
        lines.append(f"{row:<14}{r['n']:>5}" + "".join(f"{_cell(r['hits'][s], r['share'][s]):>13}" for s in sources))
    return lines


def render(report: dict[str, Any]) -> str:
    total = report["total"]
    lines = [f"recall bench: {report['path']} - {len(report['conversations'])} conversations, provider "
             f"{report['provider']}, drained {report['settle_days']:g} days after the last message",
             "", "share of questions whose answer's content words all appear in each source (% and count):"]
    lines += recall_table(total["recall"])
    rec = total["recall"]
    lines.append(f"(category 5 adversarial skipped: {report['adversarial_skipped']} questions; answers with no content "
                 f"word: {rec['no_content_words']}; questions with no logged evidence turn: "
                 f"{rec['evidence_unresolved']})")
    lines += ["", "compression: characters read -> written (non-empty windows; stores and context.md against the "
                  "transcript's raw lines); least: the least compressed window"]
    for name, c in total["compression"].items():
        ratio = f"{c['ratio']:.1f}x" if c["ratio"] else "n/a"
        windows = f"{c['windows']:>5} windows" if c["windows"] or "/" in name else " " * 13
        least = f"least {c['min_ratio']:.1f}x" if c.get("min_ratio") else ""
        lines.append(f"  {name:<12}{windows}{c['read']:>11,} -> {c['wrote']:>9,}  {ratio:>7}  {least}".rstrip())
    lines += ["", "junk:"]
    what = {"facts": "subject is no person or named thing", "contacts": "name is no person",
            "tasks": "no action (verb)", "summaries": "above the day rung, half or more greetings"}
    for name, j in total["junk"].items():
        rate = f"{j['rate'] * 100:.0f}%" if j["rate"] is not None else "n/a"
        lines.append(f"  {name:<9}{j['junk']:>4} / {j['total']:<4} {rate:>5}  {what.get(name, name)}; e.g. "
                     + "; ".join(repr(e[:50]) for e in j["examples"][:4]))
    m = total["model"]
    if m["calls"] or m["errors"]:
        lines.append(f"\nmodel: {m['calls']} calls, {m['errors']} errors, ${m['cost_usd']:.4f}; failed steps retried: "
                     f"{m['failed_steps_retried']}")
    lines += ["", f"{'conversation':<14}{'messages':>9}{'questions':>10}{'import s':>10}{'drain s':>9}{'read s':>8}"
                  f"{'eval s':>9}{'total s':>9}{'peak RSS MB':>13}"]
    for c in report["conversations"]:
        t = c["timing"]
        n = c["recall"]["categories"]["all"]["n"]
        lines.append(f"{c['scope']:<14}{c['messages']:>9}{n:>10}{t['import_s']:>10.2f}{t['drain_s']:>9.2f}"
                     f"{t['read_s']:>8.2f}{t['eval_s']:>9.2f}{t['total_s']:>9.2f}{c['peak_rss_mb']:>13.0f}")
    lines.append(f"{'total':<14}{sum(c['messages'] for c in report['conversations']):>9}"
                 f"{rec['categories']['all']['n']:>10}{'':>45}{report['wall_s']:>9.2f}{report['peak_rss_mb']:>13.0f}")
    return "\n".join(lines)
