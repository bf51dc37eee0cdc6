"""The timeline page: both ladders as rows of blocks, links to sources, held and pending
windows marked, every text escaped, nothing fetched; and it renders in a real browser."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from datetime import date, datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

from consolidator.ladders.stage import LadderStage
from consolidator.messages.sample import generate
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.snapshots.timeline import render_timeline
from consolidator.snapshots.timeline_data import gather_timeline
from hierarchy.calendar import day_unit
from stores.engine import reading, transaction
from stores.interactions import max_number
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import LadderHold
from stores.schema.ladders import DirtyWindow
from stores.summaries import newest_versions
from tests.support.pngread import colour_stats

UTC = timezone.utc
START = datetime(2025, 1, 6, tzinfo=UTC)  # a Monday
DAYS = 24
NOW = START + timedelta(days=DAYS, hours=1)
HOSTILE = "<script>alert('x')</script> & </script><b>bold</b>"


class Blocks(HTMLParser):
    """The page's blocks (<g class="block ...">) with their attributes, and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[str, dict[str, str]] = {}
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        if tag == "g" and "block" in attributes.get("class", "").split():
            self.blocks[attributes["data-ref"]] = attributes


def parse(html: str) -> Blocks:
    parser = Blocks()
    parser.feed(html)
    return parser


def embedded(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="timeline-data">(.*?)</script>', html, re.S).group(1))


@pytest.fixture
def ladders(app):
    """Three weeks and a half of generated history with a hostile message, ladders written at NOW."""
    records = list(generate(scope="maya", start=START, days=DAYS, seed=7))
    messages = [NewMessage(r["scope"], datetime.fromisoformat(r["at"]), r["role"], r["text"], r.get("speaker"),
                           r.get("session"), r["id"]) for r in records]
    messages.append(NewMessage("maya", START + timedelta(days=2, hours=20), "user", HOSTILE, "Maya"))
    append_messages(app.engine, messages, START)
    Consolidator(app, [], [LadderStage(app, OfflineModel(), publish=False)]).drain(NOW)
    return app


def page(app) -> str:
    return render_timeline(gather_timeline(app, "maya", NOW))


def written_week(html: str) -> str:
    """The first week of the page written from days with content."""
    return next(ref for ref, b in parse(html).blocks.items()
                if b["data-rung"] == "week" and b["class"].split()[1] in ("summarized", "passed", "reused"))


@pytest.mark.slow
def test_every_rung_is_a_row_of_its_windows(ladders) -> None:
    """Count rungs hold ceil(N/size) blocks over N interactions; each content window of a rung is drawn."""
    html = page(ladders)
    blocks = parse(html).blocks
    with reading(ladders.engine) as session:
        interactions = max_number(session, "maya")
        rows = {(ladder, rung): newest_versions(session, "maya", ladder, rung)
                for ladder, rungs in (("time", ladders.settings.ladders.time),
                                      ("count", [str(c) for c in ladders.settings.ladders.count]))
                for rung in rungs}
    assert interactions > 10
    for size in ladders.settings.ladders.count:
        drawn = [b for b in blocks.values() if b["data-ladder"] == "count" and b["data-rung"] == str(size)]
        assert len(drawn) == math.ceil(interactions / size), size
    for (ladder, rung), summaries in rows.items():
        content = {f"{ladder}/{rung}/{s.key}" for s in summaries if s.kind != "empty"}
        assert content <= set(blocks), (ladder, rung)
        for ref in content:
            assert blocks[ref]["class"].split()[1] in ("summarized", "passed", "reused")
    days = [b for b in blocks.values() if b["data-ladder"] == "time" and b["data-rung"] == "day"]
    spoken = {day_unit(datetime.fromisoformat(r["at"]).date()) for r in generate(scope="maya", start=START, days=DAYS, seed=7)}
    first_day, last_day = min(spoken), max(spoken)
    assert len(days) == (last_day - last_day % 7 + 7) - first_day  # from the first day spoken to its last week's end


@pytest.mark.slow
def test_blocks_link_to_their_sources_one_rung_down(ladders) -> None:
    """A block's data-sources name drawn blocks of a lower rung of its ladder; the JSON lists who reads it."""
    html = page(ladders)
    blocks, details = parse(html).blocks, embedded(html)
    linked = 0
    for ref, block in blocks.items():
        for source in block["data-sources"].split():
            if source not in blocks:
                assert block["data-ladder"] == "time"  # only a window reaching before the history
                continue
            assert blocks[source]["data-ladder"] == block["data-ladder"]
            rungs = details[ref]["ladder"] == "time" and ladders.settings.ladders.time or [str(c) for c in ladders.settings.ladders.count]
            assert rungs.index(blocks[source]["data-rung"]) < rungs.index(block["data-rung"])
            assert ref in details[source]["readers"]
            linked += 1
    assert linked > 30
    week = written_week(html)
    assert [s.split("/")[1] for s in blocks[week]["data-sources"].split()] == ["day"] * len(blocks[week]["data-sources"].split())


@pytest.mark.slow
def test_held_and_pending_windows_are_marked(ladders) -> None:
    """A LadderHold row marks its window held (with the reason); an open window is pending; a written
    day with newer messages waiting is flagged."""
    html = page(ladders)
    written_day = next(ref for ref, b in parse(html).blocks.items()
                       if b["data-rung"] == "day" and b["class"].split()[1] in ("summarized", "passed"))
    with transaction(ladders.engine) as session:
        session.add(LadderHold(scope="maya", ladder="time", rung="week", key="2025-01-13", attempts=2,
                               next_at=NOW + timedelta(minutes=5), reason="TransientModelError: 529 overloaded"))
        session.add(DirtyWindow(scope="maya", ladder="time", unit=day_unit(date.fromisoformat(written_day.split("/")[2])),
                                last_at=NOW))
    html = page(ladders)
    blocks, details = parse(html).blocks, embedded(html)
    assert "stale" in blocks[written_day]["class"].split() and details[written_day]["version"] == 1
    assert any(note.startswith("newer messages") for note in details[written_day]["notes"])
    assert blocks["time/week/2025-01-13"]["class"].split()[:2] == ["block", "held"]
    assert any("529 overloaded" in note for note in details["time/week/2025-01-13"]["notes"])
    pending = [ref for ref, b in blocks.items() if "pending" in b["class"].split()]
    assert "time/4w/2025-01-20" in pending  # a 4-week block still open at NOW
    assert any(ref.startswith("count/") for ref in pending)  # the count block the newest interactions fill
    assert all(details[ref]["notes"] for ref in pending)


@pytest.mark.slow
def test_silent_closed_days_have_no_row_and_are_drawn_silent_not_pending(ladders) -> None:
    """A closed day nobody spoke on writes no summary; the page draws it silent (empty), not pending,
    while one with messages waiting stays pending."""
    with reading(ladders.engine) as session:
        written = {s.key for s in newest_versions(session, "maya", "time", "day")}
    with transaction(ladders.engine) as session:  # messages wait on a silent day: it is no longer silent
        session.add(DirtyWindow(scope="maya", ladder="time", unit=day_unit(date(2025, 1, 9)), last_at=NOW))
    html = page(ladders)
    blocks, details = parse(html).blocks, embedded(html)
    silent = [ref for ref, b in blocks.items() if b["data-ladder"] == "time" and b["data-rung"] == "day"
              and ref.split("/")[2] not in written and ref.split("/")[2] < NOW.date().isoformat()]
    assert "time/day/2025-01-09" in silent and "time/day/2025-01-07" in silent
    assert blocks["time/day/2025-01-07"]["class"].split()[1] == "empty" and details["time/day/2025-01-07"]["notes"] == []
    assert blocks["time/day/2025-01-09"]["class"].split()[1] == "pending"
    assert all(blocks[ref]["class"].split()[1] == "empty" for ref in silent if ref != "time/day/2025-01-09")


@pytest.mark.slow
def test_every_text_is_escaped_and_nothing_is_fetched(ladders) -> None:
    """A message full of markup reaches the page only escaped; no URL, no external resource."""
    html = page(ladders)
    assert any(HOSTILE in d["text"] for d in embedded(html).values())  # it is there, as data
    assert "<b>bold" not in html and "alert('x')</script>" not in html
    assert [tag for tag, _ in parse(html).tags].count("script") == 2  # the JSON and the page's own
    assert not re.search(r"https?:|\bsrc=|\bhref=|@import|<link", html)


@pytest.mark.slow
def test_cli_writes_the_page_beside_the_snapshots_or_to_out(ladders, run_cli, state_dir: Path, tmp_path: Path) -> None:
    """`timeline --scope` writes snapshots/<scope>/timeline.html (or --out) and prints the path; an unknown scope exits 2."""
    result = run_cli("timeline", "--scope", "maya")
    default = state_dir / "snapshots" / "maya" / "timeline.html"
    assert result.exit_code == 0 and result.output.strip() == str(default)
    assert parse(default.read_text(encoding="utf-8")).blocks
    out = tmp_path / "pages" / "maya.html"
    assert run_cli("timeline", "--scope", "maya", "--out", str(out)).output.strip() == str(out)
    assert "Timeline of maya" in out.read_text(encoding="utf-8")
    unknown = run_cli("timeline", "--scope", "nobody")
    assert unknown.exit_code == 2 and "nobody" in unknown.stderr
    run_cli("log", "--scope", "fresh", "--role", "user", "hello")  # logged, nothing consolidated yet
    fresh = Path(run_cli("timeline", "--scope", "fresh").output.strip())
    assert "No summaries yet" in fresh.read_text(encoding="utf-8") and not parse(fresh.read_text(encoding="utf-8")).blocks


# --- in a real browser -----------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (Debian: apt-get install -y chromium)")


def chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


def written_page(ladders, tmp_path: Path) -> tuple[Path, str]:
    """The timeline page of `ladders`, written to a file for the browser: its path and its HTML."""
    target = tmp_path / "timeline.html"
    html = page(ladders)
    target.write_text(html, encoding="utf-8")
    return target, html


@pytest.mark.browser
@needs_chromium
def test_page_renders_in_headless_chromium(ladders, tmp_path: Path) -> None:
    """Chromium draws the page, a block selected: many colours, far from a blank picture."""
    target, html = written_page(ladders, tmp_path)
    shot = tmp_path / "shot.png"
    chromium(f"--screenshot={shot}", "--window-size=1400,900", "--force-device-scale-factor=0.5",
             f"{target.as_uri()}#b={written_week(html)}")
    assert shot.exists(), "chromium wrote no screenshot"
    colours, inked = colour_stats(shot)
    assert colours >= 12 and inked >= 0.08, (colours, inked)


@pytest.mark.browser
@needs_chromium
def test_selecting_a_block_fills_the_panel_and_outlines_its_sources(ladders, tmp_path: Path) -> None:
    """With #b=<ref>, the script shows the block's summary and marks its sources and readers (DOM after load)."""
    target, html = written_page(ladders, tmp_path)
    week = written_week(html)
    dom = chromium("--dump-dom", f"{target.as_uri()}#b={week}").stdout
    after = parse(dom).blocks
    assert "sel" in after[week]["class"].split()
    sources = parse(html).blocks[week]["data-sources"].split()
    assert sources and all("src" in after[s]["class"].split() for s in sources)
    assert all("reader" in after[r]["class"].split() for r in embedded(html)[week]["readers"])
    panel = re.search(r'<aside id="panel">(.*?)</aside>', dom, re.S).group(1)
    assert embedded(html)[week]["label"] in panel and "Written from" in panel
    assert dom.count("<line ") >= len(sources)  # the links drawn
