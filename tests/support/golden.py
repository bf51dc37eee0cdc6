"""The offline model's outputs on recorded conversations, as the snapshots publish them: what a
refactor or a speed-up of the offline rules must leave unchanged (tests/test_offline_golden.py).

Two histories: a hand-written conversation of two friends over four sessions
(tests/data/golden_conversation.jsonl: jobs, a pet, a move, a diet, plans, relative dates,
negations, a promise) and the generated sample history. Both are drained through the daemon's
wiring with the offline model; the published snapshots (facts, contacts, tasks, every ladder
rung, context.md) are the outcome, less what names a moment of the run (generation times).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.messages.ingest import validate
from consolidator.messages.sample import generate
from consolidator.model.offline import OfflineModel
from consolidator.runtime.wiring import build_consolidator
from stores.messages import append_messages

DATA = Path(__file__).resolve().parents[1] / "data"
CONVERSATION = DATA / "golden_conversation.jsonl"
GOLDEN = DATA / "offline_golden.json"
UTC = timezone.utc
VOLATILE = {"generated_at"}
FACT_ID = re.compile(r"\bf_[0-9a-f]{16}\b")  # fact ids are random: the same fact gets another id each run


def _records() -> list[dict[str, Any]]:
    pair = [{**json.loads(line), "scope": "pair"} for line in CONVERSATION.read_text(encoding="utf-8").splitlines()]
    sample = list(generate(scope="sample", start=datetime(2025, 1, 6, tzinfo=UTC), days=24, seed=11, rate=2.0))
    return pair + sample


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return FACT_ID.sub("f_*", value) if isinstance(value, str) else value


def offline_outcome(state_dir: Path) -> dict[str, Any]:
    """Drain both histories with the offline model; every published snapshot, by relative path."""
    settings = Settings(state_dir=state_dir, batch_size=10, ladders={"budget_tokens": 48},
                        facts={"sleep_idle": "2d", "merge_threshold": 0.6}, model={"provider": "offline"})
    app = open_app(settings)
    try:
        records = _records()
        start = min(datetime.fromisoformat(r["at"]) for r in records)
        end = max(datetime.fromisoformat(r["at"]) for r in records)
        append_messages(app.engine, [validate(r, now=lambda: start) for r in records], start)
        consolidator = build_consolidator(app, model=OfflineModel())
        for step in range(8):  # a week past the last message: days, weeks and the offline pass settle
            consolidator.drain(end + timedelta(days=1 + step))
        out: dict[str, Any] = {}
        for path in sorted((state_dir / "snapshots").rglob("*")):
            rel = path.relative_to(state_dir / "snapshots").as_posix()
            if path.suffix == ".json":
                out[rel] = _strip(json.loads(path.read_text(encoding="utf-8")))
            elif path.suffix == ".md":
                out[rel] = [FACT_ID.sub("f_*", line) for line in path.read_text(encoding="utf-8").splitlines()]
        return out
    finally:
        app.close()
