"""The offline model's published outcome on two recorded histories equals the recorded one.

A refactor or speed-up of the offline rules must leave it unchanged; a deliberate change of
behaviour rewrites the file (CONSOLIDATOR_WRITE_GOLDEN=1 pytest tests/test_offline_golden.py)
and the diff shows in review what moved."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.golden import GOLDEN, offline_outcome


@pytest.mark.slow
def test_the_offline_outcome_equals_the_recorded_one(tmp_path: Path) -> None:
    outcome = offline_outcome(tmp_path / "state")
    if os.environ.get("CONSOLIDATOR_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(outcome, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(outcome) == sorted(recorded)
    for name in sorted(recorded):
        assert outcome[name] == recorded[name], name


def test_the_recorded_outcome_covers_every_store_and_both_ladders() -> None:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for scope in ("pair", "sample"):
        assert recorded[f"{scope}/facts.json"]["facts"], scope
        assert recorded[f"{scope}/contacts.json"]["contacts"], scope
        assert any(name.startswith(f"{scope}/time/") for name in recorded)
        assert any(name.startswith(f"{scope}/count/") for name in recorded)
    assert recorded["pair/tasks.json"]["tasks"] or recorded["sample/tasks.json"]["tasks"]
