"""Publishing the ladders: the newest summary of every rung as one JSON file each.

<state_dir>/snapshots/<scope>/time/{day,week,4w,12w,52w}.json and count/{1,10,...}.json.
"Newest" is the newest window that has something in it (a silent week does not hide the
last real one); `window`, `watermark` and `generated_at` tell a planner how fresh it is.
"""

from __future__ import annotations

from typing import Any

from consolidator.core.app import App
from hierarchy.tiling import LadderSpec, count_ladder, time_ladder
from stores.engine import reading, transaction
from stores.files.snapshots import publish_json
from stores.schema.ladders import Summary
from stores.summaries import newest_summaries
from stores.view_versions import mark_all_published, stale


def ladder_specs(app: App) -> dict[str, LadderSpec]:
    """The two ladders as configured."""
    cfg = app.settings.ladders
    return {"time": time_ladder(tuple(cfg.time)), "count": count_ladder(tuple(cfg.count))}


def summary_payload(summary: Summary) -> dict[str, Any]:
    if summary.ladder == "time":
        window = {"start": summary.window_start.isoformat(), "end": summary.window_end.isoformat()}
    else:
        window = {"first": summary.first_number, "last": summary.last_number}
    return {
        "scope": summary.scope,
        "ladder": summary.ladder,
        "rung": summary.rung,
        "id": summary.id,
        "version": summary.version,
        "generated_at": summary.created_at.isoformat(),
        "window": window,
        "label": summary.label,
        "kind": summary.kind,
        "text": summary.text,
        "sources": list(summary.sources),
        "watermark": {
            "seq": summary.watermark_seq,
            "at": summary.watermark_at.isoformat() if summary.watermark_at else None,
        },
    }


def publish_ladder(app: App, scope: str, specs: dict[str, LadderSpec], only: set[tuple[str, str]] | None = None) -> int:
    """Publish the newest summary of each rung (of the rungs in `only`, when given)."""
    with reading(app.engine) as session:
        payloads = _payloads(session, scope, specs, only)
    return _write(app, scope, payloads)


def _payloads(session, scope: str, specs: dict[str, LadderSpec], only: set[tuple[str, str]] | None) -> list[tuple[str, dict]]:
    payloads = []
    for ladder, spec in specs.items():
        rungs = [rung.name for rung in spec.rungs if only is None or (ladder, rung.name) in only]
        newest = newest_summaries(session, scope, ladder, rungs) if rungs else {}
        for rung in rungs:
            if rung in newest:
                payloads.append((f"{ladder}/{rung}.json", summary_payload(newest[rung])))
    return payloads


def _write(app: App, scope: str, payloads: list[tuple[str, dict]]) -> int:
    for view, payload in payloads:
        publish_json(app.settings.snapshot_dir, scope, view, payload)
    return len(payloads)


LADDER_VIEW = "ladder:"


def ladder_view(ladder: str, rung: str) -> str:
    return f"{LADDER_VIEW}{ladder}/{rung}"


def _rungs(stale_views: list[tuple[str, int]]) -> set[tuple[str, str]]:
    return {tuple(view[len(LADDER_VIEW):].split("/", 1)) for view, _ in stale_views if view.startswith(LADDER_VIEW)}


def publish_stale_rungs(app: App, scope: str, stale_views: list[tuple[str, int]]) -> int:
    """Publish the rungs among the scope's stale (view, version) pairs; the caller marks them
    published (the snapshot stage marks them with its other views, in one statement)."""
    rungs = _rungs(stale_views)
    return publish_ladder(app, scope, ladder_specs(app), only=rungs) if rungs else 0


def publish_ladder_views(app: App, scope: str) -> int:
    """Publish every rung of `scope` whose view is stale, then record it as published (the stale
    views and their summaries read in one read transaction)."""
    with reading(app.engine) as session:
        todo = [(view, version) for _, view, version in stale(session, scope) if view.startswith(LADDER_VIEW)]
        if not todo:
            return 0
        payloads = _payloads(session, scope, ladder_specs(app), _rungs(todo))
    written = _write(app, scope, payloads)
    with transaction(app.engine) as session:
        mark_all_published(session, scope, todo)
    return written
