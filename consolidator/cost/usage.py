"""The "model" section of `consolidator status`: calls, tokens and cost from the call ledger.

    {"calls", "input_tokens", "output_tokens", "cache_read_tokens", "cost_usd", "errors",
     "today": {same keys},
     "by_operation": {op: {"calls", "input_tokens", "output_tokens", "cost_usd", "today_calls"}},
     "budget": {"day", "limit_usd", "limit_tokens", "spent_usd", "spent_tokens", "deferred"},
     "batches": {"pending": [{"id", "state", "requests", "age_s"}], "queued_requests"}}

"calls" counts requests the API answered with a message (valid or not); "errors" those that
got none. "today" is the UTC day of `now` (the budget's day). "deferred" lists the work
tiers the daily budget closes now (consolidator.cost.budget), empty without a budget.
"batches" (model.batch_api): the Message Batches not ended yet, oldest first, with their age
at `now`, and how many requests wait to be submitted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stores.engine import Engine, reading

from consolidator.cost.budget import BudgetGate, Spend
from consolidator.model.settings import ModelSettings
from stores.batch_requests import pending
from stores.model_calls import CallTotals, per_operation, totals, utc_day

_KEYS = ("calls", "input_tokens", "output_tokens", "cache_read_tokens", "cost_usd", "errors")


def _summary(t: CallTotals) -> dict[str, Any]:
    return {key: getattr(t, key) for key in _KEYS}


def usage_report(engine: Engine, settings: ModelSettings, now: datetime) -> dict[str, Any]:
    start, end = utc_day(now)
    with reading(engine) as session:
        total = totals(session)
        day = totals(session, start, end)
        ops = per_operation(session)
        ops_today = per_operation(session, start, end)
    gate = BudgetGate(engine, settings, clock=lambda: now)
    spend = Spend(start, day.cost_usd, day.tokens)
    by_operation = {
        op: {
            "calls": t.calls, "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
            "cost_usd": t.cost_usd, "today_calls": ops_today.get(op, CallTotals()).calls,
        }
        for op, t in sorted(ops.items())
    }
    budget = {
        "day": start.date().isoformat(), "limit_usd": settings.daily_budget_usd,
        "limit_tokens": settings.daily_budget_tokens, "spent_usd": day.cost_usd,
        "spent_tokens": day.tokens, "deferred": gate.closed(spend) if gate.enabled else [],
    }
    open_batches, queued = pending(engine)
    batches = {"pending": [{"id": b.batch_id, "state": b.state, "requests": b.requests,
                            "age_s": round(max(0.0, (now - b.created_at).total_seconds()))} for b in open_batches],
               "queued_requests": queued}
    return {**_summary(total), "today": _summary(day), "by_operation": by_operation, "budget": budget,
            "batches": batches}


def format_usage(model: dict[str, Any]) -> list[str]:
    """A compact table of the model section, for the text status."""
    width = max([len("total"), *map(len, model["by_operation"])]) + 2  # operation names vary in length
    where = f" at {model['base_url']}" if model.get("base_url") else ""
    lines = [f"model backend: {model['provider']}{where}"] if model.get("provider") else []
    lines += [f"{'model':<{width + 2}}{'calls':>8}{'today':>8}{'input':>12}{'output':>10}{'cost $':>11}"]
    for op, o in model["by_operation"].items():
        lines.append(f"  {op:<{width}}{o['calls']:>8}{o['today_calls']:>8}{o['input_tokens']:>12}"
                     f"{o['output_tokens']:>10}{o['cost_usd']:>11.4f}")
    lines.append(f"  {'total':<{width}}{model['calls']:>8}{model['today']['calls']:>8}{model['input_tokens']:>12}"
                 f"{model['output_tokens']:>10}{model['cost_usd']:>11.4f}  ({model['errors']} error{'' if model['errors'] == 1 else 's'})")
    b = model["budget"]
    limits = [f"${b['limit_usd']:g}" if b["limit_usd"] is not None else None,
              f"{b['limit_tokens']} tokens" if b["limit_tokens"] is not None else None]
    limit = " / ".join(x for x in limits if x) or "none"
    deferred = ", ".join(b["deferred"]) or "nothing"
    lines.append(f"budget {b['day']} (UTC): limit {limit}; spent ${b['spent_usd']:.4f}, "
                 f"{b['spent_tokens']} tokens; deferred: {deferred}")
    batches = model.get("batches") or {}
    if batches.get("pending") or batches.get("queued_requests"):
        ages = ", ".join(f"{p['id'] or '(submitting)'} {p['requests']} requests {p['age_s'] // 60}m old"
                         for p in batches["pending"])
        lines.append(f"batches: {len(batches['pending'])} pending ({ages or 'none'}); "
                     f"{batches['queued_requests']} requests queued")
    return lines
