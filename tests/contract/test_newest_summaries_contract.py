"""newest_summaries: the newest content of several rungs in one statement, as newest_summary gives each."""

from __future__ import annotations

import pytest

from stores.engine import reading
from stores.summaries import newest_summaries
from tests.support.summaries_kit import summary, write


@pytest.mark.parametrize("ladder", ["time", "count"])
def test_each_rung_gets_its_newest_window_with_content_newest_version(engine, ladder: str) -> None:
    """Per rung: the latest window that is not empty, at its newest version; a rung with only
    empty windows, another scope's rungs and rungs not asked for are left out."""
    write(engine,
          summary("a", ladder=ladder, rung="r1", order=1), summary("b", ladder=ladder, rung="r1", order=2),
          summary("b", 2, ladder=ladder, rung="r1", order=2, text="b again"),
          summary("c", ladder=ladder, rung="r1", order=3, kind="empty"),
          summary("x", ladder=ladder, rung="r2", order=5, text="x"), summary("w", ladder=ladder, rung="r2", order=4),
          summary("e", ladder=ladder, rung="r3", order=9, kind="empty"),
          summary("z", ladder=ladder, rung="r1", order=99, scope="t"),
          summary("q", ladder=ladder, rung="r4", order=1))
    with reading(engine) as session:
        found = newest_summaries(session, "s", ladder, ["r1", "r2", "r3", "missing"])
        assert {rung: (s.key, s.version, s.text) for rung, s in found.items()} == {
            "r1": ("b", 2, "b again"), "r2": ("x", 1, "x"),
        }
        assert newest_summaries(session, "s", ladder, []) == {}
        assert set(newest_summaries(session, "s", ladder, ["r4"])) == {"r4"}
