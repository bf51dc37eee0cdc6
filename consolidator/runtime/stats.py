"""What `consolidator stats` reports: the DuckDB figures of stores/analytics.py, per scope.

Per scope: messages (total, archived), per UTC day and per week; consolidation lag from a
message's arrival in the log (received_at) to the moment its batch was applied by every step
(p50 and p99, seconds); model calls, tokens and cost per day and operation and per operation;
summaries written per ladder rung and kind; the archive's files, messages and bytes.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from consolidator.core.app import App
from stores import analytics
from stores.engine import reading


def _scope(out: dict[str, Any], name: str) -> dict[str, Any]:
    return out.setdefault(name, {
        "messages": {"total": 0, "archived": 0}, "per_day": {}, "per_week": {},
        "lag_s": {"messages": 0, "p50": None, "p99": None},
        "model": {"per_day": [], "per_operation": {}}, "summaries": {},
        "archive": {"files": 0, "messages": 0, "bytes": 0},
    })


def gather_stats(app: App, scope: str | None = None, since: date | None = None) -> dict[str, Any]:
    start = datetime.combine(since, time(0), app.settings.timezone_of(scope or "")) if since else None
    with reading(app.engine) as session:
        connection = analytics.load(session, app.settings.archive_dir, scope, start)
    try:
        rows = analytics.figures(connection)
    finally:
        connection.close()
    out: dict[str, Any] = {}
    for name, total, archived in rows["totals"]:
        _scope(out, name)["messages"] = {"total": total, "archived": archived}
    for name, day, count in rows["per_day"]:
        _scope(out, name)["per_day"][day.isoformat()] = count
    for name, week, count in rows["per_week"]:
        _scope(out, name)["per_week"][week.isoformat()] = count
    for name, count, p50, p99 in rows["lag"]:
        _scope(out, name)["lag_s"] = {"messages": count, "p50": round(p50, 3), "p99": round(p99, 3)}
    for name, day, operation, calls, tokens_in, tokens_out, cost in rows["calls_per_day"]:
        _scope(out, name)["model"]["per_day"].append({"day": day.isoformat(), "operation": operation, "calls": calls,
                                                      "input_tokens": int(tokens_in), "output_tokens": int(tokens_out),
                                                      "cost_usd": round(cost, 6)})
    for name, operation, calls, tokens_in, tokens_out, cost in rows["calls_per_operation"]:
        _scope(out, name)["model"]["per_operation"][operation] = {
            "calls": calls, "input_tokens": int(tokens_in), "output_tokens": int(tokens_out), "cost_usd": round(cost, 6)}
    for name, ladder, rung, kind, count in rows["summaries"]:
        _scope(out, name)["summaries"].setdefault(f"{ladder}/{rung}", {})[kind] = count
    for name, files, messages, size in rows["archive"]:
        _scope(out, name)["archive"] = {"files": files, "messages": int(messages), "bytes": int(size)}
    return {"since": since.isoformat() if since else None, "days": "UTC", "scopes": dict(sorted(out.items()))}


def format_stats(report: dict[str, Any]) -> list[str]:
    lines = [f"stats{' since ' + report['since'] if report['since'] else ''} (days and weeks in UTC)"]
    if not report["scopes"]:
        lines.append("no messages logged yet")
    for name, s in report["scopes"].items():
        m, lag, archive = s["messages"], s["lag_s"], s["archive"]
        days = len(s["per_day"]) or 1
        lines.append(f"{name}: {m['total']:,} messages ({m['archived']:,} archived), {m['total'] / days:,.1f} a day "
                     f"over {len(s['per_day'])} active days, {len(s['per_week'])} weeks")
        if lag["messages"]:
            lines.append(f"  lag to consolidation: p50 {lag['p50']:,.1f} s, p99 {lag['p99']:,.1f} s "
                         f"({lag['messages']:,} messages)")
        for operation, c in sorted(s["model"]["per_operation"].items()):
            lines.append(f"  model {operation}: {c['calls']:,} calls, {c['input_tokens']:,} in / "
                         f"{c['output_tokens']:,} out tokens, ${c['cost_usd']:.4f}")
        for rung, kinds in s["summaries"].items():
            lines.append(f"  summaries {rung}: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())))
        if archive["files"]:
            lines.append(f"  archive: {archive['files']} files, {archive['messages']:,} messages, {archive['bytes']:,} bytes")
    return lines
